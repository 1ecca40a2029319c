"""py2048.distributed against a real Ray cluster: a head and a worker node,
one CPU each, started with `ray start` on this machine; the records equal
`lab tournament`'s and `compare`'s for the same seeds, a worker or a
node killed mid-run loses no game and is one line of output, a resumed run
plays only the missing seeds. docs/python.md's multi-node commands run as
written on a second cluster of their own (token authentication), and a
wrong address fails within seconds.

Needs the `ray` extra (CI installs it: ci-requirements.txt) and the
lab binary (PY2048_CLI, which ci.sh sets; else target/debug or
target/release of this checkout). Outside CI a missing one skips."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import py2048
from py2048 import _native

CI = os.environ.get("PY2048_CI") == "1"

if CI:
    import ray
else:
    ray = pytest.importorskip("ray", reason="py2048.distributed needs Ray: pip install \"py2048[ray]\"")

from py2048.distributed import Player, compare, tournament  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def _cli() -> str:
    given = os.environ.get("PY2048_CLI")
    candidates = [given] if given else [str(ROOT / "target" / p / "lab") for p in ("debug", "release")]
    for c in candidates:
        if c and os.path.isfile(c):
            return c
    if CI:
        pytest.fail(f"the lab binary is missing (looked for {candidates})")
    pytest.skip("no lab binary: cargo build -p lab")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ray_bin() -> str:
    return str(Path(sys.executable).parent / "ray")


def _start_node(args: list[str], env: dict[str, str], log: Path | None = None) -> subprocess.Popen:
    """A `ray start ... --block` process in a session (process group) of its
    own, so that stopping it ends every process it started and no other Ray
    of this machine."""
    out = subprocess.DEVNULL if log is None else open(log, "wb")  # noqa: SIM115
    try:
        return subprocess.Popen(
            [_ray_bin(), "start", *args, "--block", "--disable-usage-stats"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT if log is not None else subprocess.DEVNULL,
            start_new_session=True,
        )
    finally:
        if log is not None:
            out.close()


def _stop_nodes(nodes: list[subprocess.Popen]) -> None:
    # `ray start --block` takes half a minute to end on SIGTERM: three
    # seconds' grace for all of them, then each whole process group goes.
    for p in reversed(nodes):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGTERM)
    grace = time.monotonic() + 3
    for p in nodes:
        try:
            p.wait(timeout=max(0.1, grace - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def _wait_for_port(port: int, head: subprocess.Popen, deadline: float) -> None:
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline or head.poll() is not None:
                pytest.fail("the Ray head did not start")
            time.sleep(0.5)


@pytest.fixture(scope="module")
def cluster():
    """A head node and a worker node, one CPU each, each a `ray start
    --block` process of its own (stopped with it, leaving no other Ray of
    this machine touched)."""
    port = _free_port()
    # A throwaway cluster of this test's own: no token to share between the
    # nodes and the driver (set here, so that the driver reads it too, and
    # put back after).
    auth_before = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    common = ["--num-cpus", "1"]
    head = _start_node(["--head", "--port", str(port), "--include-dashboard", "false", *common], env)
    nodes = [head]
    try:
        address = f"127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        _wait_for_port(port, head, deadline)
        nodes.append(_start_node(["--address", address, *common], env))
        ray.init(address=address, log_to_driver=False)
        while len([n for n in ray.nodes() if n["Alive"]]) < 2:
            if time.monotonic() > deadline:
                pytest.fail(f"the worker node did not join: {ray.nodes()}")
            time.sleep(0.5)
        assert ray.cluster_resources().get("CPU") == 2
        yield address
    finally:
        ray.shutdown()
        _stop_nodes(nodes)
        # `ray start --head` names its cluster in this file, where a later
        # `ray.init()` on this machine would look for one to join.
        if auth_before is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = auth_before
        marker = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"
        with contextlib.suppress(OSError):
            if marker.read_text().strip().endswith(f":{port}"):
                marker.unlink()


def _cli_records(args: list[str], csv: Path) -> list[tuple[int, int, int, int]]:
    subprocess.run([_cli(), *args, "--csv", str(csv)], check=True, capture_output=True)
    return _games(csv)


def _games(csv: Path) -> list[tuple[int, int, int, int]]:
    """Each game's seed, score, largest tile and moves (the times differ
    from run to run)."""
    rows = _native.read_csv(csv.read_text())
    return sorted((r[0], r[1], r[2], r[3]) for r in rows)


FAST1 = Player("fast", depth=1)


def test_a_tournament_plays_the_clis_games_on_both_nodes(cluster, tmp_path):
    ours = tmp_path / "ray.csv"
    t = tournament(FAST1, games=8, seed_start=41, csv=ours, progress=False)
    assert [r.seed for r in t.records] == list(range(41, 49))
    assert t.played == 8
    out = subprocess.run(
        [_cli(), "tournament", "--preset", "fast", "--depth", "1", "--games", "8",
         "--seed-start", "41", "--csv", str(tmp_path / "cli.csv")],
        check=True, capture_output=True, text=True,
    )
    cli = _games(tmp_path / "cli.csv")
    assert _games(ours) == cli
    # The same statistics (one implementation, the records crate's).
    s = t.stats()
    median = re.search(r"^score median\s+(\S+)$", out.stdout, re.M)
    assert median and float(median.group(1)) == s["median_score"]
    reached = re.search(r"^reached 2048\s+([\d.]+)% \((\d+)\)$", out.stdout, re.M)
    assert reached and int(reached.group(2)) == s["reached"][2048]
    assert float(reached.group(1)) == round(100 * t.reach_rate(2048), 1)
    assert [(r.seed, r.score, r.max_tile, r.moves) for r in t.records] == cli
    # The same settings line: either program resumes the other's file.
    assert _native.made_by(ours.read_text()) == _native.made_by((tmp_path / "cli.csv").read_text())


def _need_weights() -> None:
    if not os.path.isfile(py2048.SHIPPED_WEIGHTS):
        pytest.skip(f"the shipped weights file {py2048.SHIPPED_WEIGHTS} is missing")


def test_a_learned_player_gets_its_network_through_the_object_store(cluster, tmp_path):
    _need_weights()
    weights = tmp_path / "copy.n2048"
    shutil.copyfile(py2048.SHIPPED_WEIGHTS, weights)
    player = Player("ntuple", depth=1, weights=str(weights))
    t = tournament(player, games=2, seed_start=141, csv=tmp_path / "ray.csv", progress=False)
    cli = _cli_records(
        ["tournament", "--preset", "ntuple", "--depth", "1", "--weights", str(weights),
         "--games", "2", "--seed-start", "141"],
        tmp_path / "cli.csv",
    )
    assert [(r.seed, r.score, r.max_tile, r.moves) for r in t.records] == cli
    assert min(r.max_tile for r in t.records) >= 2048  # the network, not a stand-in
    # The network named alike, by path and checksum: either program resumes
    # the other's file.
    made_by = _native.made_by((tmp_path / "ray.csv").read_text())
    assert made_by == _native.made_by((tmp_path / "cli.csv").read_text())
    assert f"(checksum {_native.weights_checksum(weights):016x})" in made_by


def test_endgame_tables_are_built_before_the_games_and_play_as_in_the_cli(cluster, tmp_path):
    tables = tmp_path / "tables"
    # The smallest tables (built in well under a second): the test is of
    # where they are built and that the games stay the CLI's.
    player = Player("fast", depth=1, endgame=True, tables=str(tables), tables_max_states=2000)
    t = tournament(player, games=4, seed_start=161, csv=tmp_path / "ray.csv", progress=False)
    files = sorted(f.name for f in tables.iterdir())
    # Each table and its stamp (a `.checked` file says its checksum was
    # verified once, so later opens skip the full read), and the folder's
    # lock, which builders take in turn; no temporary left.
    egts = [f for f in files if f.endswith(".egt")]
    assert egts and files == sorted(egts + [f + ".checked" for f in egts] + ["build.lock"]), files
    assert len(egts) == _native.endgame_table_count(2000)
    cli = _cli_records(
        ["tournament", "--preset", "fast", "--depth", "1", "--endgame", "--tables", str(tables),
         "--tables-max-states", "2000", "--games", "4", "--seed-start", "161"],
        tmp_path / "cli.csv",
    )
    assert [(r.seed, r.score, r.max_tile, r.moves) for r in t.records] == cli


def test_a_preset_using_every_core_still_plays_on_one_cpu_nodes(cluster, tmp_path):
    # `default` searches on every core of the driver's machine (2 here); the
    # nodes offer one CPU each, so a game reserves one, not a count no node
    # has (which Ray would wait for, for ever).
    result: dict[str, object] = {}

    def run() -> None:
        result["t"] = tournament(Player("default", depth=1), games=2, seed_start=181,
                                 max_moves=40, progress=False)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive(), "the games never started"
    assert [r.moves for r in result["t"].records] == [40, 40]


def test_a_resumed_run_plays_only_the_missing_seeds(cluster, tmp_path):
    csv = tmp_path / "games.csv"
    first = tournament(FAST1, games=3, seed_start=61, csv=csv, progress=False)
    assert first.played == 3
    again = tournament(FAST1, games=6, seed_start=61, csv=csv, resume=True, progress=False)
    assert again.played == 3
    assert [r.seed for r in again.records] == list(range(61, 67))
    assert [g[0] for g in _games(csv)] == list(range(61, 67))
    # A file made with other settings is refused, not mixed in.
    with pytest.raises(ValueError, match="were played with"):
        tournament(Player("fast", depth=2), games=6, seed_start=61, csv=csv, resume=True)
    # The CLI resumes the Python file and finds nothing left to play.
    out = subprocess.run(
        [_cli(), "tournament", "--preset", "fast", "--depth", "1", "--games", "6",
         "--seed-start", "61", "--csv", str(csv), "--resume"],
        check=True, capture_output=True, text=True,
    )
    assert "6 (seeds 61 to 66)" in out.stdout
    assert len(_games(csv)) == 6


def test_a_comparison_matches_the_clis(cluster, tmp_path):
    a, b = Player("fast", depth=1), Player("fast", depth=2)
    c = compare(a, b, games=6, seed_start=81, tile=2048, csv_a=tmp_path / "a.csv",
                csv_b=tmp_path / "b.csv", progress=False)
    assert c.stats["games"] == 6 and c.played == 12
    out = subprocess.run(
        [_cli(), "compare", "--a", a.options(), "--b", b.options(), "--games", "6",
         "--seed-start", "81", "--tile", "2048", "--csv-a", str(tmp_path / "ca.csv"),
         "--csv-b", str(tmp_path / "cb.csv")],
        check=True, capture_output=True, text=True,
    )
    assert c.report == out.stdout
    assert _games(tmp_path / "a.csv") == _games(tmp_path / "ca.csv")
    assert _games(tmp_path / "b.csv") == _games(tmp_path / "cb.csv")


def test_an_sprt_stops_a_comparison_once_it_decides(cluster, tmp_path):
    # Depth 1 against depth 2 on reaching 2048: a clear gap, so a test of
    # "no gain" against "30 points" accepts H1 well before 60 seeds.
    a, b = Player("fast", depth=1), Player("fast", depth=2)
    c = compare(a, b, games=60, seed_start=101, tile=2048, sprt=(0.0, 0.3), alpha=0.05,
                beta=0.05, progress=False)
    assert c.verdict in ("H0", "H1")
    assert c.stats["games"] == c.stats["stopping_point"] < 60
    assert c.played < 120
    assert "SPRT H0: B - A = +0.0 points, H1: +30.0 points" in c.report
    assert f"after {c.stats['games']} seeds" in c.report


def _worker_ip() -> str:
    """The address Ray gives this machine's nodes (it maps 127.0.0.1 to it)."""
    return ray.util.get_node_ip_address()


