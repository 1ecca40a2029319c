"""``VectorEnv2048``: N games of 2048 stepped by the Rust engine in one call
(the GIL released), as a gymnasium ``VectorEnv`` with next-step autoreset."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from py2048 import _native, render
from py2048.board import ObsMode, as_actions
from py2048.env import observation_space


class VectorEnv2048(VectorEnv):
    """``num_envs`` 4x4 games of 2048, stepped together.

    The options are :class:`py2048.Env2048`'s (``max_pow``, ``obs_mode``,
    ``four_probability``, ``illegal_action``, ``illegal_penalty``,
    ``render_mode``), plus ``max_episode_steps`` (an episode is truncated
    after that many steps; ``gymnasium.make_vec`` passes the registered
    limit). Autoreset is next-step: the step after an episode ends resets
    that environment, ignores its action, and returns its first observation
    with reward 0.

    ``reset(seed=s)`` seeds environment ``i`` with ``s + i``: it then plays
    exactly the games ``Env2048().reset(seed=s + i)`` plays, episode after
    episode. ``infos["action_mask"]`` is ``(num_envs, 4)`` int8 and
    ``infos["score"]`` each game's score.
    """

    metadata = {
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": ["ansi", "rgb_array"],
    }

    def __init__(
        self,
        num_envs: int = 1,
        render_mode: str | None = None,
        size: int = 4,
        max_pow: int = 16,
        obs_mode: ObsMode = "onehot",
        four_probability: float = 0.1,
        illegal_action: str = "noop",
        illegal_penalty: float = 1.0,
        max_episode_steps: int | None = None,
    ) -> None:
        if size != 4:
            raise ValueError(f"the batched environment plays 4x4 boards only, not {size}x{size}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}"
            )
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise TypeError(f"num_envs must be an int, got {type(num_envs).__name__}")
        self._core = _native.VecCore(
            int(num_envs), float(four_probability), obs_mode, int(max_pow),
            illegal_action, float(illegal_penalty),
            None if max_episode_steps is None else int(max_episode_steps),
        )
        self.num_envs = int(num_envs)
        self.render_mode = render_mode
        self.single_observation_space = observation_space(4, obs_mode, int(max_pow))
        self.single_action_space = spaces.Discrete(4)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._seeded = False

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[npt.NDArray[np.uint8], dict[str, Any]]:
        n = self.num_envs
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            super().reset(seed=int(seed))
            self._core.seed([int(seed) + i for i in range(n)])
            self._seeded = True
        elif seed is not None:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"{len(seeds)} seeds for {n} environments")
            super().reset(seed=None)
            self._core.seed(
                [int(self.np_random.integers(0, 2**63)) if s is None else int(s) for s in seeds]
            )
            self._seeded = True
        else:
            super().reset(seed=None)
            if not self._seeded:
                self._core.seed([int(s) for s in self.np_random.integers(0, 2**63, size=n)])
                self._seeded = True
        obs, _, _, _, masks, scores = self._core.reset()
        return obs, self._infos(masks, scores)

    def step(
        self, actions: Any
    ) -> tuple[
        npt.NDArray[np.uint8],
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        a = as_actions(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(
                f"expected one action per environment, shape ({self.num_envs},), got {a.shape}"
            )
        obs, rewards, terminated, truncated, masks, scores = self._core.step(a)
        return obs, rewards, terminated, truncated, self._infos(masks, scores)

    def _infos(self, masks: npt.NDArray[np.int8], scores: npt.NDArray[np.uint64]) -> dict[str, Any]:
        n = self.num_envs
        return {
            "action_mask": masks,
            "_action_mask": np.ones(n, dtype=np.bool_),
            "score": scores,
            "_score": np.ones(n, dtype=np.bool_),
        }

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Which actions change each board now: ``(num_envs, 4)`` booleans."""
        return self._core.masks().astype(np.bool_)

    @property
    def boards(self) -> npt.NDArray[np.uint64]:
        """The packed boards, one per environment (a copy); a ``ValueError``
        once a board holds a tile past 32768, which a ``uint64`` cannot."""
        return self._core.boards()

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode is None:
            return None
        exps = _native.encode(self._core.boards(), "exponents", 16)
        if self.render_mode == "ansi":
            return tuple(render.ansi(e) for e in exps)
        return tuple(render.rgb(e) for e in exps)
