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

import contextlib
import functools
import hashlib
import math
import os
import re
import socket
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from py2048 import _native
from py2048.board import whole
from py2048.solver import PRESETS, shipped_weights

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
class Player:
    """Who plays: the options of ``lab tournament`` as fields.

    Args:
        preset: one of :data:`py2048.PRESETS`.
        time_ms, depth, threads, prob_cutoff, depth_bonus, heuristic: the
            search settings over the preset's (``--time-ms`` and so on).
        weights: a learned preset's weights file on the driver (default: the
            shipped one); it reaches every node through Ray's object store.
        endgame: play the endgame tables' move on late-game chains (the
            corner preset's corner tables for it, which it needs).
        tables: the tables' folder on each node (default: its cache
            folder); ``tables_max_states`` only the tables that small.
        size, four_probability: the rules (4x4, a 4 one spawn in ten).

    A player is plain data: it pickles, and each worker process builds the
    native player once and keeps it for every game it plays.
    """

    preset: str = _native.DEFAULT_PRESET
    time_ms: int | None = None
    depth: int | None = None
    threads: int | None = None
    weights: str | None = None
    endgame: bool = False
    tables: str | None = None
    tables_max_states: int | None = None
    prob_cutoff: float | None = None
    depth_bonus: int | None = None
    heuristic: float | None = None
    size: int = 4
    four_probability: float = 0.1

    def __post_init__(self) -> None:
        if not isinstance(self.preset, str):
            raise TypeError(f"preset must be a str, got {type(self.preset).__name__}")
        try:
            object.__setattr__(self, "preset", _native.preset_name(self.preset))
        except ValueError:
            raise ValueError(
                f"preset must be one of {', '.join(PRESETS)}, got {self.preset!r}"
            ) from None
        ints = {
            "time_ms": (1, 2**64 - 1),
            "depth": (1, 2**32 - 1),
            "threads": (1, _native.MAX_THREADS),
            "tables_max_states": (1, 2**64 - 1),
            "depth_bonus": (-12, 12),
            "size": (2, 8),
        }
        for name, (low, high) in ints.items():
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, whole(value, name, minimum=low, maximum=high))
        for name in ("prob_cutoff", "heuristic", "four_probability"):
            value = getattr(self, name)
            if value is not None:
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise TypeError(f"{name} must be a number, got {type(value).__name__}")
                if not math.isfinite(value) or value < 0:
                    raise ValueError(f"{name} must be a finite number of 0 or more, got {value}")
                object.__setattr__(self, name, float(value))
        if self.prob_cutoff is not None and self.prob_cutoff > 1:
            raise ValueError(f"prob_cutoff must lie in 0 to 1, got {self.prob_cutoff}")
        if self.weights is not None:
            object.__setattr__(self, "weights", os.fspath(self.weights))
        if self.tables is not None:
            object.__setattr__(self, "tables", os.fspath(self.tables))
        if not self.endgame and (self.tables is not None or self.tables_max_states is not None):
            raise ValueError("tables= and tables_max_states= need endgame=True")
        if _native.uses_corner_tables(self.preset) and not self.endgame:
            raise ValueError(
                f"the {self.preset} preset plays by the corner tables: endgame=True"
            )

    @property
    def tables_preset(self) -> str:
        """The preset whose tables this player plays by: its own for a
        corner preset (Rust says which), the chains' (the heuristic's) for
        every other."""
        return self.preset if _native.uses_corner_tables(self.preset) else "heuristic"

    @property
    def learned(self) -> bool:
        """Whether the preset searches with the learned network."""
        return bool(_native.is_learned(self.preset))

    def weights_path(self) -> str | None:
        """The weights file a learned player loads on the driver."""
        if not self.learned:
            return None
        return shipped_weights() if self.weights is None else self.weights

    def options(self) -> str:
        """The options of ``lab tournament`` that give this player."""
        parts = [f"--preset {self.preset}"]
        for name in ("depth", "time_ms", "threads", "prob_cutoff", "depth_bonus", "heuristic"):
            value = getattr(self, name)
            if value is not None:
                parts.append(f"--{name.replace('_', '-')} {_number(value, name)}")
        if self.weights is not None:
            parts.append(f"--weights {self.weights}")
        if self.endgame:
            parts.append("--endgame")
            if self.tables is not None:
                parts.append(f"--tables {self.tables}")
            if self.tables_max_states is not None:
                parts.append(f"--tables-max-states {self.tables_max_states}")
        if self.size != 4:
            parts.append(f"--size {self.size}")
        if self.four_probability != 0.1:
            parts.append(f"--four-probability {_number(self.four_probability, 'four_probability')}")
        return " ".join(parts)

    def settings_line(self, max_moves: int | None) -> str:
        """The settings that decide this player's games, as ``lab
        tournament`` names them in a records file: a file one of them wrote
        resumes in the other."""
        return _native.settings_line(
            self.preset,
            time_ms=self.time_ms,
            depth=self.depth,
            threads=self.threads,
            weights=self.weights_path(),
            endgame=self.endgame,
            tables_max_states=self.tables_max_states,
            prob_cutoff=self.prob_cutoff,
            depth_bonus=self.depth_bonus,
            heuristic=self.heuristic,
            size=self.size,
            four_probability=self.four_probability,
            max_moves=max_moves,
        )

    def _native(self, weights: str | None, tables: bool = True) -> Any:
        """The native player, with the network from ``weights`` and, with
        ``tables``, its endgame tables."""
        if self.endgame:
            _native.check_endgame_rules(self.size, self.four_probability)
        tables_of = None
        if self.endgame and tables:
            tables_of = _tables(self.tables, self.tables_max_states, self.tables_preset)
        return _native.GamePlayer(
            self.preset,
            self.time_ms,
            self.depth,
            self.threads,
            weights,
            tables_of,
            self.prob_cutoff,
            self.depth_bonus,
            self.heuristic,
            self.size,
            self.four_probability,
        )


