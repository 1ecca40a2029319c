"""Tournaments and paired comparisons on a Ray cluster.

Each game is a Ray task that plays one seed to its end in our Rust player,
in-process and with the GIL released; the results stream back to the
driver, which appends each finished game to its records file at once (the
format of ``lab tournament --csv``), so a run cut off keeps every
finished game and the same call with ``resume=True`` plays only the missing
seeds. The players are deterministic: a seed gives the same game as
``lab tournament`` with the same options (seed, score, largest tile
and moves; only the times differ).

Needs the ``ray`` extra (``pip install "py2048[ray]"``). Without an
``address``, Ray's own choice: the cluster this machine runs (``ray start``,
or ``RAY_ADDRESS``) if there is one, else a local instance on every core;
with one (``"auto"``, or ``"HOST:6379"`` of a head started by ``ray start
--head``) the games run on that cluster, where every node needs py2048
installed. A weights file travels to the workers through Ray's object store
and is written once per node; endgame tables are read, or built, once per
node in ``tables`` (default: each node's cache folder). See docs/python.md.

>>> from py2048.distributed import Player, tournament, compare  # doctest: +SKIP
>>> t = tournament(Player("fast"), games=20, seed_start=1, csv="fast.csv")  # doctest: +SKIP
>>> c = compare(Player("fast"), Player("fast", depth_bonus=1), games=200,
...             seed_start=1501, tile=4096, sprt=(0.0, 0.05))  # doctest: +SKIP
>>> print(c.report)  # doctest: +SKIP
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from py2048 import _native
from py2048.board import whole
from py2048.distributed._cluster import (
    _check_address,
    _LostWorkers,
    _prepare_tables,
    _ray,
    _remote,
    _session,
    _ship,
)
from py2048.distributed._player import Player

# The package is three modules along its seams: the player (`_player`), the
# Ray plumbing (`_cluster`: the address check, the session, the game task,
# the weights and tables on the nodes) and, here, the run and what it gives
# back, which is all that users name.
__all__ = [
    "Comparison",
    "Player",
    "Record",
    "Tournament",
    "compare",
    "tournament",
]

#: The tiles a tournament's summary counts (``lab tournament``'s).
MILESTONES: tuple[int, ...] = tuple(_native.MILESTONES)

#: Seconds the driver waits for a cluster's address to answer before it
#: gives up: Ray's own loop retries an address where nothing answers for
#: many minutes.
CONNECT_TIMEOUT = 5.0


class Record(NamedTuple):
    """One finished game, as the records file keeps it."""

    seed: int
    score: int
    max_tile: int
    moves: int
    #: The game's wall-clock time in milliseconds.
    millis: float
    #: The median time per move in whole microseconds (``None`` in records
    #: made before it was measured).
    median_decision_micros: int | None
    #: The 99th percentile of the time per move, in microseconds.
    p99_decision_micros: int | None


@dataclass(frozen=True)
class Tournament:
    """A finished (or resumed) tournament's games."""

    player: Player
    #: Every game of the run's seeds, by seed (earlier ones included).
    records: list[Record]
    #: How many games this call played (the rest were in the file).
    played: int
    #: Seconds this call took.
    seconds: float

    def stats(self) -> dict[str, Any]:
        """The games' statistics (the records crate's, as ``lab
        tournament`` reports them): ``games``, ``mean_score``,
        ``median_score``, ``percentiles`` (min, 10%, 25%, 50%, 75%, 90%, max;
        nearest rank), ``moves``, ``millis`` and ``reached`` (for each of
        :data:`MILESTONES`, the games that reached it)."""
        return _native.summary([tuple(r) for r in self.records], list(MILESTONES))

    def reach_rate(self, tile: int) -> float:
        """The share of games that reached ``tile`` (a power of two)."""
        tile = whole(tile, "tile", minimum=2, maximum=2**31)
        if tile & (tile - 1):
            raise ValueError(f"tile must be a power of two, got {tile}")
        s = _native.summary([tuple(r) for r in self.records], [tile])
        return s["reached"][tile] / max(1, s["games"])

    def summary(self) -> str:
        """The games' reach rates and scores, one line each."""
        s = self.stats()
        n = s["games"]
        lines = [f"player  {self.player.options()}", f"games   {n}"]
        for tile in MILESTONES:
            k = s["reached"][tile]
            lines.append(f"reached {tile:<6} {100 * k / max(1, n):5.1f}% ({k})")
        if n:
            lines.append(f"score median {s['median_score']:.0f}, mean {s['mean_score']:.0f}")
        lines.append(f"played {self.played} game(s) in {self.seconds:.1f} s")
        return "\n".join(lines)