def _task_workers() -> list[int]:
    """The worker processes running a game now (Ray titles a worker by its
    task while it runs one)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if cmd.startswith(b"ray::_play"):
                pids.append(int(proc.name))
    return pids


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds workers in /proc")
def test_a_worker_killed_mid_run_loses_no_game(cluster, tmp_path, capfd):
    csv = tmp_path / "killed.csv"
    player = Player("fast", depth=2)  # games of a second or two: time to kill one
    result: dict[str, object] = {}

    def run() -> None:
        try:
            result["t"] = tournament(player, games=4, seed_start=121, csv=csv, progress=False)
        except BaseException as e:  # the assertion below reports it
            result["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and time.monotonic() < deadline and thread.is_alive():
        # Kill a worker in the middle of a game, once a game has finished.
        if csv.exists() and len(_native.read_csv(csv.read_text())) >= 1:
            workers = _task_workers()
            if workers:
                killed = workers[0]
                os.kill(killed, signal.SIGKILL)
        time.sleep(0.05)
    thread.join(timeout=600)
    assert "error" not in result, result.get("error")
    assert killed is not None, "no worker was caught playing"
    t = result["t"]
    assert [r.seed for r in t.records] == list(range(121, 125))
    cli = _cli_records(
        ["tournament", "--preset", "fast", "--depth", "2", "--games", "4", "--seed-start", "121"],
        tmp_path / "cli.csv",
    )
    # Every game once, the same games as the CLI's.
    assert _games(csv) == cli
    # One line of py2048's says so (Ray's report arrives on a thread of its
    # own), in place of Ray's two long ones, which buried the driver's own
    # output.
    output = ""
    deadline = time.monotonic() + 10
    while "lost a Ray worker" not in output and time.monotonic() < deadline:
        time.sleep(0.2)
        output += "".join(capfd.readouterr())
    assert [line for line in output.splitlines() if "py2048:" in line] == [
        f"py2048: lost a Ray worker (process {killed} on {_worker_ip()}: killed, out of memory or"
        " crashed); its game is played again"
    ], output
    assert "(raylet)" not in output, output


def test_bad_settings_fail_before_any_game(tmp_path):
    with pytest.raises(ValueError, match="preset"):
        Player("strongest")
    with pytest.raises(ValueError, match="depth_bonus"):
        tournament(Player("fast", depth=2, depth_bonus=1), games=1, progress=False)
    with pytest.raises(ValueError, match="heuristic"):
        tournament(Player("fast", heuristic=0.5), games=1, progress=False)
    with pytest.raises(ValueError, match="need endgame=True"):
        Player("fast", tables=str(tmp_path))
    with pytest.raises(ValueError, match="same file"):
        compare(FAST1, FAST1, games=1, csv_a=tmp_path / "x.csv", csv_b=tmp_path / "x.csv")
    with pytest.raises(ValueError, match="SPRT"):
        compare(FAST1, FAST1, games=1, sprt=(0.1, 0.0))
    with pytest.raises(FileNotFoundError):
        tournament(Player("ntuple", weights=str(tmp_path / "none.n2048")), games=1)
    with pytest.raises(TypeError):
        tournament("fast", games=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="in_flight"):
        tournament(FAST1, games=1, in_flight=0)
    with pytest.raises(ValueError, match="sprt"):
        compare(FAST1, FAST1, games=1, sprt=(0.0, 0.1, 0.2))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="4x4"):
        tournament(Player("fast", endgame=True, size=5), games=1)
    with pytest.raises(ValueError, match="power of two"):
        from py2048.distributed import Tournament

        Tournament(FAST1, [], 0, 0.0).reach_rate(3000)


def test_a_learned_player_plays_four_by_four_only():
    _need_weights()
    with pytest.raises(ValueError, match="4x4 boards only, not 5x5"):
        tournament(Player("ntuple", size=5), games=1, progress=False)


def test_settings_lines_are_the_clis_for_any_number(tmp_path):
    csv = tmp_path / "cli.csv"
    subprocess.run(
        [_cli(), "tournament", "--preset", "default", "--depth", "1", "--prob-cutoff", "0.00002",
         "--games", "1", "--max-moves", "1", "--four-probability", "0.25", "--csv", str(csv)],
        check=True, capture_output=True,
    )
    ours = Player("default", depth=1, prob_cutoff=2e-5, four_probability=0.25).settings_line(1)
    assert _native.made_by(csv.read_text()) == ours


def test_players_pickle_and_name_their_options():
    import pickle

    _need_weights()
    p = Player("ntuple", depth=2, heuristic=0.0, endgame=True, tables_max_states=1000)
    assert pickle.loads(pickle.dumps(p)) == p
    assert p.depth == 2 and p.threads is None and p.heuristic == 0.0
    assert p.with_settings(depth=None, threads=1).options() == (
        "--preset ntuple --threads 1 --heuristic 0 --endgame --tables-max-states 1000"
    )
    with pytest.raises(TypeError, match="unexpected keyword argument 'depht'"):
        Player("fast", depht=2)
    with pytest.raises(AttributeError):
        p.depht
    assert p.options() == "--preset ntuple --depth 2 --heuristic 0 --endgame --tables-max-states 1000"
    shipped = os.path.realpath(py2048.SHIPPED_WEIGHTS)
    checksum = _native.weights_checksum(shipped)
    assert checksum != 0
    tables = _native.endgame_table_count(1000)
    assert p.settings_line(None) == (
        f"--preset ntuple --depth 2 --heuristic 0 --weights {shipped} (checksum {checksum:016x})"
        f" --endgame ({tables} tables) --size 4 --four-probability 0.1"
    )


def test_without_ray_the_error_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails
    from py2048 import distributed

    with pytest.raises(ImportError, match=r'pip install "py2048\[ray\]"'):
        distributed.tournament(FAST1, games=1, progress=False)


def test_the_records_format_is_the_clis(tmp_path):
    path = tmp_path / "games.csv"
    log = _native.RecordsLog(str(path), False, False, "--preset fast")
    log.append((3, 1000, 128, 90, 1.5, 12, None))
    log.close()
    text = path.read_text()
    header = "seed,score,max_tile,moves,millis,median_decision_micros,p99_decision_micros"
    assert text == f"# made by: --preset fast\n{header}\n3,1000,128,90,1.500,12,\n"
    assert _native.made_by(text) == "--preset fast"
    assert _native.read_csv(text) == [(3, 1000, 128, 90, 1.5, 12, None)]
    with pytest.raises(ValueError):
        _native.read_csv(header + "\n3,x\n")


# Records files lose nothing (they hold hours of games): a file that holds
# games is not written over unless asked, a last line cut short does not
# block a resume, the same network elsewhere and a preset's old name
# resume, and the games counted are those of the seeds asked for.


def _cli_file(csv: Path, args: list[str]) -> str:
    """Plays ``args`` with the lab into ``csv``; the file's text."""
    subprocess.run([_cli(), "tournament", *args, "--csv", str(csv)], check=True, capture_output=True)
    return csv.read_text()


