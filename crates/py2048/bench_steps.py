"""Steps per second of py2048 or gymnasium-2048, through the gymnasium API.

    python crates/py2048/bench_steps.py py2048
    python crates/py2048/bench_steps.py gymnasium-2048   # in its own venv

Random actions (illegal ones included: both environments treat them as
no-ops), resetting when an episode ends. "single" steps one environment made
by ``gymnasium.make`` (with its default wrappers) and, for py2048, the bare
class; "batched N" steps N boards per call (py2048's VectorEnv2048 through
``make_vec``'s vector entry point; gymnasium-2048's SyncVectorEnv) and counts
N steps per call; "apply_action N" is py2048's afterstate function.
"""

from __future__ import annotations

import sys
import time

import gymnasium as gym
import numpy as np

SECONDS = 2.0


def rate(step, per_call: int) -> float:
    """Calls of ``step`` for about SECONDS, best of three, in steps/s."""
    best = 0.0
    for _ in range(3):
        calls, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < SECONDS / 3:
            for _ in range(50):
                step()
            calls += 50
        best = max(best, calls * per_call / elapsed)
    return best


def single(env: gym.Env) -> float:
    env.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 4, size=1 << 16).tolist()
    i = 0

    def step() -> None:
        nonlocal i
        i = (i + 1) & 0xFFFF
        _, _, terminated, truncated, _ = env.step(actions[i])
        if terminated or truncated:
            env.reset()

    return rate(step, 1)


def batched(envs: gym.vector.VectorEnv, n: int) -> float:
    envs.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 4, size=(64, n))
    i = 0

    def step() -> None:
        nonlocal i
        i = (i + 1) & 63
        envs.step(actions[i])

    return rate(step, n)


def main() -> None:
    which = sys.argv[1] if len(sys.argv) > 1 else "py2048"
    rows: list[tuple[str, float]] = []
    if which == "py2048":
        import py2048

        rows.append(("single, gymnasium.make", single(gym.make(py2048.ENV_ID))))
        rows.append(("single, Env2048()", single(py2048.Env2048())))
        for n in (1, 64, 1024):
            envs = gym.make_vec(py2048.ENV_ID, num_envs=n, vectorization_mode="vector_entry_point")
            rows.append((f"batched {n}", batched(envs, n)))
        for n in (1024, 65536):
            boards = np.random.default_rng(1).integers(0, 2**63, size=n, dtype=np.uint64)
            acts = np.random.default_rng(2).integers(0, 4, size=n)
            rows.append(
                (f"apply_action {n}", rate(lambda b=boards, a=acts: py2048.apply_action(b, a), n))
            )
    elif which == "gymnasium-2048":
        import gymnasium_2048  # noqa: F401  (registers the environment)

        env_id = "gymnasium_2048/TwentyFortyEight-v0"
        rows.append(("single, gymnasium.make", single(gym.make(env_id))))
        for n in (1, 64, 1024):
            envs = gym.make_vec(env_id, num_envs=n, vectorization_mode="sync")
            rows.append((f"batched {n} (SyncVectorEnv)", batched(envs, n)))
    else:
        raise SystemExit(f"usage: {sys.argv[0]} py2048|gymnasium-2048")
    print(f"{which} (gymnasium {gym.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]})")
    for name, steps in rows:
        print(f"  {name:<32} {steps:>14,.0f} steps/s")


if __name__ == "__main__":
    main()