@dataclass(frozen=True)
class Comparison:
    """A finished comparison: the paired games up to where it stopped."""

    a: Player
    b: Player
    #: The tile whose reach rate the tests judge.
    tile: int
    #: Player A's and B's games of the seeds counted (in order, from the
    #: first seed, stopped where an SPRT decided).
    records_a: list[Record]
    records_b: list[Record]
    #: The figures: ``games``, ``reached_a``, ``reached_b``, ``only_a``,
    #: ``only_b``, ``difference`` (B - A, a share), ``interval`` (95%),
    #: ``mcnemar_p``, ``b_higher``, ``b_lower``, ``median_score_difference``,
    #: ``sign_p``; with an SPRT also ``verdict`` (``"H0"``, ``"H1"`` or
    #: ``None``), ``llr``, ``bounds`` and ``stopping_point``.
    stats: dict[str, Any]
    #: The text ``lab compare`` prints for the same games.
    report: str
    #: How many games this call played (both sides).
    played: int
    seconds: float = field(default=0.0)

    @property
    def verdict(self) -> str | None:
        """The SPRT's verdict: ``"H0"``, ``"H1"``, or ``None`` (undecided or
        no SPRT)."""
        return self.stats.get("verdict")


class _RecordsFile:
    """A records file, a line appended at once as each game ends, opened
    by the records crate as ``lab tournament --csv`` opens one: a file
    that holds games is refused unless ``resume`` (keep them; the file must
    name the same settings) or ``force`` (write over it); a resumed file's
    last line cut short (a run killed while writing it) is dropped with a
    warning, and its game is played again."""

    def __init__(
        self, path: str | os.PathLike[str], resume: bool, force: bool, settings: str
    ) -> None:
        self._log = _native.RecordsLog(os.fspath(path), resume, force, settings)
        self.earlier = [Record(*r) for r in self._log.earlier]
        if self._log.dropped is not None:
            # Where the user called tournament() or compare().
            warnings.warn(self._log.dropped, stacklevel=3)

    def append(self, record: Record) -> None:
        self._log.append(tuple(record))

    def close(self) -> None:
        self._log.close()