def _number(value: float | int, name: str) -> str:
    """A setting as the lab's records settings line writes it: Rust's ``Display``
    of the value the engine uses (an ``f32`` for the search settings, an
    ``f64`` for the rules): the shortest digits that give it back, never an
    exponent (``0.00002``, not ``2e-05``)."""
    if isinstance(value, int):
        return str(value)
    kind = np.float64 if name == "four_probability" else np.float32
    return np.format_float_positional(kind(value), trim="-")


@functools.lru_cache(maxsize=2)
def _tables(path: str | None, max_states: int | None, preset: str) -> Any:
    """A process's endgame tables of a preset, read (or built) once."""
    return _native.EndgameTables(path, max_states, preset)


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


def _ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise ImportError(
            'py2048.distributed needs Ray: pip install "py2048[ray]"'
        ) from e
    return ray


#: Seconds the driver waits for a cluster's address to answer before it
#: gives up: Ray's own loop retries an address where nothing answers for
#: many minutes.
CONNECT_TIMEOUT = 5.0

# The opening of an HTTP/2 connection (RFC 9113: the client preface, then an
# empty SETTINGS frame). A Ray head's port speaks gRPC, which answers with a
# SETTINGS frame of its own (frame type 4, the fourth byte of its header).
_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])

# Every node's ports speak gRPC, a raylet's too: what tells the head is
# that its GCS knows this call (the one a joining node makes first). Any
# other gRPC server answers UNIMPLEMENTED at once, where Ray's own client
# would retry for many seconds and then blame the auth token.
_GCS_PROBE = "/ray.rpc.NodeInfoGcsService/GetClusterId"
_GRPC_UNIMPLEMENTED = 12


def _frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    """One HTTP/2 frame (RFC 9113, section 4.1)."""
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def _hpack_literal(name: str, value: str) -> bytes:
    """A header "without indexing", its strings as they are (RFC 7541,
    section 6.2.2); both shorter than 127 bytes."""
    n, v = name.encode(), value.encode()
    return bytes([0, len(n)]) + n + bytes([len(v)]) + v


