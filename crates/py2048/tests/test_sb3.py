"""SB3VecEnv2048 against stable-baselines3's own DummyVecEnv, SB3's checks
and wrappers, and short PPO and MaskablePPO runs.

Users train with SB3, so the environment must pass its checks and run in
its algorithms, not only match its interface on paper. CI installs
stable-baselines3 and sb3-contrib
(PY2048_CI is set there, and a missing package fails instead of skipping);
`cargo xtask ci --no-rl` (PY2048_RL=0) leaves them out, and these tests
with them.
"""

import os

import gymnasium as gym
import numpy as np
import pytest

if os.environ.get("PY2048_RL") == "0":
    pytest.skip(
        "the RL extras are left out (PY2048_RL=0, `cargo xtask ci --no-rl`)",
        allow_module_level=True,
    )
elif os.environ.get("PY2048_CI"):
    import sb3_contrib  # noqa: F401
    import stable_baselines3  # noqa: F401
else:
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3 import PPO
from stable_baselines3.common.env_checker import check_env
from stable_baselines3.common.vec_env import (
    DummyVecEnv,
    VecCheckNan,
    VecFrameStack,
    VecMonitor,
    VecNormalize,
)

import py2048
from py2048.sb3 import SB3VecEnv2048


@pytest.fixture(autouse=True)
def _sb3_logs_in_tmp_path(tmp_path, monkeypatch):
    # SB3 makes a log folder for every model, in /tmp unless SB3_LOGDIR
    # says where: the test's own folder, removed with it.
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))


def dummy(n, max_episode_steps=None, **kwargs):
    def make():
        env = py2048.Env2048(**kwargs)
        if max_episode_steps is not None:
            env = gym.wrappers.TimeLimit(env, max_episode_steps)
        return env

    return DummyVecEnv([make for _ in range(n)])


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"obs_mode": "exponents", "max_episode_steps": 40}, {"illegal_action": "terminate"}],
)
def test_steps_exactly_as_dummy_vec_env_over_env2048(kwargs):
    n = 5
    mine, theirs = SB3VecEnv2048(num_envs=n, **kwargs), dummy(n, **kwargs)
    mine.seed(7)
    theirs.seed(7)
    np.testing.assert_array_equal(mine.reset(), theirs.reset())
    rng = np.random.default_rng(0)
    ended = 0
    for t in range(1500):
        actions = rng.integers(0, 4, size=n)
        a, b = mine.step(actions), theirs.step(actions)
        np.testing.assert_array_equal(a[0], b[0], err_msg=f"observations at step {t}")
        np.testing.assert_array_equal(a[1], b[1])
        assert a[1].dtype == b[1].dtype == np.float32
        np.testing.assert_array_equal(a[2], b[2])
        for i, (x, y) in enumerate(zip(a[3], b[3])):
            assert x["TimeLimit.truncated"] == y["TimeLimit.truncated"]
            assert ("terminal_observation" in x) == ("terminal_observation" in y)
            if "terminal_observation" in x:
                ended += 1
                np.testing.assert_array_equal(x["terminal_observation"], y["terminal_observation"])
                assert x["score"] == y["total_score"]
    assert ended >= 5


def test_sb3_checks_and_wrappers():
    # SB3's own checker on the single environment.
    check_env(py2048.Env2048(), warn=True)
    check_env(py2048.Env2048(obs_mode="exponents"), warn=True)
    env = VecNormalize(VecFrameStack(VecCheckNan(VecMonitor(SB3VecEnv2048(num_envs=4)), raise_exception=True), 2))
    obs = env.reset()
    assert obs.shape == (4, 4, 4, 32)
    for _ in range(200):
        obs, rewards, dones, infos = env.step(np.random.default_rng(1).integers(0, 4, 4))
    assert np.isfinite(obs).all() and np.isfinite(rewards).all()


def test_masks_reach_maskable_ppo():
    env = SB3VecEnv2048(num_envs=3)
    env.reset()
    assert is_masking_supported(env)
    np.testing.assert_array_equal(get_action_masks(env), env.action_masks())
    assert env.action_masks().dtype == np.bool_ and env.action_masks().shape == (3, 4)
    with pytest.raises(AttributeError, match="no method 'nope'"):
        env.env_method("nope")


def test_short_maskable_ppo_and_ppo_runs_learn_and_play_legal_moves():
    env = SB3VecEnv2048(num_envs=8)
    env.seed(0)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(512)
    assert model.num_timesteps >= 512
    obs = env.reset()
    for _ in range(50):
        masks = env.action_masks()
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(8), actions].all()
        obs, _, _, _ = env.step(actions)
    model = PPO("MlpPolicy", SB3VecEnv2048(num_envs=4, max_episode_steps=100), n_steps=16, batch_size=32, n_epochs=1, device="cpu")
    model.learn(128)


def test_bad_input():
    with pytest.raises(ValueError, match="num_envs"):
        SB3VecEnv2048(num_envs=0)
    with pytest.raises(ValueError, match="render_mode"):
        SB3VecEnv2048(render_mode="human")
    env = SB3VecEnv2048(num_envs=2)
    env.reset()
    with pytest.raises(ValueError, match="one action per environment"):
        env.step(np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="action 7"):
        env.step(np.array([0, 7]))


def test_the_adapter_pickles_and_plays_on_exactly():
    import pickle

    env = SB3VecEnv2048(num_envs=3)
    env.seed(2)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(100):
        env.step(rng.integers(0, 4, 3))
    other = pickle.loads(pickle.dumps(env))
    for _ in range(200):
        a = rng.integers(0, 4, 3)
        x, y = env.step(a), other.step(a)
        for p, q in zip(x[:3], y[:3]):
            np.testing.assert_array_equal(p, q)
