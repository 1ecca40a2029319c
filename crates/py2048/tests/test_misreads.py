"""Inputs that used to be misread or crash: each is refused with the
exception the docs promise, or read right.
"""

import os

import numpy as np
import pytest

import py2048


def test_an_integer_array_that_is_not_one_hot_is_refused():
    onehot = py2048.encode(py2048.pack(py2048.parse_board("2 0 0 0/0 4 0 0/0 0 0 0/0 0 0 2")))
    assert py2048.decide(onehot, preset="fast").action in range(4)
    for bad in [onehot * 3, np.zeros((4, 4, 16), dtype=np.uint8), onehot + onehot[..., ::-1]]:
        with pytest.raises(ValueError, match="one-hot"):
            py2048.decide(bad, preset="fast")
    # A float one-hot that is really one is fine; one that is not is refused.
    assert py2048.format_board(onehot.astype(np.float32)) == "2 0 0 0/0 4 0 0/0 0 0 0/0 0 0 2"
    with pytest.raises(ValueError, match="one-hot"):
        py2048.format_board(onehot * 0.5)


def test_tile_values_are_not_read_as_exponents_past_the_largest_tile():
    values = np.array([[2, 4, 8, 16], [32, 64, 128, 256], [0] * 4, [0] * 4])
    with pytest.raises(ValueError, match="0 \\(empty\\) to 17.*tile values\\? pass py2048.from_tiles"):
        py2048.decide(values, preset="fast")
    exps = py2048.from_tiles(values)
    assert exps.dtype == np.uint8 and exps[0].tolist() == [1, 2, 3, 4]
    assert py2048.format_board(exps) == "2 4 8 16/32 64 128 256/0 0 0 0/0 0 0 0"
    assert py2048.from_tiles([[0, 2**25]]).tolist() == [[0, 25]]
    for bad in [3, 1, -2, 2**26]:
        with pytest.raises(ValueError, match=f"{bad} at \\(0, 1\\) is not a tile value"):
            py2048.from_tiles([[2, bad]])
    # A 3x3 board holds at most a 1024 (exponent 10).
    with pytest.raises(ValueError, match="3x3 board are 0 \\(empty\\) to 10"):
        py2048.format_board(np.full((3, 3), 11))


def test_value_of_a_board_that_is_not_4x4_is_refused():
    if not os.path.isfile(py2048.SHIPPED_WEIGHTS):
        pytest.skip("no shipped weights in this checkout")
    with pytest.raises(ValueError, match="4x4 boards, not 5x5"):
        py2048.value(np.ones((5, 5), dtype=np.uint8))
    one = py2048.value(np.ones((4, 4), dtype=np.uint8))
    assert isinstance(one, float)
    # Packed boards of any shape still give one value each.
    packed = py2048.pack(np.ones((3, 4, 4), dtype=np.uint8))
    assert py2048.value(packed).shape == (3,)
    assert py2048.value(np.array([[packed[0]] * 2] * 2, dtype=np.uint64)).shape == (2, 2)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: py2048.Env2048(size=-1), "size"),
        (lambda: py2048.Env2048(max_pow=-3), "max_pow"),
        (lambda: py2048.VectorEnv2048(num_envs=-1), "num_envs"),
        (lambda: py2048.VectorEnv2048(num_envs=0), "num_envs"),
        (lambda: py2048.VectorEnv2048(num_envs=2, max_episode_steps=-5), "max_episode_steps"),
        (lambda: py2048.VectorEnv2048(num_envs=2).reset(seed=[1, -1]), "seed"),
        (lambda: py2048.Solver("fast", time_ms=-1), "time_ms"),
        (lambda: py2048.Solver("fast", depth=-2), "depth"),
        (lambda: py2048.Solver("fast", threads=-1), "threads"),
        (lambda: py2048.Solver("fast", threads=0), "threads"),
        (lambda: py2048.decide("2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2", "fast", threads=10000), "threads"),
    ],
)
def test_negative_or_huge_settings_are_value_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_more_threads_than_cores_warns():
    with pytest.warns(RuntimeWarning, match="more than this machine"):
        py2048.Solver("fast", threads=py2048.solver.MAX_THREADS)
    assert py2048.solver.MAX_THREADS == 256