def test_a_file_that_holds_games_is_not_written_over(cluster, tmp_path):
    csv = tmp_path / "games.csv"
    tournament(FAST1, games=2, seed_start=201, csv=csv, progress=False)
    text = csv.read_text()
    message = r"games.csv already exists and holds 2 games: resume=True keeps its games"
    with pytest.raises(FileExistsError, match=message):
        tournament(FAST1, games=1, seed_start=201, csv=csv, progress=False)
    with pytest.raises(FileExistsError, match=message):
        compare(FAST1, FAST1, games=1, csv_a=tmp_path / "other.csv", csv_b=csv, progress=False)
    assert csv.read_text() == text
    with pytest.raises(ValueError, match="not both"):
        tournament(FAST1, games=1, csv=csv, resume=True, force=True)
    assert csv.read_text() == text
    t = tournament(FAST1, games=1, seed_start=205, csv=csv, force=True, progress=False)
    assert t.played == 1 and [g[0] for g in _games(csv)] == [205]


def test_a_raylets_port_is_refused_at_once_as_not_the_head(cluster, tmp_path):
    # A raylet's own port speaks gRPC too; joining
    # it took 20 s and the message blamed the auth token.
    node = next(n for n in ray.nodes() if n["Alive"])
    raylet = f"{node['NodeManagerAddress']}:{node['NodeManagerPort']}"
    [got] = _connect_failures([("tournament", raylet, {})], tmp_path)
    assert got["error"] == "ConnectionError" and got["seconds"] < 10, got
    assert f"address='{raylet}': a gRPC server answers there, but not a Ray head" in got["message"]
    assert not got["csv"]


