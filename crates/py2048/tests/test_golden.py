"""The package plays exactly the Rust engine's games: tests/data/golden.json
is written by `cargo run -p py2048 --example golden` from game-core."""

import json
from pathlib import Path

import numpy as np
import pytest

import py2048

GOLDEN = json.loads((Path(__file__).parent / "data" / "golden.json").read_text())["games"]


def test_the_golden_file_has_legal_illegal_and_finished_games():
    steps = [s for g in GOLDEN for s in g["steps"]]
    assert len(steps) > 500
    assert any(not s["legal"] for s in steps)
    assert sum(g["steps"][-1]["terminated"] for g in GOLDEN) >= 3
    assert {g["size"] for g in GOLDEN} >= {3, 4, 5}


@pytest.mark.parametrize("game", GOLDEN, ids=lambda g: f"seed{g['seed']}-{g['size']}x{g['size']}")
def test_env_replays_the_engines_game(game):
    env = py2048.Env2048(size=game["size"], four_probability=game["four_probability"])
    _, info = env.reset(seed=game["seed"])
    assert py2048.format_board(info["board"]) == game["start"]
    for i, step in enumerate(game["steps"]):
        _, reward, terminated, truncated, info = env.step(step["action"])
        where = f"step {i} of seed {game['seed']}"
        assert py2048.format_board(info["board"]) == step["board"], where
        assert reward == step["reward"], where
        assert info["is_legal"] == step["legal"], where
        assert info["total_score"] == step["score"], where
        assert terminated == step["terminated"], where
        assert not truncated


@pytest.mark.parametrize("game", [g for g in GOLDEN if g["size"] == 4], ids=lambda g: f"seed{g['seed']}")
def test_apply_action_gives_the_engines_afterstates(game):
    boards = [game["start"]] + [s["board"] for s in game["steps"][:-1]]
    packed = np.array([py2048.pack(py2048.parse_board(b)) for b in boards], dtype=np.uint64)
    actions = np.array([s["action"] for s in game["steps"]])
    after, rewards, legal = py2048.apply_action(packed, actions)
    assert [py2048.format_board(int(a)) for a in after] == [s["afterstate"] for s in game["steps"]]
    assert rewards.tolist() == [s["reward"] for s in game["steps"]]
    assert legal.tolist() == [s["legal"] for s in game["steps"]]


@pytest.mark.parametrize("game", [g for g in GOLDEN if g["size"] == 4], ids=lambda g: f"seed{g['seed']}")
def test_vector_env_replays_the_engines_game(game):
    env = py2048.VectorEnv2048(num_envs=2, obs_mode="exponents", four_probability=game["four_probability"])
    obs, _ = env.reset(seed=game["seed"])
    assert py2048.format_board(obs[0]) == game["start"]
    for step in game["steps"]:
        obs, rewards, terminated, _, _ = env.step(np.array([step["action"], 0]))
        assert py2048.format_board(obs[0]) == step["board"]
        assert rewards[0] == step["reward"]
        assert terminated[0] == step["terminated"]
