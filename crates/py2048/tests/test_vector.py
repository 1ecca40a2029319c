"""VectorEnv2048: gymnasium's autoreset modes (against its SyncVectorEnv),
truncation, registration, and the same games as single environments."""

import gymnasium as gym
import numpy as np
import pytest

import py2048


def test_make_vec_uses_the_vector_entry_point():
    envs = gym.make_vec(py2048.ENV_ID, num_envs=8, vectorization_mode="vector_entry_point")
    assert isinstance(envs.unwrapped, py2048.VectorEnv2048)
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (8, 4, 4, 16) and envs.observation_space.contains(obs)
    assert infos["action_mask"].shape == (8, 4) and infos["action_mask"].dtype == np.int8
    obs, rewards, terminated, truncated, infos = envs.step(envs.action_space.sample())
    assert rewards.dtype == np.float64 and terminated.shape == truncated.shape == (8,)


@pytest.mark.parametrize("mode", [gym.vector.AutoresetMode.NEXT_STEP, gym.vector.AutoresetMode.SAME_STEP])
def test_info_counts_are_int64_so_differences_across_a_reset_are_negative(mode):
    # total_score was uint64, and its change across
    # an autoreset 18446744073709551544 rather than -72.
    env = py2048.VectorEnv2048(num_envs=2, illegal_action="terminate", autoreset_mode=mode)
    _, infos = env.reset(seed=1)
    rng = np.random.default_rng(4)
    drops = 0
    for _ in range(400):
        before = infos["total_score"]
        _, _, terminated, _, infos = env.step(rng.integers(0, 4, size=2))
        for key in ("score", "total_score", "step_score", "max", "illegal_count"):
            assert infos[key].dtype == np.int64, key
            if "final_info" in infos:
                assert infos["final_info"][key].dtype == np.int64, key
        change = infos["total_score"] - before
        restarted = change < 0
        drops += int(restarted.sum())
        np.testing.assert_array_equal(change[restarted], -before[restarted])
    assert drops >= 3


def test_next_step_autoreset():
    env = py2048.VectorEnv2048(num_envs=4, obs_mode="exponents")
    obs, _ = env.reset(seed=10)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(3000):
        obs, rewards, terminated, truncated, infos = env.step(rng.integers(0, 4, size=4))
        for i in np.flatnonzero(terminated):
            ended += 1
            # The next step ignores the action and resets: reward 0, a fresh
            # board of two tiles, nothing ended.
            nxt = env.step(rng.integers(0, 4, size=4))
            assert nxt[1][i] == 0 and not nxt[2][i] and not nxt[3][i]
            assert np.count_nonzero(nxt[0][i]) == 2
            assert nxt[4]["score"][i] == 0
            break
    assert ended >= 3


@pytest.mark.parametrize(
    "obs_mode, max_pow",
    # The batch writes packed boards' observations by a faster path of its
    # own; the single env's is the general one.
    [("exponents", 16), ("onehot", 16), ("onehot", 11), ("onehot", 18)],
)
def test_env_i_plays_the_games_of_a_single_env_seeded_s_plus_i(obs_mode, max_pow):
    n, seed = 3, 40
    vec = py2048.VectorEnv2048(num_envs=n, obs_mode=obs_mode, max_pow=max_pow)
    singles = [py2048.Env2048(obs_mode=obs_mode, max_pow=max_pow) for _ in range(n)]
    obs, _ = vec.reset(seed=seed)
    single_obs = [e.reset(seed=seed + i)[0] for i, e in enumerate(singles)]
    pending = [False] * n
    rng = np.random.default_rng(2)
    for _ in range(1500):
        for i in range(n):
            np.testing.assert_array_equal(obs[i], single_obs[i])
        actions = rng.integers(0, 4, size=n)
        obs, rewards, terminated, _, _ = vec.step(actions)
        for i, e in enumerate(singles):
            if pending[i]:
                single_obs[i], _ = e.reset()
                pending[i] = False
                assert rewards[i] == 0
            else:
                single_obs[i], r, t, _, _ = e.step(int(actions[i]))
                assert r == rewards[i] and t == terminated[i]
                pending[i] = t


def test_truncation_after_max_episode_steps():
    env = py2048.VectorEnv2048(num_envs=2, max_episode_steps=5)
    env.reset(seed=0)
    truncs = [env.step(np.array([0, 3]))[3].tolist() for _ in range(6)]
    assert truncs[4] == [True, True]
    assert truncs[5] == [False, False]  # the autoreset step


def test_seeds_as_a_list_and_reproducible_resets():
    env = py2048.VectorEnv2048(num_envs=2, obs_mode="exponents")
    a, _ = env.reset(seed=[5, 9])
    b, _ = py2048.VectorEnv2048(num_envs=2, obs_mode="exponents").reset(seed=5)
    np.testing.assert_array_equal(a[0], b[0])
    with pytest.raises(ValueError, match="3 seeds for 2"):
        env.reset(seed=[1, 2, 3])


