"""``SB3VecEnv2048``: N games of 2048 stepped by the Rust engine in one call,
as a stable-baselines3 ``VecEnv`` (SB3's own vector API, which gymnasium's
``VectorEnv`` is not), with ``action_masks()`` for sb3-contrib's
MaskablePPO.

It behaves as SB3's ``DummyVecEnv`` over :class:`py2048.Env2048` does, step
for step: same-step autoreset (an episode that ends is reset at once, its
last observation in ``infos[i]["terminal_observation"]``), float32 rewards,
``infos[i]["TimeLimit.truncated"]``, and ``seed(s)`` giving environment
``i`` the games of ``Env2048().reset(seed=s + i)``.

Needs ``stable-baselines3`` (``pip install "py2048[sb3]"``)::

    from sb3_contrib import MaskablePPO
    from py2048.sb3 import SB3VecEnv2048

    model = MaskablePPO("MlpPolicy", SB3VecEnv2048(num_envs=64), n_steps=128)
    model.learn(100_000)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices
except ImportError as err:  # pragma: no cover - depends on the install
    raise ImportError(
        "py2048.sb3 needs stable-baselines3: pip install 'py2048[sb3]'"
        " (or pip install stable-baselines3)"
    ) from err

from py2048 import render
from py2048.board import ObsMode, as_actions, whole
from py2048.env import observation_space
from py2048.vector import batch_core

__all__ = ["SB3VecEnv2048"]


class SB3VecEnv2048(VecEnv):
    """``num_envs`` 4x4 games as a stable-baselines3 ``VecEnv``.

    The options are :class:`py2048.Env2048`'s (``max_pow``, ``obs_mode``,
    ``four_probability``, ``illegal_action``, ``illegal_penalty``,
    ``render_mode``: ``"rgb_array"`` or ``None``), plus
    ``max_episode_steps`` (truncation, reported as SB3's
    ``TimeLimit.truncated``). Under the default ``illegal_action="noop"``
    an agent that keeps choosing an illegal action never ends its episode:
    mask the actions (MaskablePPO) or set ``max_episode_steps``.
    """

    def __init__(
        self,
        num_envs: int = 1,
        render_mode: str | None = None,
        max_pow: int = 16,
        obs_mode: ObsMode = "onehot",
        four_probability: float = 0.1,
        illegal_action: str = "noop",
        illegal_penalty: float = 1.0,
        max_episode_steps: int | None = None,
    ) -> None:
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self._core = batch_core(
            num_envs, max_pow, obs_mode, four_probability, illegal_action,
            illegal_penalty, max_episode_steps, autoreset=AutoresetMode.SAME_STEP,
        )
        self._render_mode = render_mode
        self._seeded = False
        self._actions: npt.NDArray[np.int64] | None = None
        space = observation_space(4, obs_mode, int(max_pow))
        super().__init__(len(self._core), space, spaces.Discrete(4))

    def reset(self) -> npt.NDArray[np.uint8]:
        if any(s is not None for s in self._seeds):
            self._core.seed([None if s is None else whole(s, "seed") for s in self._seeds])
            self._seeded = True
        elif not self._seeded:
            rng = np.random.default_rng()
            self._core.seed([int(s) for s in rng.integers(0, 2**63, size=self.num_envs)])
            self._seeded = True
        obs = self._core.reset(None)[0]
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: npt.NDArray[Any]) -> None:
        a = as_actions(actions).reshape(-1)
        if a.shape != (self.num_envs,):
            raise ValueError(
                f"expected one action per environment, shape ({self.num_envs},), got {a.shape}"
            )
        self._actions = a

    def step_wait(
        self,
    ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32], npt.NDArray[np.bool_], list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions) first")
        obs, rewards, terminated, truncated, _, (ended, last_obs, finals) = self._core.step(
            self._actions
        )
        last_scores = finals[1]
        self._actions = None
        dones = terminated | truncated
        late = truncated & ~terminated
        infos: list[dict[str, Any]] = [{"TimeLimit.truncated": bool(t)} for t in late]
        for k, i in enumerate(ended.tolist()):
            infos[i]["terminal_observation"] = last_obs[k]
            infos[i]["score"] = int(last_scores[k])
            self.reset_infos[i] = {}
        return obs, rewards.astype(np.float32), dones, infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Which actions change each board now: ``(num_envs, 4)`` booleans."""
        return self._core.masks().astype(np.bool_)

    def _mask_of(self, i: int) -> npt.NDArray[np.bool_]:
        return self.action_masks()[i]

    def close(self) -> None:
        pass

    def get_images(self) -> Sequence[npt.NDArray[np.uint8] | None]:
        if self._render_mode != "rgb_array":
            return [None] * self.num_envs
        scores = self._core.scores().tolist()
        return [render.rgb(e, s) for e, s in zip(self._core.exponents(), scores)]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        n = len(self._indices(indices))
        if attr_name == "render_mode":
            return [self._render_mode] * n
        if attr_name in ("observation_space", "action_space"):
            return [getattr(self, attr_name)] * n
        if attr_name == "action_masks":
            # Each environment's bound method, as DummyVecEnv gives them
            # (sb3-contrib looks for it to tell that masking is supported).
            return [functools.partial(self._mask_of, i) for i in self._indices(indices)]
        raise AttributeError(f"SB3VecEnv2048's environments have no attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"SB3VecEnv2048's environments have no settable attribute {attr_name!r}")

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        # sb3-contrib asks each environment for its mask this way.
        if method_name == "action_masks" and not method_args and not method_kwargs:
            masks = self.action_masks()
            return [masks[i] for i in self._indices(indices)]
        raise AttributeError(f"SB3VecEnv2048's environments have no method {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices if isinstance(indices, Iterable) else [indices])