def test_a_last_line_cut_short_is_dropped_and_its_game_played_again(cluster, tmp_path):
    csv = tmp_path / "games.csv"
    args = ["--preset", "fast", "--depth", "1", "--games", "3", "--seed-start", "221",
            "--parallel", "1"]
    text = _cli_file(csv, args)
    whole = _games(csv)
    cut = text[:-9]
    csv.write_text(cut)
    with pytest.warns(UserWarning, match=r"games.csv: line 5 \(`223,.*`\) was cut short"):
        t = tournament(FAST1, games=3, seed_start=221, csv=csv, resume=True, progress=False)
    assert t.played == 1
    assert _games(csv) == whole
    # A bad line that is not the last is refused, the file untouched.
    lines = csv.read_text().splitlines(keepends=True)
    bad = "".join(lines[:3] + ["221,x\n"] + lines[3:])
    csv.write_text(bad)
    with pytest.raises(ValueError, match="line 4: 2 fields"):
        tournament(FAST1, games=3, seed_start=221, csv=csv, resume=True, progress=False)
    assert csv.read_text() == bad


def test_the_same_network_elsewhere_resumes(tmp_path):
    _need_weights()
    here, there = tmp_path / "here.n2048", tmp_path / "there.n2048"
    for copy in (here, there):
        shutil.copyfile(py2048.SHIPPED_WEIGHTS, copy)
    csv = tmp_path / "games.csv"
    _cli_file(csv, ["--preset", "ntuple", "--depth", "1", "--max-moves", "20", "--weights",
                    str(here), "--games", "2"])
    t = tournament(Player("ntuple", depth=1, weights=str(there)), games=2, max_moves=20,
                   csv=csv, resume=True, progress=False)
    assert t.played == 0 and [r.seed for r in t.records] == [1, 2]