def test_render_and_masks():
    env = py2048.VectorEnv2048(num_envs=2, render_mode="ansi")
    _, infos = env.reset(seed=0)
    frames = env.render()
    assert len(frames) == 2 and frames[0].startswith("+--------+")
    np.testing.assert_array_equal(env.action_masks(), infos["action_mask"].astype(bool))
    assert py2048.VectorEnv2048(num_envs=1, render_mode="rgb_array").render()[0].shape == (460, 400, 3)


@pytest.mark.parametrize(
    "actions, error",
    [
        (np.array([0, 1, 2]), ValueError),
        (np.array([[0, 1]]), ValueError),
        (np.array([0, 4]), ValueError),
        (np.array([-1, 0]), ValueError),
        (np.array([0.0, 1.0]), TypeError),
        (np.array([True, False]), TypeError),
        (np.array(["up", "left"]), TypeError),
    ],
)
def test_bad_actions_raise(actions, error):
    env = py2048.VectorEnv2048(num_envs=2)
    env.reset(seed=0)
    with pytest.raises(error):
        env.step(actions)


def test_bad_settings_raise():
    with pytest.raises(ValueError, match="num_envs"):
        py2048.VectorEnv2048(num_envs=0)
    with pytest.raises(ValueError, match="4x4"):
        py2048.VectorEnv2048(num_envs=2, size=5)
    with pytest.raises(ValueError, match="obs_mode"):
        py2048.VectorEnv2048(num_envs=2, obs_mode="pixels")


def test_reset_mask_resets_only_the_chosen_environments():
    # A training loop resets the episodes that ended and must leave the
    # others as they are.
    env = py2048.VectorEnv2048(num_envs=4, obs_mode="exponents")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        obs, *_ , infos = env.step(rng.integers(0, 4, size=4))
    scores = infos["score"].copy()
    mask = np.array([True, False, True, False])
    new_obs, infos = env.reset(seed=100, options={"reset_mask": mask})
    np.testing.assert_array_equal(new_obs[[1, 3]], obs[[1, 3]])
    assert scores[[1, 3]].all()
    # The others' infos are absent, zeros (as gymnasium batches them).
    assert (infos["score"] == 0).all()
    np.testing.assert_array_equal(infos["_score"], mask)
    # The reset ones start the games their seeds give: 100 + i.
    for i in (0, 2):
        single = py2048.Env2048(obs_mode="exponents")
        np.testing.assert_array_equal(single.reset(seed=100 + i)[0], new_obs[i])
    # gymnasium's checks on the mask.
    for bad, error in [
        ([True] * 4, TypeError),
        (np.ones(3, dtype=bool), ValueError),
        (np.ones(4, dtype=np.int8), TypeError),
        (np.zeros(4, dtype=bool), ValueError),
    ]:
        with pytest.raises(error, match="reset_mask"):
            env.reset(options={"reset_mask": bad})


def test_reset_mask_matches_gymnasium_sync_vector_env():
    mine = py2048.VectorEnv2048(num_envs=3, obs_mode="exponents")
    theirs = gym.vector.SyncVectorEnv(
        [lambda: py2048.Env2048(obs_mode="exponents") for _ in range(3)],
        autoreset_mode=gym.vector.AutoresetMode.NEXT_STEP,
    )
    a, _ = mine.reset(seed=5)
    b, _ = theirs.reset(seed=5)
    np.testing.assert_array_equal(a, b)
    rng = np.random.default_rng(2)
    for t in range(400):
        actions = rng.integers(0, 4, size=3)
        a = mine.step(actions)
        b = theirs.step(actions)
        for x, y in zip(a[:4], b[:4]):
            np.testing.assert_array_equal(x, y)
        for key in ["max", "is_legal", "step_score", "total_score", "illegal_count"]:
            np.testing.assert_array_equal(a[4][key], b[4][key], err_msg=f"{key} at step {t}")
        if t % 50 == 49:
            mask = rng.random(3) < 0.5
            mask[t % 3] = True
            a = mine.reset(seed=t, options={"reset_mask": mask})
            b = theirs.reset(seed=t, options={"reset_mask": mask.copy()})
            np.testing.assert_array_equal(a[0], b[0])
            _same_infos(a[1], b[1], f"the reset after step {t}")