class _Progress:
    """A progress line on stderr: games done and the running rates."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled = total, enabled
        self.tty = sys.stderr.isatty()
        self.start = time.monotonic()
        self.last = 0.0
        self.done = 0

    def update(self, text: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        now = time.monotonic()
        elapsed = now - self.start
        rate = 60 * self.done / elapsed if elapsed > 0 else 0.0
        line = f"{self.done}/{self.total} games ({rate:.1f}/min) · {text}"
        if self.tty:
            sys.stderr.write(f"\r\x1b[2K{line}")
            sys.stderr.flush()
        elif now - self.last >= 10 or self.done == self.total:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
            self.last = now

    def finish(self) -> None:
        if self.enabled and self.tty and self.done:
            sys.stderr.write("\n")


def _rates(records: Sequence[Record], count: int = 3) -> str:
    """The reach rates of the ``count`` largest milestones reached."""
    if not records:
        return "no game yet"
    n = len(records)
    best = max((r.max_tile for r in records), default=0)
    tiles = [t for t in MILESTONES if t <= max(best, 2048)][-count:]
    return ", ".join(f"{t} {100 * sum(r.max_tile >= t for r in records) / n:.1f}%" for t in tiles)


def _check_player(player: Player) -> Player:
    """Builds the player on the driver (without its endgame tables, which
    are the nodes' business), so that bad settings or a missing network
    fail before the first game; the player with its thread count made
    explicit, so that every node plays with the count its games reserve."""
    if not isinstance(player, Player):
        raise TypeError(f"a player is a py2048.distributed.Player, not {type(player).__name__}")
    threads = int(player._native(player.weights_path(), tables=False).threads)
    return player.with_settings(threads=threads)


def tournament(
    player: Player,
    games: int,
    seed_start: int = 1,
    *,
    csv: str | os.PathLike[str] | None = None,
    resume: bool = False,
    force: bool = False,
    max_moves: int | None = None,
    address: str | None = None,
    progress: bool = True,
    in_flight: int | None = None,
) -> Tournament:
    """Plays the seeds ``seed_start`` .. ``seed_start + games - 1`` on Ray.

    Args:
        csv: the records file; each game is appended as it ends. One that
            already holds games is refused (``FileExistsError``) unless
            ``resume`` or ``force``.
        resume: read ``csv`` first and play only the seeds it lacks (it must
            have been made with the same settings; the network is named by
            its checksum, wherever its file is). A last line cut short (a
            run killed while writing it) is dropped with a warning and its
            game played again.
        force: write over ``csv`` even if it holds games.
        max_moves: end each game after this many moves.
        address: the Ray cluster (default: the session already initialised,
            else Ray's choice: this machine's cluster if it runs one, else a
            new local instance). One where no Ray head answers is a
            ``ConnectionError`` within :data:`CONNECT_TIMEOUT` seconds.
        progress: a progress line on stderr.
        in_flight: the most games submitted at once (default: twice the
            cluster's CPUs).

    A ``KeyboardInterrupt`` cancels the games in flight; the file keeps
    every finished one.
    """
    _ray()  # without Ray, fail before any file is touched
    games = whole(games, "games", minimum=1)
    seed_start = whole(seed_start, "seed_start")
    _check_address(address, CONNECT_TIMEOUT)
    if max_moves is not None:
        max_moves = whole(max_moves, "max_moves", minimum=1)
    if in_flight is not None:
        in_flight = whole(in_flight, "in_flight", minimum=1)
    resolved = _check_player(player)
    seeds = [seed_start + i for i in range(games)]
    if seeds[-1] >= 2**64:
        raise ValueError("the last seed must be below 2**64")
    _check_resume(resume, force)
    log = None
    if csv is not None:
        log = _RecordsFile(csv, resume, force, player.settings_line(max_moves))
    start = time.monotonic()
    try:
        done = {} if log is None else {r.seed: r for r in log.earlier}
        todo = [(0, s) for s in seeds if s not in done]
        new = _run([resolved], [log], todo, max_moves, address, progress, in_flight, None)
        done.update(new[0])
    finally:
        if log is not None:
            log.close()
    records = [done[s] for s in seeds if s in done]
    return Tournament(player, records, len(new[0]), time.monotonic() - start)


def compare(
    a: Player,
    b: Player,
    games: int,
    seed_start: int = 1,
    *,
    tile: int = 32768,
    sprt: tuple[float, float] | None = None,
    alpha: float = 0.05,
    beta: float = 0.05,
    csv_a: str | os.PathLike[str] | None = None,
    csv_b: str | os.PathLike[str] | None = None,
    resume: bool = False,
    force: bool = False,
    address: str | None = None,
    progress: bool = True,
    in_flight: int | None = None,
) -> Comparison:
    """Two players on the same seeds, on Ray, with ``lab compare``'s
    paired statistics (exact McNemar test on reaching ``tile``, sign test on
    the scores) and, with ``sprt=(delta0, delta1)``, a sequential test of
    "B reaches ``tile`` ``delta0`` more often than A" against ``delta1``
    (shares, so 0.05 is 5 points) that stops the run as soon as it decides,
    with error rates ``alpha`` and ``beta``. The figures count the seeds in
    order from the first, up to where the test decided. ``csv_a`` and
    ``csv_b`` keep each side's games, with ``resume`` and ``force`` as for
    :func:`tournament`.
    """
    _ray()  # without Ray, fail before any file is touched
    games = whole(games, "games", minimum=1)
    seed_start = whole(seed_start, "seed_start")
    _check_address(address, CONNECT_TIMEOUT)
    if in_flight is not None:
        in_flight = whole(in_flight, "in_flight", minimum=1)
    tile = whole(tile, "tile", minimum=2, maximum=2**31)
    if tile & (tile - 1):
        raise ValueError(f"tile must be a power of two, got {tile}")
    test = None
    if sprt is not None:
        if len(sprt) != 2:
            raise ValueError(f"sprt is (delta0, delta1), got {sprt!r}")
        d0, d1 = sprt
        test = (float(d0), float(d1), float(alpha), float(beta))
        _native.check_sprt(test)
    if csv_a is not None and csv_b is not None and _same_file(csv_a, csv_b):
        raise ValueError("csv_a and csv_b name the same file: each player needs its own")
    _check_resume(resume, force)
    resolved = [_check_player(a), _check_player(b)]
    seeds = [seed_start + i for i in range(games)]
    if seeds[-1] >= 2**64:
        raise ValueError("the last seed must be below 2**64")
    logs: list[_RecordsFile | None] = []
    start = time.monotonic()
    try:
        for p, path in ((a, csv_a), (b, csv_b)):
            log = None if path is None else _RecordsFile(path, resume, force, p.settings_line(None))
            logs.append(log)
        known = [{r.seed: r for r in log.earlier} if log else {} for log in logs]
        todo = [(side, s) for s in seeds for side in (0, 1) if s not in known[side]]
        stop = _SprtStop(seeds, known, tile, test) if test else None
        played = 0
        if stop is None or not stop.decided():
            new = _run(resolved, logs, todo, None, address, progress, in_flight, stop)
            for side in (0, 1):
                known[side].update(new[side])
            played = len(new[0]) + len(new[1])
    finally:
        for log in logs:
            if log is not None:
                log.close()
    prefix = _prefix(seeds, known)
    if test is not None:
        stats = _native.paired([tuple(x) for x, _ in prefix], [tuple(y) for _, y in prefix], tile, test)
        if stats["stopping_point"] is not None:
            prefix = prefix[: stats["stopping_point"]]
    ra = [x for x, _ in prefix]
    rb = [y for _, y in prefix]
    stats = _native.paired([tuple(r) for r in ra], [tuple(r) for r in rb], tile, test)
    report = _native.compare_report(
        a.options(), b.options(), seed_start, tile, [tuple(r) for r in ra], [tuple(r) for r in rb], test
    )
    return Comparison(a, b, tile, ra, rb, stats, report, played, time.monotonic() - start)


def _check_resume(resume: bool, force: bool) -> None:
    if resume and force:
        raise ValueError(
            "resume=True keeps a records file's games and force=True writes over them: not both"
        )


def _same_file(x: str | os.PathLike[str], y: str | os.PathLike[str]) -> bool:
    return os.path.realpath(x) == os.path.realpath(y)


def _prefix(seeds: Sequence[int], known: list[dict[int, Record]]) -> list[tuple[Record, Record]]:
    """The seeds' pairs from the first seed on, up to the first seed either
    side lacks: what the statistics read, so that the verdict does not
    depend on which games ended first."""
    out = []
    for s in seeds:
        if s not in known[0] or s not in known[1]:
            break
        out.append((known[0][s], known[1][s]))
    return out


class _SprtStop:
    """Whether the SPRT has decided on some prefix of the seeds played so
    far: asked again only when the run of seeds both sides finished, from
    the first, has grown."""

    def __init__(
        self,
        seeds: Sequence[int],
        known: list[dict[int, Record]],
        tile: int,
        test: tuple[float, float, float, float],
    ) -> None:
        self.seeds, self.tile, self.test = seeds, tile, test
        self.known = [dict(k) for k in known]
        self.pairs: tuple[list[tuple], list[tuple]] = ([], [])

    def add(self, side: int, record: Record) -> None:
        self.known[side][record.seed] = record

    def decided(self) -> bool:
        grown = False
        while len(self.pairs[0]) < len(self.seeds):
            seed = self.seeds[len(self.pairs[0])]
            if seed not in self.known[0] or seed not in self.known[1]:
                break
            self.pairs[0].append(tuple(self.known[0][seed]))
            self.pairs[1].append(tuple(self.known[1][seed]))
            grown = True
        if not grown:
            return False
        stats = _native.paired(self.pairs[0], self.pairs[1], self.tile, self.test)
        return stats["stopping_point"] is not None


def _run(
    players: list[Player],
    logs: list[_RecordsFile | None],
    todo: list[tuple[int, int]],
    max_moves: int | None,
    address: str | None,
    progress: bool,
    in_flight: int | None,
    stop: _SprtStop | None,
) -> list[dict[int, Record]]:
    """Plays ``todo`` (side, seed) on Ray, in order, at most ``in_flight``
    at once; each finished game goes to its side's file at once. Each game
    reserves its player's search threads as CPUs, at most a node's."""
    results: list[dict[int, Record]] = [{} for _ in players]
    if not todo:
        return results
    with _session(address) as ray, _LostWorkers.reported():
        largest = max(
            (n["Resources"].get("CPU", 0) for n in ray.nodes() if n.get("Alive")), default=0
        )
        if largest < 1:
            raise ValueError("no node of the Ray cluster offers a CPU to play on")
        cpus = [min(int(p.threads or 1), int(largest)) for p in players]
        shipped = [_ship(ray, p.weights_path()) for p in players]
        _prepare_tables(ray, players)
        limit = in_flight or max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
        play = _remote()
        bar = _Progress(len(todo), progress)
        pending: dict[Any, int] = {}
        queue = list(reversed(todo))

        def cancel_pending() -> None:
            # Forced: a game runs in Rust without the GIL, so a polite
            # cancel would let it play to its end on a CPU the caller has
            # given back.
            for task in pending:
                ray.cancel(task, force=True)
            pending.clear()

        try:
            while queue or pending:
                while queue and len(pending) < limit:
                    side, seed = queue.pop()
                    task = play.options(num_cpus=cpus[side]).remote(
                        players[side], shipped[side], seed, max_moves
                    )
                    pending[task] = side
                ready, _ = ray.wait(list(pending), num_returns=1)
                for task in ready:
                    side = pending.pop(task)
                    record = Record(*ray.get(task))
                    results[side][record.seed] = record
                    if logs[side] is not None:
                        logs[side].append(record)
                    if bar.enabled:
                        if len(results) == 1:
                            bar.update(_rates(list(results[0].values())))
                        else:
                            a, b = (list(r.values()) for r in results)
                            bar.update(f"A: {_rates(a, 2)} | B: {_rates(b, 2)}")
                    if stop is not None:
                        stop.add(side, record)
                        if stop.decided():
                            queue.clear()
                            cancel_pending()
                            break
        except BaseException:
            cancel_pending()
            raise
        finally:
            bar.finish()
    return results