def test_a_file_of_a_presets_old_name_resumes_by_either_name(tmp_path):
    csv = tmp_path / "games.csv"
    text = _cli_file(csv, ["--preset", "heuristic", "--depth", "1", "--max-moves", "20",
                           "--games", "1"])
    assert text.startswith("# made by: --preset heuristic ")
    csv.write_text(text.replace("--preset heuristic", "--preset default", 1))
    for name in ("default", "heuristic"):
        t = tournament(Player(name, depth=1), games=1, max_moves=20, csv=csv, resume=True,
                       progress=False)
        assert t.played == 0 and len(t.records) == 1


def test_a_resume_counts_the_seeds_asked_for(tmp_path):
    csv = tmp_path / "games.csv"
    _cli_file(csv, ["--preset", "fast", "--depth", "1", "--max-moves", "20", "--games", "5",
                    "--seed-start", "241"])
    t = tournament(Player("fast", depth=1), games=2, seed_start=243, max_moves=20, csv=csv,
                   resume=True, progress=False)
    assert t.played == 0
    assert [r.seed for r in t.records] == [243, 244]
    assert t.stats()["games"] == 2



def _ray_env(**extra: str) -> dict[str, str]:
    """This environment for a Ray command or driver of a test: the venv's
    `ray` and `python` first on PATH, usage stats off, and no setting of
    Ray's authentication (the fixture's included) unless given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_AUTH", "RAY_ADDRESS"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    env.update(extra)
    return env


def _documented_commands() -> list[str]:
    """The shell commands of docs/python.md's multi-node example."""
    text = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- tests/test_distributed.py runs these commands[^>]*-->\n```sh\n(.*?)```", text, re.S)
    assert block, "docs/python.md lost its multi-node example"
    return [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]