def _same_infos(mine, theirs, where):
    """Ours against SyncVectorEnv's over Env2048: the same keys and values
    (the arrays' masks included), but `board` (the exponents observation
    itself, not in ours) and our `score` (its `total_score`)."""
    theirs = {k: v for k, v in theirs.items() if k not in ("board", "_board")}
    mine = dict(mine)
    for key in ("score", "_score"):
        np.testing.assert_array_equal(mine.pop(key), theirs[key.replace("score", "total_score")])
    assert mine.keys() == theirs.keys(), where
    for key, value in theirs.items():
        if key == "final_obs":
            for i, (x, y) in enumerate(zip(mine[key], value, strict=True)):
                assert (x is None) == (y is None), f"final_obs[{i}] {where}"
                if y is not None:
                    np.testing.assert_array_equal(x, y, err_msg=f"final_obs[{i}] {where}")
        elif key == "final_info":
            _same_infos(mine[key], value, f"final_info {where}")
        else:
            np.testing.assert_array_equal(mine[key], value, err_msg=f"{key} {where}")
            # (the counts were unsigned, ours only).
            assert mine[key].dtype == value.dtype, f"{key}: {mine[key].dtype}, not {value.dtype} {where}"


@pytest.mark.parametrize("mode", list(gym.vector.AutoresetMode))
@pytest.mark.parametrize(
    "obs_mode, illegal_action, limit",
    # Illegal actions end the episode: many short episodes, some cut at the
    # limit (on the very step that ends one, too); else whole games.
    [("exponents", "terminate", 12), ("onehot", "noop", 150)],
)
def test_every_autoreset_mode_steps_as_gymnasiums_sync_vector_env(mode, obs_mode, illegal_action, limit):
    # Code written against gymnasium's vector envs must see the same
    # observations, rewards and ends here, whichever autoreset mode it asks.
    n = 4
    settings = dict(obs_mode=obs_mode, illegal_action=illegal_action)
    mine = py2048.VectorEnv2048(num_envs=n, max_episode_steps=limit, autoreset_mode=mode, **settings)
    theirs = gym.vector.SyncVectorEnv(
        [lambda: gym.wrappers.TimeLimit(py2048.Env2048(**settings), limit) for _ in range(n)],
        autoreset_mode=mode,
    )
    assert mine.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"] == mode
    a, b = mine.reset(seed=3), theirs.reset(seed=3)
    np.testing.assert_array_equal(a[0], b[0])
    _same_infos(a[1], b[1], "after the reset")
    rng = np.random.default_rng(7)
    seen = {"terminated": 0, "truncated": 0, "both": 0}
    for t in range(700):
        actions = rng.integers(0, 4, size=n)
        a, b = mine.step(actions), theirs.step(actions)
        for name, x, y in zip(["obs", "rewards", "terminated", "truncated"], a[:4], b[:4]):
            np.testing.assert_array_equal(x, y, err_msg=f"{name} at step {t}")
        _same_infos(a[4], b[4], f"at step {t}")
        seen["terminated"] += int(a[2].sum())
        seen["truncated"] += int(a[3].sum())
        seen["both"] += int((a[2] & a[3]).sum())
        ended = a[2] | a[3]
        if mode == gym.vector.AutoresetMode.DISABLED and ended.any():
            # Nothing resets itself; a step now would play past the end.
            with pytest.raises(RuntimeError, match=r"ended and autoreset_mode is Disabled"):
                mine.step(actions)
            a = mine.reset(options={"reset_mask": ended.copy()})
            b = theirs.reset(options={"reset_mask": ended.copy()})
            np.testing.assert_array_equal(a[0], b[0])
            _same_infos(a[1], b[1], f"the reset after step {t}")
    assert seen["terminated"] >= 5 and seen["truncated"] >= 5, seen
    if illegal_action == "terminate":
        assert seen["both"] >= 1, seen


def test_autoreset_mode_is_checked_and_reaches_make_vec():
    envs = gym.make_vec(py2048.ENV_ID, num_envs=2, vectorization_mode="vector_entry_point",
                        autoreset_mode="SameStep")
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    # The class's own metadata stays the default.
    assert py2048.VectorEnv2048.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    with pytest.raises(ValueError, match="autoreset_mode must be"):
        py2048.VectorEnv2048(num_envs=2, autoreset_mode="sometimes")


@pytest.mark.parametrize("mode", list(gym.vector.AutoresetMode))
def test_a_pickled_batch_keeps_its_autoreset_mode(mode):
    import pickle

    env = py2048.VectorEnv2048(num_envs=2, autoreset_mode=mode, illegal_action="terminate")
    env.reset(seed=1)
    copy = pickle.loads(pickle.dumps(env))
    assert copy.metadata["autoreset_mode"] == mode
    assert copy._core.__getnewargs__()[-1] == mode.value


