"""The solver and the learned network from Python."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import py2048

BOARD = "2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2"
HAVE_WEIGHTS = Path(py2048.SHIPPED_WEIGHTS).is_file()
needs_weights = pytest.mark.skipif(
    not HAVE_WEIGHTS,
    reason=f"the shipped weights file {py2048.SHIPPED_WEIGHTS} is not in this checkout",
)


@pytest.mark.parametrize("preset", ["tutorial", "fast"])
def test_decide_returns_a_legal_action_and_each_value(preset):
    d = py2048.decide(BOARD, preset=preset)
    legal = py2048.legal_actions(py2048.pack(py2048.parse_board(BOARD)))
    assert legal[d.action] == 1
    assert d.direction == py2048.ACTION_NAMES[d.action]
    assert len(d.values) == 4
    for action, value in enumerate(d.values):
        assert (value is None) == (legal[action] == 0)
    assert d.values[d.action] == max(v for v in d.values if v is not None)


def test_decide_takes_text_packed_exponents_and_observations():
    exps = py2048.parse_board(BOARD)
    obs = py2048.encode(py2048.pack(exps))
    boards = [BOARD, py2048.pack(exps), exps, obs, obs.astype(np.float32)]
    actions = {py2048.decide(b, preset="fast").action for b in boards}
    assert len(actions) == 1


def test_decide_on_other_sizes_and_rules():
    d = py2048.decide("2 2 0/0 4 0/0 0 2", preset="fast", four_probability=0.5)
    assert d.action in range(4)
    d = py2048.decide("2 0 0 0 0/0 0 0 0 0/0 0 0 0 0/0 0 0 0 0/0 0 0 0 4", preset="default", time_ms=20)
    assert d.action in range(4)


def test_a_solver_is_reused():
    solver = py2048.Solver("fast", threads=1)
    env = py2048.Env2048()
    obs, info = env.reset(seed=1)
    for _ in range(100):
        obs, _, terminated, _, info = env.step(solver.decide(info["board"]).action)
        assert info["is_legal"]
        if terminated:
            break
    assert env.score > 500


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: py2048.decide("2 4/8 16", preset="fast"), ValueError, "no direction"),
        (lambda: py2048.decide(BOARD, preset="nope"), ValueError, "nope"),
        (lambda: py2048.decide(BOARD, preset="fast", four_probability=2.0), ValueError, "probability"),
        (lambda: py2048.decide("2 x/0 0", preset="fast"), ValueError, "cannot read"),
        (lambda: py2048.decide(np.zeros((2, 3), dtype=int), preset="fast"), ValueError, "shape"),
        (lambda: py2048.decide(BOARD, preset="fast", time_ms=0), ValueError, "time_ms"),
        (lambda: py2048.Solver("fast", weights="w.n2048"), ValueError, "learned presets only"),
        (lambda: py2048.Solver("ntuple", weights="/nonexistent/w.n2048"), FileNotFoundError, "does not exist"),
        (lambda: py2048.Network("/nonexistent/w.n2048"), FileNotFoundError, "/nonexistent/w.n2048"),
    ],
)
def test_bad_solver_input_raises(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_file_that_is_not_weights_is_a_value_error(tmp_path):
    bad = tmp_path / "bad.n2048"
    bad.write_bytes(b"not a network at all, just some bytes" * 4)
    with pytest.raises(ValueError, match="cannot load the learned network"):
        py2048.Network(bad)


def test_without_its_shipped_weights_the_package_says_to_reinstall(tmp_path):
    # Such an installation must say so, not fall back, unsaid, to the
    # weights of the checkout the wheel was built from (a path compiled into
    # the library), nor name that path in its errors. A copy of the installed
    # package without its weights, imported in a fresh process:
    package = Path(py2048.__file__).parent
    site = tmp_path / "site"
    shutil.copytree(package, site / "py2048", copy_function=os.symlink,
                    ignore=shutil.ignore_patterns("weights", "__pycache__"))
    script = (
        "import json, py2048\n"
        "from py2048.distributed import Player\n"
        "out = {'file': py2048.__file__, 'shipped': py2048.SHIPPED_WEIGHTS, 'errors': []}\n"
        "for call in [lambda: py2048.decide('2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2', 'ntuple'),\n"
        "             lambda: py2048.Network(), lambda: py2048.value(0),\n"
        "             lambda: py2048.Solver('ntuple-deep'), lambda: Player('ntuple').weights_path()]:\n"
        "    try:\n"
        "        call()\n"
        "        out['errors'].append(None)\n"
        "    except Exception as e:\n"
        "        out['errors'].append([type(e).__name__, str(e)])\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=dict(os.environ, PYTHONPATH=str(site)),
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["file"].startswith(str(site))
    assert out["shipped"] == str(site / "py2048" / "weights" / "4x6.n2048")
    checkout = str(Path(__file__).resolve().parents[3])
    for error in out["errors"]:
        assert error is not None and error[0] == "FileNotFoundError", out
        assert "reinstall py2048" in error[1] and out["shipped"] in error[1], error
        assert checkout not in error[1], error


@needs_weights
def test_the_learned_value_of_boards():
    net = py2048.Network()
    boards = np.array([py2048.pack(py2048.parse_board(BOARD)), 0], dtype=np.uint64)
    values = net.value(boards)
    assert values.dtype == np.float32 and values.shape == (2,)
    assert np.isfinite(values).all()
    assert py2048.value(BOARD) == pytest.approx(float(values[0]))


@needs_weights
@pytest.mark.parametrize("preset", ["ntuple"])
def test_a_learned_preset_decides(preset):
    d = py2048.decide(BOARD, preset=preset)
    assert d.action in range(4)
    with pytest.raises(ValueError, match="4x4"):
        py2048.decide("2 2 0/0 0 0/0 0 0", preset=preset)


def test_tiles_past_32768_parse_format_and_decide():
    # Two 32768 tiles merge into 65536; the solver sees every tile exactly
    # (long games reach these tiles, past the packed board's 4-bit cells).
    text = "32768 32768 0 0/0 0 0 0/0 0 0 0/0 0 0 2"
    exps = py2048.parse_board(text)
    assert exps[0, 0] == 15
    d = py2048.decide(text, preset="fast")
    assert d.values[3] is not None and d.values[1] is not None  # left and right merge
    big = "131072 65536 2 0/0 0 0 0/0 0 0 0/0 0 0 2"
    exps = py2048.parse_board(big)
    assert (exps[0, 0], exps[0, 1]) == (17, 16)
    assert py2048.format_board(exps) == big
    assert py2048.decide(exps, preset="fast").action in range(4)
    assert py2048.MAX_EXPONENT == 25
    with pytest.raises(ValueError, match="0 \\(empty\\) to 17"):
        py2048.decide(np.full((4, 4), 18, dtype=np.uint8))
    with pytest.raises(ValueError, match="0 \\(empty\\) to 25"):
        py2048.decide(np.full((8, 8), 26, dtype=np.uint8))


def test_the_package_carries_the_shipped_weights():
    # The wheel holds py2048/weights/4x6.n2048, so the
    # learned presets work wherever the wheel is installed, not only next to
    # the checkout it was built from.
    pkg = Path(py2048.__file__).parent
    assert Path(py2048.SHIPPED_WEIGHTS) == pkg / "weights" / "4x6.n2048"
    assert Path(py2048.SHIPPED_WEIGHTS).stat().st_size > 1_000_000
    assert py2048.Network().path == py2048.SHIPPED_WEIGHTS
    with pytest.raises(FileNotFoundError, match="pass weights=PATH"):
        py2048.Network("/nonexistent/net.n2048")


def test_endgame_tables_decide_late_chains_and_say_so(tmp_path, capfd):
    # Small tables only (the whole set takes minutes to build).
    tables = py2048.EndgameTables(tmp_path / "tables", max_states=100_000)
    assert tables.count > 10 and tables.path == str(tmp_path / "tables")
    assert "built the table of the chain of 10 ending in 32" in capfd.readouterr().err
    # A chain of 10 from 16384 down to 32.
    board = "16384 8192 4096 2048/128 256 512 1024/64 32 0 0/0 2 0 0"
    d = py2048.decide(board, "fast", depth=1, endgame=tables)
    assert d.endgame == "chain of 10 ending in 32" and d.depth == 0
    odds = [v for v in d.values if v is not None]
    assert odds and all(0.0 <= p <= 1.0 for p in odds)
    assert d.values[d.action] == max(odds)
    # Early boards are searched; without tables nothing changes.
    early = py2048.decide("2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2", "fast", depth=1, endgame=tables)
    assert early.endgame is None and early.depth == 1
    assert py2048.decide(board, "fast", depth=1).endgame is None
    # A second open reads the files, building nothing.
    again = py2048.EndgameTables(tmp_path / "tables", max_states=100_000)
    assert again.count == tables.count and capfd.readouterr().err == ""
    with pytest.raises(TypeError, match="EndgameTables"):
        py2048.Solver("fast", endgame=str(tmp_path))
    with pytest.raises(OSError):
        py2048.EndgameTables("/proc/no-such-folder/tables", max_states=100)


def test_the_corner_preset_plays_by_its_corner_tables(tmp_path):
    # Without the corner tables it would play a weak game: refused.
    with pytest.raises(ValueError, match="plays by the corner tables"):
        py2048.decide("2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2", "corner")
    chains = py2048.EndgameTables(tmp_path / "tables", max_states=100_000)
    with pytest.raises(ValueError, match="plays by the corner tables"):
        py2048.decide("2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2", "corner", endgame=chains)
    # Small corner tables: the largest of each shape within the bound, the
    # step building 16 and the block anchored at 64.
    corner = py2048.EndgameTables(tmp_path / "tables", max_states=4_000_000, preset="corner")
    assert corner.count == 2
    # Up merges column 3's 4s into the second 8 the step's goal wants.
    board = "512 256 128 0/256 64 16 8/0 0 0 4/0 0 0 4"
    d = py2048.decide(board, "corner", endgame=corner)
    assert d.endgame == "corner step building 16" and d.action == 0 and d.values[0] == 1.0
    # Other presets never play by the corner tables.
    assert py2048.decide(board, "fast", depth=1, endgame=corner).endgame is None
    assert py2048._native.endgame_table_count(4_000_000, "corner") == 2
    with pytest.raises(ValueError, match="unknown preset"):
        py2048.EndgameTables(tmp_path / "tables", max_states=10, preset="best")


def test_a_solver_takes_the_presets_other_settings():
    # The fast preset's depth is adaptive, 1 to 3 plies of chance: the
    # bonus (replacing the preset's) moves it to either end.
    board = "2 2 4 8/0 0 0 0/0 0 0 0/0 0 0 0"
    assert py2048.Solver("fast").decide(board).depth == 1
    assert py2048.Solver("fast", depth_bonus=12, prob_cutoff=0.01).decide(board).depth == 3
    with pytest.raises(ValueError, match="heuristic"):
        py2048.Solver("fast", heuristic=0.5)
    with pytest.raises(ValueError, match="depth_bonus"):
        py2048.Solver("fast", depth=2, depth_bonus=1)
    with pytest.raises(ValueError, match="prob_cutoff"):
        py2048.Solver("tutorial", prob_cutoff=0.1)
    with pytest.raises(ValueError, match="prob_cutoff"):
        py2048.Solver("fast", prob_cutoff=2.0)


def test_settings_are_the_engines_by_name():
    # Every setting the engine declares is a keyword, with its help.
    assert {"depth", "time_ms", "threads", "prob_cutoff", "depth_bonus", "heuristic"} <= set(
        py2048.SETTINGS
    )
    assert "between -12 and 12" in py2048.SETTINGS["depth_bonus"]
    board = "2 2 4 8/0 0 0 0/0 0 0 0/0 0 0 0"
    assert py2048.decide(board, "fast", depth=2, threads=1).depth == 2
    # None keeps the preset's; an int is a real setting's value too.
    assert py2048.Solver("fast", depth=None, prob_cutoff=0).decide(board).depth == 1
    with pytest.raises(TypeError, match="unexpected keyword argument 'dept'"):
        py2048.Solver("fast", dept=2)
    with pytest.raises(TypeError, match="depth must be an int, got float"):
        py2048.Solver("fast", depth=2.0)
    with pytest.raises(TypeError, match="threads must be an int, got bool"):
        py2048.Solver("fast", threads=True)
    with pytest.raises(TypeError, match="prob_cutoff must be a number, got str"):
        py2048.Solver("fast", prob_cutoff="0.1")
    with pytest.raises(ValueError, match="depth_bonus must be a whole number between -12 and 12, got 13"):
        py2048.Solver("fast", depth_bonus=13)
    with pytest.raises(ValueError, match="time_ms must be a whole number at least 1 ms, got 0"):
        py2048.Solver("fast", 0)
    with pytest.raises(ValueError, match="time_ms .* got 18446744073709551616"):
        py2048.Solver("fast", time_ms=2**64)
    with pytest.raises(ValueError, match="heuristic must be a finite number of 0 or more, got nan"):
        py2048.Solver("ntuple-deep", heuristic=float("nan"))