def _hpack_int(block: bytes, at: int, bits: int) -> tuple[int, int]:
    """An integer of an ``bits``-bit prefix at ``block[at]`` (RFC 7541,
    section 5.1) and where the next field starts."""
    mask = (1 << bits) - 1
    value, at = block[at] & mask, at + 1
    shift = 0
    if value == mask:
        while True:
            byte, at = block[at], at + 1
            value += (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
    return value, at


def _hpack_string(block: bytes, at: int) -> tuple[str | None, int]:
    """A string literal, or ``None`` when it is Huffman-coded (gRPC's C++
    servers, Ray's, send their header strings as they are)."""
    huffman = bool(block[at] & 0x80)
    length, at = _hpack_int(block, at, 7)
    raw = block[at : at + length]
    return (None if huffman else raw.decode("latin-1")), at + length


def _hpack_headers(block: bytes, table: list[tuple[str | None, str | None]]) -> dict[str, str]:
    """The headers of an HPACK block whose names and values this reader can
    read (only what a status needs: no Huffman, no static table's names);
    ``table`` is the connection's dynamic table, updated."""
    headers: dict[str, str] = {}
    at = 0
    while at < len(block):
        byte = block[at]
        if byte & 0x80:  # indexed: a static entry (no gRPC header) or a dynamic one
            index, at = _hpack_int(block, at, 7)
            name, value = table[index - 62] if 62 <= index < 62 + len(table) else (None, None)
        elif byte & 0xE0 == 0x20:  # a dynamic table size update
            _, at = _hpack_int(block, at, 5)
            continue
        else:
            indexing = byte & 0xC0 == 0x40
            index, at = _hpack_int(block, at, 6 if indexing else 4)
            if index == 0:
                name, at = _hpack_string(block, at)
            else:
                name = table[index - 62][0] if 62 <= index < 62 + len(table) else None
            value, at = _hpack_string(block, at)
            if indexing:
                table.insert(0, (name, value))
        if name is not None and value is not None:
            headers[name] = value
    return headers


def _gcs_answers(conn: socket.socket, authority: str) -> bool:
    """Whether the gRPC server on ``conn`` (its SETTINGS read) is a Ray
    head's GCS: ``False`` only when it says it has no such call; a reply,
    a refusal (an auth token it wants) or silence are the GCS's or Ray's
    own to explain."""
    headers = b"".join(
        _hpack_literal(k, v) for k, v in [
            (":method", "POST"), (":scheme", "http"), (":path", _GCS_PROBE),
            (":authority", authority), ("content-type", "application/grpc"), ("te", "trailers"),
        ]
    )
    # The SETTINGS acknowledged, then one call: an empty request message.
    conn.sendall(
        _frame(4, 1, 0) + _frame(1, 4, 1, headers) + _frame(0, 1, 1, bytes(5))
    )
    table: list[tuple[str | None, str | None]] = []
    pending = b""
    block = b""
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return True
        pending += chunk
        while len(pending) >= 9:
            length = int.from_bytes(pending[:3], "big")
            if len(pending) < 9 + length:
                break
            kind, flags = pending[3], pending[4]
            stream = int.from_bytes(pending[5:9], "big") & 0x7FFF_FFFF
            payload, pending = pending[9 : 9 + length], pending[9 + length :]
            if stream != 1:
                continue
            if kind == 0:  # a reply's message: the call exists
                return True
            if kind == 3:  # the stream reset: no status to read
                return True
            if kind in (1, 9):  # HEADERS, CONTINUATION
                if kind == 1:
                    pad = payload[0] if flags & 0x8 else 0
                    skip = (1 if flags & 0x8 else 0) + (5 if flags & 0x20 else 0)
                    payload = payload[skip : len(payload) - pad]
                block += payload
                if not flags & 0x4:  # END_HEADERS not yet
                    continue
                status = _hpack_headers(block, table).get("grpc-status")
                block = b""
                if status is not None:
                    return status != str(_GRPC_UNIMPLEMENTED)


def _check_address(address: str | None) -> None:
    """A ``ConnectionError`` naming the address, within seconds, when the
    cluster a call would join (``address``, or ``RAY_ADDRESS`` where Ray
    reads it) does not answer as a Ray head does; nothing when this process
    is connected already or Ray finds or starts a cluster itself."""
    if not (address is None or isinstance(address, str)):
        raise TypeError(f"address must be a str, got {type(address).__name__}")
    if _ray().is_initialized():
        return
    target, named = address, f"address={address!r}"
    if address in (None, "auto") and os.environ.get("RAY_ADDRESS"):
        target = os.environ["RAY_ADDRESS"]
        named = f"RAY_ADDRESS={target!r}"
    if target is None or target in ("auto", "local"):
        return
    host, colon, port = target.removeprefix("ray://").rpartition(":")
    if not colon or not host or not port.isdigit():
        return  # Ray refuses a malformed address at once, with its own message
    host, port_number = host.strip("[]"), int(port)
    reply = b""
    gcs = False
    try:
        with socket.create_connection((host, port_number), timeout=CONNECT_TIMEOUT) as conn:
            # Under TLS the first bytes are a TLS handshake's: an open port
            # is all that can be checked without Ray's certificates.
            if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
                return
            conn.settimeout(CONNECT_TIMEOUT)
            conn.sendall(_HTTP2_PREFACE)
            while len(reply) < 9:
                chunk = conn.recv(9 - len(reply))
                if not chunk:
                    break
                reply += chunk
            if len(reply) == 9 and reply[3] == 4:
                # The SETTINGS frame's payload, then the call.
                rest = int.from_bytes(reply[:3], "big")
                while rest > 0:
                    chunk = conn.recv(rest)
                    if not chunk:
                        break
                    rest -= len(chunk)
                try:
                    gcs = _gcs_answers(conn, f"{host}:{port_number}")
                except (OSError, IndexError, UnicodeError):
                    gcs = True  # no verdict: Ray's own attempt explains what goes wrong
    except socket.gaierror:
        reason = f"no host is named {host!r}"
    except ConnectionRefusedError:
        reason = f"nothing listens on port {port_number} of {host}"
    except TimeoutError:
        reason = f"no answer within {CONNECT_TIMEOUT:.0f} s"
    except OSError as e:
        reason = e.strerror or str(e)
    else:
        if len(reply) == 9 and reply[3] == 4 and gcs:
            return
        what = "a gRPC server answers there" if len(reply) == 9 and reply[3] == 4 else (
            "something answers there"
        )
        reason = (
            f"{what}, but not a Ray head (the address is the head's `ray start --head"
            " --port`, 6379 unless given; a node's other ports and the dashboard's 8265"
            " are not it)"
        )
    raise ConnectionError(f"cannot reach a Ray cluster at {named}: {reason}")


@contextlib.contextmanager
def _session(address: str | None) -> Iterator[Any]:
    """Ray, connected: to a running session as it is, else started (or
    joined at ``address``) for the call and shut down after it."""
    ray = _ray()
    if ray.is_initialized():
        yield ray
        return
    try:
        if address is None:
            ray.init(include_dashboard=False, log_to_driver=True)
        else:
            ray.init(address=address, log_to_driver=True)
    except ConnectionError as e:
        named = address if address not in (None, "auto") else os.environ.get("RAY_ADDRESS")
        if not named:
            raise  # no cluster found on this machine: Ray's message says so
        # A head that answers (_check_address saw it) but refuses the
        # driver asks for a token.
        raise ConnectionError(
            f"cannot join the Ray cluster at {named}: {e} (a head started with"
            " RAY_AUTH_MODE=token admits only drivers that say RAY_AUTH_MODE=token and hold"
            " its token)"
        ) from e
    try:
        yield ray
    finally:
        ray.shutdown()


class _LostWorkers:
    """One line on stderr for each worker process or node that Ray reports
    lost during a run, in place of Ray's reports: a killed node makes each
    of its agents send every driver the raylet's last 20 log lines (dozens
    of lines), a killed worker two long lines. Ray plays the lost games
    again (``max_retries``), and the line says so.

    Ray has no public hook for these messages: the filter wraps the function
    its listener thread prints them with, and lets every other message
    through, and every message while no run is on. A Ray without that
    function prints its own reports."""

    _lock = threading.Lock()
    _runs = 0
    _seen: set[str] = set()
    _installed = False

    # "[2026-11-27 21:14:34,302 I 15231 15231] (raylet) ...": the lost
    # raylet's process id, in the log lines of Ray's report.
    _NODE = re.compile(
        r"Raylet is terminated\. Termination is unexpected\."
        r"(?:.*?\[[^\]]* [A-Z] (\d+) \d+\] \(raylet\))?",
        re.S,
    )
    _WORKER = re.compile(
        r"A worker died or was killed while executing a task by an unexpected system error\..*?"
        r"Worker IP address: (\S+) .*?Worker PID: (\d+)", re.S
    )
    # What Ray says besides, of a game or a table build it plays again.
    _RETRIED = re.compile(
        r"Task (?:_play|_open_tables) failed\. There are \d+ retries remaining,"
        r" so the task will be retried\."
    )

    @classmethod
    @contextlib.contextmanager
    def reported(cls) -> Iterator[None]:
        with cls._lock:
            cls._install()
            cls._runs += 1
        try:
            yield
        finally:
            with cls._lock:
                cls._runs -= 1
                if not cls._runs:
                    cls._seen.clear()

    @classmethod
    def _install(cls) -> None:
        if cls._installed:
            return
        try:
            from ray._private import worker as ray_worker
        except ImportError:
            return
        original = getattr(ray_worker, "print_to_stdstream", None)
        if original is None:
            return

        def print_to_stdstream(data: Any, *args: Any, **kwargs: Any) -> Any:
            if not cls._swallowed(data):
                return original(data, *args, **kwargs)
            return None

        ray_worker.print_to_stdstream = print_to_stdstream
        cls._installed = True

    @classmethod
    def _swallowed(cls, data: Any) -> bool:
        """Whether ``data`` is one of Ray's reports of a lost worker or node
        during a run (then the line is written here, once for each)."""
        if not cls._runs or not isinstance(data, dict) or data.get("pid") != "raylet":
            return False
        text = "".join(str(line) for line in data.get("lines") or [])
        if cls._RETRIED.match(text):
            return True
        if node := cls._NODE.match(text):
            key = f"node {node.group(1) or text}"
            line = (
                "lost a Ray node (its raylet ended unexpectedly: killed, out of memory or"
                " crashed); the games it was playing are played again on the others"
            )
        elif worker := cls._WORKER.match(text):
            key = f"worker {worker.group(1)} {worker.group(2)}"
            line = (
                f"lost a Ray worker (process {worker.group(2)} on {worker.group(1)}: killed, out"
                " of memory or crashed); its game is played again"
            )
        else:
            return False
        with cls._lock:
            if key in cls._seen:
                return True
            cls._seen.add(key)
        start = "\r\x1b[2K" if sys.stderr.isatty() else ""
        sys.stderr.write(f"{start}py2048: {line}\n")
        sys.stderr.flush()
        return True


class _Shipped(NamedTuple):
    """A weights file on its way to the workers: its digest, and its bytes
    in the object store (inside a list, so that Ray hands the task the
    reference, not 50 MB per game)."""

    digest: str
    name: str
    ref: list[Any]


def _ship(ray: Any, path: str | None) -> _Shipped | None:
    if path is None:
        return None
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"the learned network's weights file {path} does not exist: pass weights= an existing"
            " weights file (lab export-weights writes one)"
        )
    data = Path(path).read_bytes()
    return _Shipped(hashlib.sha256(data).hexdigest(), Path(path).name, [ray.put(data)])