@pytest.fixture
def ray_dirs():
    """A short folder for nodes' temp folders (Ray's socket paths under it
    must fit AF_UNIX's 107 bytes, which pytest's tmp_path can pass)."""
    path = Path(tempfile.mkdtemp(prefix="py2048-ray-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _wait_for_text(path: Path, text: str, proc: subprocess.Popen, deadline: float) -> None:
    while text not in path.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"no {text!r} from the node:\n{path.read_text(errors='replace')[-3000:]}")
        time.sleep(0.3)


def test_the_documented_cluster_commands_work_as_written(tmp_path, ray_dirs):
    # A user copies the docs' commands, so they must work. The commands of
    # docs/python.md, each run as
    # written but for the cluster's place on this one machine: the head's
    # address and port (a free one), one CPU a node, `--block` and a temp
    # folder of its own for each node (so that this test stops its nodes
    # alone), and a HOME of its own (the token of ~/.ray/auth_token). The
    # driver's "auto" finds this cluster through RAY_ADDRESS, as another
    # cluster of this machine could be the one Ray finds first.
    generate, head_cmd, worker_cmd, driver_cmd = _documented_commands()
    port = _free_port()
    home = tmp_path / "home"
    home.mkdir()
    env = _ray_env(HOME=str(home))

    def placed(command: str) -> str:
        for docs, here in [("HEAD:6379", f"127.0.0.1:{port}"), ("--port 6379", f"--port {port}"),
                           ("--num-cpus 8", "--num-cpus 1"), ("games=1000", "games=2")]:
            command = command.replace(docs, here)
        return command

    start = time.monotonic()
    subprocess.run(["bash", "-c", generate], env=env, check=True, timeout=60)
    assert (home / ".ray" / "auth_token").is_file()
    nodes = []
    try:
        for name, command in [("head", head_cmd), ("worker", worker_cmd)]:
            extra = f" --block --disable-usage-stats --temp-dir {ray_dirs / name}"
            if name == "head":
                extra += " --include-dashboard false"
            log = tmp_path / f"{name}.log"
            with open(log, "wb") as out:
                nodes.append(subprocess.Popen(
                    ["bash", "-c", placed(command) + extra], env=env, stdout=out,
                    stderr=subprocess.STDOUT, start_new_session=True,
                ))
            _wait_for_text(log, "Ray runtime started", nodes[-1], time.monotonic() + 60)
        driver = subprocess.run(
            ["bash", "-c", placed(driver_cmd)], env=dict(env, RAY_ADDRESS=f"127.0.0.1:{port}"),
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )
        assert driver.returncode == 0, driver.stderr[-3000:]
        assert "games   2" in driver.stdout and "played 2 game(s)" in driver.stdout, driver.stdout
        assert len(_native.read_csv((tmp_path / "fast.csv").read_text())) == 2
        # Both nodes joined (the worker's line above says it started; the
        # head counts it).
        alive = subprocess.run(
            [sys.executable, "-c", "import ray; ray.init(address='auto', log_to_driver=False);"
             " print(sum(n['Alive'] for n in ray.nodes()))"],
            env=dict(env, RAY_AUTH_MODE="token", RAY_ADDRESS=f"127.0.0.1:{port}"),
            capture_output=True, text=True, timeout=60,
        )
        assert alive.stdout.strip() == "2", alive.stderr[-3000:]
        # A driver that does not say RAY_AUTH_MODE=token is refused, after
        # Ray's retries, with a message that says what to do.
        refused = _connect_failures([("tournament", f"127.0.0.1:{port}", {"HOME": str(home)})], tmp_path)
        assert refused[0]["error"] == "ConnectionError", refused
        assert f"127.0.0.1:{port}" in refused[0]["message"], refused
        assert "RAY_AUTH_MODE=token" in refused[0]["message"], refused
    finally:
        _stop_nodes(nodes)
    assert time.monotonic() - start < 75, "the cluster's test should take about a minute at most"


def _connect_failures(cases: list[tuple[str, str | None, dict[str, str]]], tmp_path: Path) -> list[dict]:
    """Each case (a call, its address, its environment) run in a fresh
    driver process, whose Ray is not yet connected: what it raised, how
    fast, and whether its records file was written."""
    script = tmp_path / "connect.py"
    script.write_text(
        "import json, os, sys, time\n"
        "from py2048.distributed import Player, compare, tournament\n"
        "call, address, csv = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]\n"
        "p = Player('fast', depth=1)\n"
        "start = time.monotonic()\n"
        "try:\n"
        "    if call == 'tournament':\n"
        "        tournament(p, games=1, csv=csv, address=address, progress=False)\n"
        "    else:\n"
        "        compare(p, p, games=1, csv_a=csv, csv_b=csv + '.b', address=address, progress=False)\n"
        "    out = {'error': None}\n"
        "except Exception as e:\n"
        "    out = {'error': type(e).__name__, 'message': str(e)}\n"
        "out['seconds'] = time.monotonic() - start\n"
        "out['csv'] = os.path.exists(csv)\n"
        "print(json.dumps(out))\n"
    )
    results = []
    for i, (call, address, extra) in enumerate(cases):
        csv = tmp_path / f"case{i}.csv"
        done = subprocess.run(
            [sys.executable, str(script), call, json.dumps(address), str(csv)],
            env=_ray_env(**extra), capture_output=True, text=True, timeout=60,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return results


def test_a_wrong_address_fails_within_seconds_naming_it(tmp_path):
    # A typo in the address must not leave the user waiting: Ray's own
    # loop retries such an address for many minutes.
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # pragma: no cover - the probe sends no GET
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    web = HTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    nothing = f"127.0.0.1:{_free_port()}"
    not_ray = f"127.0.0.1:{web.server_address[1]}"
    # A gRPC server that is not the head (a
    # raylet's port) took 20 s and the message blamed the auth token.
    other_grpc, stop_grpc = _fake_grpc("12")
    try:
        cases = [
            ("tournament", nothing, {}),
            ("compare", nothing, {}),
            ("tournament", not_ray, {}),
            ("tournament", "no-such-host.invalid:6379", {}),
            ("tournament", None, {"RAY_ADDRESS": nothing}),
            ("tournament", "auto", {"RAY_ADDRESS": nothing}),
            ("tournament", other_grpc, {}),
        ]
        results = _connect_failures(cases, tmp_path)
    finally:
        web.shutdown()
        stop_grpc()
    for (call, address, _), got in zip(cases, results):
        assert got["error"] == "ConnectionError", (call, address, got)
        assert got["seconds"] < 10, (call, address, got)
        assert not got["csv"], "a records file was written for a cluster never reached"
    assert f"address='{nothing}': nothing listens on port" in results[0]["message"]
    assert f"address='{nothing}'" in results[1]["message"]
    assert "not a Ray head" in results[2]["message"] and not_ray in results[2]["message"]
    assert "no-such-host.invalid" in results[3]["message"]
    assert f"RAY_ADDRESS='{nothing}'" in results[4]["message"]
    assert f"RAY_ADDRESS='{nothing}'" in results[5]["message"]
    assert f"address='{other_grpc}': a gRPC server answers there, but not a Ray head" in results[6]["message"]
    assert "token" not in results[6]["message"]


@pytest.mark.parametrize(
    "reply",
    [
        "0",  # a head's GCS: its reply, then status OK
        "16",  # a head that wants an auth token: Ray's own message says so
        "",  # no status read (a stream reset): Ray's own attempt explains
    ],
)
def test_a_grpc_server_that_knows_the_gcs_call_passes_the_address_check(reply, monkeypatch):
    from types import SimpleNamespace

    from py2048 import distributed
    from py2048.distributed import _cluster

    monkeypatch.setattr(_cluster, "_ray", lambda: SimpleNamespace(is_initialized=lambda: False))
    address, stop = _fake_grpc(reply)
    try:
        _cluster._check_address(address, distributed.CONNECT_TIMEOUT)
    finally:
        stop()
    unimplemented, stop = _fake_grpc("12")
    try:
        with pytest.raises(ConnectionError, match="a gRPC server answers there, but not a Ray head"):
            _cluster._check_address(unimplemented, distributed.CONNECT_TIMEOUT)
    finally:
        stop()


def _fake_grpc(status: str) -> tuple[str, Callable[[], None]]:
    """A gRPC server on 127.0.0.1 that answers every call as gRPC's C++
    servers do (HTTP/2, headers as plain HPACK literals): with a reply
    message then status 0 for "0", a stream reset for "", else that status
    alone (12: UNIMPLEMENTED, what a raylet answers to a GCS call). Its
    address, and a function that stops it."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stopped = threading.Event()

    def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
        return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload

    def indexed(name: str, value: str) -> bytes:
        # A literal with incremental indexing, a new name (RFC 7541, 6.2.1).
        return bytes([0x40, len(name)]) + name.encode() + bytes([len(value)]) + value.encode()

    def serve(conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            data = b""
            while len(data) < 24 + 9:
                data += conn.recv(4096)
            conn.sendall(frame(4, 0, 0))
            data = data[24:]
            # Frames until the call's HEADERS (stream 1).
            while True:
                while len(data) < 9 or len(data) < 9 + int.from_bytes(data[:3], "big"):
                    chunk = conn.recv(4096)
                    if not chunk:
                        return
                    data += chunk
                n = int.from_bytes(data[:3], "big")
                kind, stream = data[3], int.from_bytes(data[5:9], "big")
                data = data[9 + n :]
                if kind == 1 and stream == 1:
                    break
            head = b"\x88" + indexed("content-type", "application/grpc")  # :status 200
            if status == "":
                conn.sendall(frame(3, 0, 1, (2).to_bytes(4, "big")))
            elif status == "0":
                cluster_id = b"\x0a\x1c" + bytes(28)
                message = b"\x00" + len(cluster_id).to_bytes(4, "big") + cluster_id
                conn.sendall(frame(1, 4, 1, head) + frame(0, 0, 1, message)
                             + frame(1, 5, 1, indexed("grpc-status", "0")))
            else:
                trailers = head + indexed("grpc-status", status) + indexed("grpc-message", "")
                conn.sendall(frame(1, 5, 1, trailers))
            # Hold the connection open, as a server would, until the client goes.
            with contextlib.suppress(OSError):
                while conn.recv(4096):
                    pass

    def accept() -> None:
        while not stopped.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()

    def stop() -> None:
        stopped.set()
        thread.join()
        listener.close()

    return f"127.0.0.1:{listener.getsockname()[1]}", stop


def _pids_where(test) -> list[int]:  # noqa: ANN001 - a predicate on (pid, ppid, cmdline)
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes()
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if test(int(proc.name), ppid, cmd):
            found.append(int(proc.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the raylet in /proc")
def test_a_lost_node_is_one_line_in_the_drivers_output(cluster, tmp_path, ray_dirs):
    # A killed raylet makes Ray print its last 20 log lines, twice, into
    # the driver's output, burying it. A third node of its own joins
    # the cluster, and its raylet is killed while it plays a game.
    third = ray_dirs / "third"
    node = _start_node(["--address", cluster, "--num-cpus", "1", "--temp-dir", str(third)],
                       _ray_env(RAY_AUTH_MODE="disabled"), tmp_path / "third.log")
    try:
        _wait_for_text(tmp_path / "third.log", "Ray runtime started", node, time.monotonic() + 60)
        driver = subprocess.Popen(
            [sys.executable, "-c",
             "from py2048.distributed import Player, tournament\n"
             f"t = tournament(Player('fast', depth=2), games=16, seed_start=201, address={cluster!r},"
             " progress=False)\n"
             "print('seeds', [r.seed for r in t.records])\n"],
            env=_ray_env(RAY_AUTH_MODE="disabled"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )
        raylet = _pids_where(lambda pid, ppid, cmd: b"raylet" in cmd.split(b"\0")[0]
                             and str(third).encode() in cmd)
        assert len(raylet) == 1, raylet
        deadline = time.monotonic() + 90
        while not _pids_where(lambda pid, ppid, cmd: ppid == raylet[0] and cmd.startswith(b"ray::_play")):
            assert time.monotonic() < deadline and driver.poll() is None, "no game ran on the third node"
            time.sleep(0.05)
        os.kill(raylet[0], signal.SIGKILL)
        out, err = driver.communicate(timeout=300)
    finally:
        _stop_nodes([node])
    assert driver.returncode == 0, err[-3000:]
    assert f"seeds {list(range(201, 217))}" in out
    both = out + err
    assert "(raylet)" not in both and "[state-dump]" not in both, both[-3000:]
    lost = [line for line in both.splitlines() if "lost a Ray node" in line]
    assert lost == [
        "py2048: lost a Ray node (its raylet ended unexpectedly: killed, out of memory or crashed);"
        " the games it was playing are played again on the others"
    ], both[-3000:]