def test_bools_are_not_actions():
    # The docs say a bool is no action; were it an int, step(True) would
    # play "right" and hide a bug in the caller.
    env = py2048.Env2048()
    env.reset(seed=0)
    for bad in [True, False, np.True_]:
        with pytest.raises(TypeError, match="an action is one integer 0 to 3"):
            env.step(bad)
        with pytest.raises(TypeError, match="an action is one integer 0 to 3"):
            py2048.Env2048.apply_action(np.zeros((4, 4), dtype=np.uint8), bad)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: py2048.encode(np.zeros(2, dtype=np.uint64), max_pow=-1), "max_pow"),
        (lambda: py2048.encode(np.zeros(2, dtype=np.uint64), max_pow=2**70), "max_pow"),
        (lambda: _env().step(2**70), "action 1180591620717411303424"),
        (lambda: _env().step(-2**70), "is not one of 0"),
        (lambda: py2048.Env2048.apply_action(np.zeros((4, 4), dtype=np.uint8), 2**70), "is not one of"),
        (lambda: py2048.Env2048().reset(seed=2**70), "seed"),
        (lambda: py2048.Env2048().reset(seed=-1), "seed"),
        (lambda: py2048.VectorEnv2048(num_envs=2).reset(seed=2**64 - 1), "at most 2\\*\\*64 - num_envs"),
        (lambda: py2048.VectorEnv2048(num_envs=2).reset(seed=[1, 2**64]), "seed"),
        # These were TypeErrors (numpy keeps such an
        # int as an object, which no integer array holds).
        (lambda: py2048.apply_action(0, 2**70), "action 1180591620717411303424 is not one of"),
        (lambda: py2048.apply_action(0, -2**70), "is not one of 0"),
        (lambda: py2048.apply_action([0, 0], [2**64 - 1, -1]), "is not one of 0"),
        (lambda: py2048.apply_action(2**70, 0), "packed uint64 boards"),
        (lambda: py2048.apply_action([1, 2**64], 0), "packed uint64 boards .* got 18446744073709551616"),
        (lambda: _vec().step([2**70, 0]), "action 1180591620717411303424 is not one of"),
        (lambda: _vec().step_into([0, 2**70], _vec().buffers()), "action 1180591620717411303424"),
        (lambda: py2048.decide(2**70), "packed uint64 boards"),
        (lambda: py2048.legal_actions(2**70), "packed uint64 boards"),
        (lambda: py2048.Env2048.apply_action(2**70, 0), "packed uint64 boards"),
    ],
)
def test_integers_out_of_range_are_value_errors_not_overflow_errors(call, match):
    # A value out of range is a ValueError, as the docs promise, whatever
    # its size: callers catch that, not the binding's OverflowError.
    with pytest.raises(ValueError, match=match):
        call()


def _env():
    env = py2048.Env2048()
    env.reset(seed=0)
    return env


def _vec():
    env = py2048.VectorEnv2048(num_envs=2)
    env.reset(seed=0)
    return env


def test_the_last_seeds_of_a_batch_still_work():
    env = py2048.VectorEnv2048(num_envs=2, obs_mode="exponents")
    obs, _ = env.reset(seed=2**64 - 2)
    single = py2048.Env2048(obs_mode="exponents")
    np.testing.assert_array_equal(obs[1], single.reset(seed=2**64 - 1)[0])


@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_a_batch_renders_past_32768(render_mode):
    # A batch whose first board holds a 65536 (put there through its
    # pickled state, as a copy of a long game would be) renders it, not a
    # crash or a capped tile.
    env = py2048.VectorEnv2048(num_envs=2, render_mode=render_mode)
    env.reset(seed=0)
    state = bytearray(env._core.__getstate__())
    state[48] = 16  # environment 0's cell (0, 0): exponent 16
    env._core.__setstate__(bytes(state))
    frames = env.render()
    assert len(frames) == 2
    if render_mode == "ansi":
        assert " 65536 " in frames[0]
    else:
        assert frames[0].shape == (460, 400, 3) and not np.array_equal(frames[0], frames[1])
