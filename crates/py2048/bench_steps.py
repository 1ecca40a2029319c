"""Steps per second of py2048 and of the 2048 environments its users compare
it with, measured in one process, in interleaved rounds, with the ratios
printed from the same run.

    python crates/py2048/bench_steps.py [--rounds 3] [--seconds 1.0]

Measured: py2048 (always); gymnasium-2048, stable-baselines3's DummyVecEnv,
pgx and jumanji when they are installed (each row says when one is not).
Every row plays random actions (illegal ones included), resetting when an
episode ends where the API does so; a row's figure is the median of its
rounds, each about ``--seconds`` long, the rows taken in turn in every round
so that a change of load hits all of them alike.

- "single": one environment made by ``gymnasium.make`` (its default wrappers
  included), and py2048's bare ``Env2048``;
- "batched N": N boards per call, counting N steps per call: py2048's
  ``VectorEnv2048`` (``step``, and ``step_into`` caller-owned buffers),
  gymnasium-2048 under gymnasium's ``SyncVectorEnv``; py2048's
  ``SB3VecEnv2048`` against SB3's ``DummyVecEnv`` over ``Env2048``;
- pgx and jumanji: their 2048 ``step`` under ``jax.jit(jax.vmap(...))`` on
  the CPU, N states per call (compiled before timing; no reset, as their
  step leaves an ended game as it is);
- "apply_action N": py2048's afterstate function.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import py2048


def timed(step: Callable[[], None], per_call: int, seconds: float) -> float:
    """Calls of ``step`` for about ``seconds``, in steps/s."""
    step()
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(10):
            step()
        calls += 10
    return calls * per_call / elapsed


def single(env: gym.Env) -> tuple[Callable[[], None], int]:
    env.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 4, size=1 << 16).tolist()
    i = 0

    def step() -> None:
        nonlocal i
        i = (i + 1) & 0xFFFF
        _, _, terminated, truncated, _ = env.step(actions[i])
        if terminated or truncated:
            env.reset()

    return step, 1


def vector(envs, n: int, sb3: bool = False) -> tuple[Callable[[], None], int]:
    if sb3:
        envs.seed(0)
        envs.reset()
    else:
        envs.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 4, size=(64, n))
    i = 0

    def step() -> None:
        nonlocal i
        i = (i + 1) & 63
        envs.step(actions[i])

    return step, n


def into(n: int, obs_mode: str) -> tuple[Callable[[], None], int]:
    envs = py2048.VectorEnv2048(num_envs=n, obs_mode=obs_mode)
    envs.reset(seed=0)
    out = envs.buffers()
    actions = np.random.default_rng(0).integers(0, 4, size=(64, n))
    i = 0

    def step() -> None:
        nonlocal i
        i = (i + 1) & 63
        envs.step_into(actions[i], out)

    return step, n


def apply_action(n: int) -> tuple[Callable[[], None], int]:
    rng = np.random.default_rng(1)
    boards = py2048.pack(rng.integers(0, 15, size=(n, 4, 4)))
    acts = rng.integers(0, 4, size=n)
    return (lambda: py2048.apply_action(boards, acts)), n


def jax_env(which: str, n: int) -> tuple[Callable[[], None], int]:
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    keys = jax.random.split(key, n)
    if which == "pgx":
        import pgx

        env = pgx.make("2048")
        init, step_fn = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
        state = init(keys)

        def advance(state, actions):
            return step_fn(state, actions, keys)
    else:
        import jumanji

        env = jumanji.make("Game2048-v1")
        reset_fn, step_fn = jax.jit(jax.vmap(env.reset)), jax.jit(jax.vmap(env.step))
        state, _ = reset_fn(keys)

        def advance(state, actions):
            return step_fn(state, actions)[0]

    actions = [jnp.asarray(a) for a in np.random.default_rng(0).integers(0, 4, size=(16, n))]
    box = [state]
    i = 0

    def step() -> None:
        nonlocal i
        i = (i + 1) & 15
        box[0] = advance(box[0], actions[i])
        jax.block_until_ready(box[0])

    return step, n


def rows(batch: int) -> list[tuple[str, str, Callable[[], tuple[Callable[[], None], int]]]]:
    """(group, name, maker) of every row that can run here."""
    out = [
        ("single", "py2048, gymnasium.make", lambda: single(gym.make(py2048.ENV_ID))),
        ("single", "py2048, Env2048()", lambda: single(py2048.Env2048())),
    ]
    have = {m: importlib.util.find_spec(m) is not None for m in
            ["gymnasium_2048", "stable_baselines3", "pgx", "jumanji"]}
    if have["gymnasium_2048"]:
        importlib.import_module("gymnasium_2048")
        gid = "gymnasium_2048/TwentyFortyEight-v0"
        out.append(("single", "gymnasium-2048, gymnasium.make", lambda: single(gym.make(gid))))
    for n in (64, batch):
        out.append((f"batched {n}", "py2048 VectorEnv2048.step", lambda n=n: vector(
            gym.make_vec(py2048.ENV_ID, num_envs=n, vectorization_mode="vector_entry_point"), n)))
        out.append((f"batched {n}", "py2048 step_into, one-hot", lambda n=n: into(n, "onehot")))
        out.append((f"batched {n}", "py2048 step_into, exponents", lambda n=n: into(n, "exponents")))
        if have["gymnasium_2048"] and n == 64:
            out.append((f"batched {n}", "gymnasium-2048, SyncVectorEnv", lambda n=n: vector(
                gym.make_vec(gid, num_envs=n, vectorization_mode="sync"), n)))
        if have["stable_baselines3"] and n == 64:
            from stable_baselines3.common.vec_env import DummyVecEnv

            from py2048.sb3 import SB3VecEnv2048

            out.append((f"batched {n}", "py2048 SB3VecEnv2048", lambda n=n: vector(
                SB3VecEnv2048(num_envs=n), n, sb3=True)))
            out.append((f"batched {n}", "SB3 DummyVecEnv(Env2048)", lambda n=n: vector(
                DummyVecEnv([py2048.Env2048] * n), n, sb3=True)))
        for lib in ("pgx", "jumanji"):
            if have[lib]:
                out.append((f"batched {n}", f"{lib}, jit(vmap(step)) on CPU",
                            lambda lib=lib, n=n: jax_env(lib, n)))
    out.append((f"batched {batch}", "py2048 apply_action", lambda: apply_action(batch)))
    missing = [m for m, ok in have.items() if not ok]
    if missing:
        print(f"not installed, not measured: {', '.join(missing)}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--batch", type=int, default=4096)
    args = parser.parse_args()
    table = rows(args.batch)
    steps = [maker() for _, _, maker in table]
    rates: list[list[float]] = [[] for _ in table]
    for _ in range(args.rounds):
        for k, (step, per_call) in enumerate(steps):
            rates[k].append(timed(step, per_call, args.seconds))
    versions = ", ".join(
        f"{m} {importlib.import_module(m).__version__}"
        for m in ["gymnasium", "numpy"] + [m for m in ["gymnasium_2048", "jax", "pgx", "jumanji", "stable_baselines3"]
                                          if importlib.util.find_spec(m)]
        if hasattr(importlib.import_module(m), "__version__")
    )
    print(f"Python {platform.python_version()}, {versions}; {os.cpu_count()} CPUs, {platform.machine()}")
    print(f"median of {args.rounds} interleaved rounds of {args.seconds} s; steps per second")
    medians = [statistics.median(r) for r in rates]
    for (group, name, _), med, r in zip(table, medians, rates):
        others = [m for (g, nm, _), m in zip(table, medians) if g == group and not nm.startswith("py2048")]
        ratio = f"  {med / max(others):6.1f}x the best other" if others and name.startswith("py2048") else ""
        print(f"  {group:<12} {name:<34} {med:>14,.0f}   (rounds {min(r):,.0f} to {max(r):,.0f}){ratio}")


if __name__ == "__main__":
    sys.exit(main())