def test_infos_carry_gymnasium_2048s_keys():
    env = py2048.VectorEnv2048(num_envs=2, obs_mode="exponents")
    env.reset(seed=0)
    _, rewards, _, _, infos = env.step(np.array([0, 0]))
    for key in ["action_mask", "score", "total_score", "step_score", "max", "is_legal", "illegal_count"]:
        assert infos[key].shape[0] == 2 and infos["_" + key].all()
    np.testing.assert_array_equal(infos["step_score"][infos["is_legal"]], rewards[infos["is_legal"]])
    obs = env.step(np.array([0, 0]))[0]
    assert (env.step(np.array([1, 1]))[4]["max"] >= 1).all() and obs.max() >= 1


def test_a_batch_too_large_is_a_memory_error_not_an_abort():
    # A MemoryError can be caught; an abort ends the interpreter and loses
    # the user's session.
    with pytest.raises(MemoryError, match="fewer environments"):
        py2048.VectorEnv2048(num_envs=10**12)


@pytest.mark.parametrize(
    "obs_mode, n, steps",
    # 1500 environments are stepped in parallel parts (512 or more each).
    [("onehot", 6, 2000), ("exponents", 6, 2000), ("onehot", 1500, 150)],
)
def test_step_into_plays_the_games_step_plays(obs_mode, n, steps):
    # The fast path into caller-owned buffers must play exactly the games
    # step() plays.
    a = py2048.VectorEnv2048(num_envs=n, obs_mode=obs_mode, max_episode_steps=100)
    b = py2048.VectorEnv2048(num_envs=n, obs_mode=obs_mode, max_episode_steps=100)
    a.reset(seed=4)
    b.reset(seed=4)
    out = a.buffers()
    out.obs.fill(7)  # stale values must all be overwritten
    rng = np.random.default_rng(3)
    ends = 0
    for _ in range(steps):
        actions = rng.integers(0, 4, size=n)
        a.step_into(actions, out)
        obs, rewards, terminated, truncated, infos = b.step(actions)
        np.testing.assert_array_equal(out.obs, obs)
        np.testing.assert_array_equal(out.rewards, rewards)
        np.testing.assert_array_equal(out.terminated, terminated)
        np.testing.assert_array_equal(out.truncated, truncated)
        np.testing.assert_array_equal(out.action_mask, infos["action_mask"])
        ends += int(terminated.sum() + truncated.sum())
    assert ends >= 6


def test_step_into_refuses_wrong_buffers():
    env = py2048.VectorEnv2048(num_envs=3)
    env.reset(seed=0)
    good = env.buffers()
    actions = np.zeros(3, dtype=np.int64)
    bad = [
        (dict(obs=np.zeros((3, 4, 4), dtype=np.uint8)), ValueError, "out.obs has shape"),
        (dict(rewards=np.zeros(4)), ValueError, "out.rewards has shape"),
        (dict(action_mask=np.zeros((3, 4, 1), dtype=np.int8)), ValueError, "out.action_mask has shape"),
        (dict(obs=np.zeros((3, 4, 4, 16, 2), dtype=np.uint8)[..., 0]), ValueError, "C-contiguous"),
        (dict(rewards=np.zeros(3, dtype=np.float32)), TypeError, "out.rewards must be .* float64, got float32"),
        (dict(truncated=good.terminated), ValueError, "out.truncated and out.terminated share memory"),
        (dict(terminated=[False] * 3), TypeError, "out.terminated must be a numpy array"),
    ]
    for change, error, match in bad:
        fields = {**good.__dict__, **change}
        with pytest.raises(error, match=match):
            env.step_into(actions, py2048.StepBuffers(**fields))
    with pytest.raises(ValueError, match="action 9"):
        env.step_into(np.array([0, 9, 0]), good)


@pytest.mark.parametrize("obs_mode", ["onehot", "exponents"])
def test_a_pickled_or_copied_batch_plays_on_exactly(obs_mode):
    # Planning code and multiprocessing copy envs, and a copy must go on
    # with the same games.
    import copy
    import pickle

    env = py2048.VectorEnv2048(num_envs=5, obs_mode=obs_mode, max_episode_steps=60)
    env.reset(seed=8)
    rng = np.random.default_rng(1)
    for _ in range(150):
        env.step(rng.integers(0, 4, size=5))
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    actions = [rng.integers(0, 4, size=5) for _ in range(300)]

    def trace(e):
        out = []
        for a in actions:
            obs, rewards, terminated, truncated, infos = e.step(a)
            out.append((obs.tobytes(), rewards.tobytes(), terminated.tobytes(), truncated.tobytes(),
                        infos["score"].tobytes(), infos["illegal_count"].tobytes()))
        return out

    want = trace(env)
    for other in copies:
        assert trace(other) == want
    with pytest.raises(ValueError, match="pickled batch of 5 environments"):
        env._core.__setstate__(b"short")