def _local_weights(shipped: _Shipped | None) -> str | None:
    """The shipped weights' path on this node: written once per node (by
    whichever worker comes first; a temporary name, then a rename) into a
    folder of this user's alone, and checked against the digest whenever a
    process takes it up."""
    if shipped is None:
        return None
    folder = Path(tempfile.gettempdir()) / f"py2048-weights-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    if folder.stat().st_uid != os.getuid() or folder.stat().st_mode & 0o077:
        raise PermissionError(f"{folder} is not this user's alone: remove it")
    path = folder / f"{shipped.digest[:32]}-{shipped.name}"
    if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == shipped.digest:
        return str(path)
    data = _ray().get(shipped.ref[0])
    if hashlib.sha256(data).hexdigest() != shipped.digest:
        raise RuntimeError("the weights file changed on its way to this node")
    part = folder / f".{path.name}.{os.getpid()}.part"
    part.write_bytes(data)
    os.replace(part, path)
    return str(path)


#: A worker process's native players, by player and weights digest: each
#: is built once (its network loaded, its tables read) for every game the
#: process plays; two at most (a comparison's two sides).
_PLAYERS: dict[tuple[Player, str | None], Any] = {}


def _play(player: Player, shipped: _Shipped | None, seed: int, max_moves: int | None) -> tuple:
    """One game on a worker (a Ray task)."""
    key = (player, None if shipped is None else shipped.digest)
    native = _PLAYERS.get(key)
    if native is None:
        if len(_PLAYERS) >= 2:
            _PLAYERS.clear()
        native = _PLAYERS[key] = player._native(_local_weights(shipped))
    return native.play(seed, max_moves)


@functools.lru_cache(maxsize=1)
def _remote() -> Any:
    # Retried on a worker or node that dies; a Python error (bad settings
    # on that node) is not retried.
    return _ray().remote(max_retries=5, retry_exceptions=False)(_play)


def _open_tables(path: str | None, max_states: int | None, preset: str) -> int:
    """Reads, or builds, a preset's endgame tables in this node's folder (a
    Ray task); their count."""
    return int(_native.EndgameTables(path, max_states, preset).count)


def _prepare_tables(ray: Any, players: list[Player]) -> None:
    """Has each node's tables built before any game starts, by one task
    pinned to each node: otherwise every worker process of a node would find
    them missing at once and build them side by side (a minute and 1.2 GB
    each)."""
    wanted = {(p.tables, p.tables_max_states, p.tables_preset) for p in players if p.endgame}
    if not wanted:
        return
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    build = ray.remote(max_retries=2)(_open_tables)
    # A node without CPUs plays no game, and a task pinned there would wait
    # for ever.
    nodes = [
        n["NodeID"] for n in ray.nodes() if n.get("Alive") and n["Resources"].get("CPU", 0) >= 1
    ]
    tasks = [
        build.options(
            num_cpus=1, scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)
        ).remote(path, max_states, preset)
        for node in nodes
        for path, max_states, preset in wanted
    ]
    ray.get(tasks)


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
    return dataclasses.replace(player, threads=threads)


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
    _check_address(address)
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
    _check_address(address)
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
