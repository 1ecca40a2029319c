"""``VectorEnv2048``: N games of 2048 stepped by the Rust engine in one call
(the GIL released), as a gymnasium ``VectorEnv`` under any of gymnasium's
autoreset modes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from py2048 import _native, render
from py2048.board import ObsMode, as_actions, whole
from py2048.env import observation_space


def batch_core(
    num_envs: Any,
    max_pow: Any,
    obs_mode: str,
    four_probability: float,
    illegal_action: str,
    illegal_penalty: float,
    max_episode_steps: Any,
    *,
    autoreset: AutoresetMode,
) -> Any:
    """The native batch behind :class:`VectorEnv2048` and
    ``py2048.sb3.SB3VecEnv2048`` (same-step autoreset), its settings
    checked."""
    if max_episode_steps is not None:
        max_episode_steps = whole(max_episode_steps, "max_episode_steps", minimum=1)
    return _native.VecCore(
        whole(num_envs, "num_envs", minimum=1), float(four_probability), obs_mode,
        whole(max_pow, "max_pow"), illegal_action, float(illegal_penalty),
        max_episode_steps, autoreset.value,
    )


def _autoreset_mode(mode: Any) -> AutoresetMode:
    """``mode`` as gymnasium's ``AutoresetMode`` (which it may be, or name by
    its value, as ``SyncVectorEnv`` reads it)."""
    if isinstance(mode, AutoresetMode):
        return mode
    try:
        return AutoresetMode(mode)
    except ValueError:
        names = ", ".join(repr(m.value) for m in AutoresetMode)
        raise ValueError(
            f"autoreset_mode must be a gymnasium.vector.AutoresetMode or one of {names},"
            f" got {mode!r}"
        ) from None


@dataclass(frozen=True)
class StepBuffers:
    """Arrays a batched step writes into (:meth:`VectorEnv2048.step_into`):
    the caller owns them and reads them after each step."""

    #: The observations, the batch's observation shape, uint8.
    obs: npt.NDArray[np.uint8]
    #: The rewards, float64.
    rewards: npt.NDArray[np.float64]
    #: Which episodes ended.
    terminated: npt.NDArray[np.bool_]
    #: Which episodes were cut at ``max_episode_steps``.
    truncated: npt.NDArray[np.bool_]
    #: Which actions change each board now, ``(num_envs, 4)`` int8.
    action_mask: npt.NDArray[np.int8]


class VectorEnv2048(VectorEnv):
    """``num_envs`` 4x4 games of 2048, stepped together.

    The options are :class:`py2048.Env2048`'s (``max_pow``, ``obs_mode``,
    ``four_probability``, ``illegal_action``, ``illegal_penalty``,
    ``render_mode``), plus ``max_episode_steps`` (an episode is truncated
    after that many steps; ``gymnasium.make_vec`` passes the registered
    limit) and ``autoreset_mode``, gymnasium's ``AutoresetMode`` or its
    value, with ``SyncVectorEnv``'s meaning:

    - ``NEXT_STEP`` (the default): the step after an episode ends resets
      that environment, ignores its action, and returns its first
      observation with reward 0;
    - ``SAME_STEP``: the step that ends an episode resets it at once and
      returns the new episode's first observation and infos; the ended
      episode's last observation and infos are in ``infos["final_obs"]``
      (an object array, ``None`` for the others) and ``infos["final_info"]``
      (a dict of batched infos), marked in ``infos["_final_obs"]`` and
      ``infos["_final_info"]``;
    - ``DISABLED``: nothing resets itself: ``reset(options={"reset_mask":
      m})`` resets the ended environments, and a step while one has ended
      and not been reset raises a ``RuntimeError``.

    ``reset(seed=s)`` seeds environment ``i`` with ``s + i``: it then plays
    exactly the games ``Env2048().reset(seed=s + i)`` plays, episode after
    episode. ``reset(options={"reset_mask": m})`` resets only the
    environments ``m`` (a boolean array) selects, as gymnasium's vector API
    does; the others go on.

    ``infos`` holds, per environment: ``action_mask`` (``(num_envs, 4)``
    int8), ``score`` and ``total_score`` (each game's score), ``step_score``
    (what the last action gained), ``max`` (the largest exponent),
    ``is_legal`` and ``illegal_count`` (gymnasium-2048's keys; its
    ``board`` is the observation itself with ``obs_mode="exponents"``, or
    :func:`py2048.unpack` of :attr:`boards`). The numbers are int64 and
    ``is_legal`` bool, the dtypes ``SyncVectorEnv`` gives a single
    environment's ``info``.
    """

    #: The class's; each batch's ``metadata["autoreset_mode"]`` is its own.
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
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    ) -> None:
        if size != 4:
            raise ValueError(f"the batched environment plays 4x4 boards only, not {size}x{size}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}"
            )
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self._core = batch_core(
            num_envs, max_pow, obs_mode, four_probability, illegal_action,
            illegal_penalty, max_episode_steps, autoreset=self.autoreset_mode,
        )
        self.num_envs = len(self._core)
        self.render_mode = render_mode
        self.single_observation_space = observation_space(4, obs_mode, int(max_pow))
        self.single_action_space = spaces.Discrete(4)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._seeded = False
        self._checked: StepBuffers | None = None

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[npt.NDArray[np.uint8], dict[str, Any]]:
        n = self.num_envs
        mask = _reset_mask(options, n)
        chosen = [True] * n if mask is None else [bool(m) for m in mask]
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            first = whole(seed, "seed")
            if first + n - 1 >= 2**64:
                raise ValueError(
                    f"seed must be at most 2**64 - num_envs = {2**64 - n}, as environment i"
                    f" plays seed + i, got {first}"
                )
            super().reset(seed=first)
            self._core.seed([first + i if c else None for i, c in enumerate(chosen)])
            self._seeded = True
        elif seed is not None:
            given = list(seed)
            if len(given) != n:
                raise ValueError(f"{len(given)} seeds for {n} environments")
            super().reset(seed=None)
            self._core.seed(
                [
                    None if not c
                    else int(self.np_random.integers(0, 2**63)) if s is None
                    else whole(s, "seed")
                    for s, c in zip(given, chosen)
                ]
            )
            self._seeded = True
        else:
            super().reset(seed=None)
            if not self._seeded:
                self._core.seed([int(s) for s in self.np_random.integers(0, 2**63, size=n)])
                self._seeded = True
        out = self._core.reset(None if mask is None else chosen)
        return out[0], self._infos(out[4], None if mask is None else mask)

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
        out = self._core.step(a)
        infos = self._infos(out[4], None)
        ended, final_obs, final_infos = out[5]
        if len(ended):
            # SyncVectorEnv's same-step form: the ended episodes' last
            # observations one by one, their infos batched with masks.
            present = np.zeros(self.num_envs, dtype=np.bool_)
            present[ended.astype(np.intp)] = True
            observations = np.full(self.num_envs, None, dtype=object)
            for k, i in enumerate(ended.tolist()):
                observations[i] = final_obs[k]
            infos["final_obs"], infos["_final_obs"] = observations, present
            rows = ended.astype(np.intp)
            infos["final_info"] = self._infos(
                tuple(_scatter(v, rows, self.num_envs) for v in final_infos), present
            )
            infos["_final_info"] = present.copy()
        return out[0], out[1], out[2], out[3], infos

    def buffers(self) -> StepBuffers:
        """New arrays for :meth:`step_into`, of this batch's shapes."""
        n = self.num_envs
        return StepBuffers(
            obs=np.zeros(self.observation_space.shape, dtype=np.uint8),
            rewards=np.zeros(n, dtype=np.float64),
            terminated=np.zeros(n, dtype=np.bool_),
            truncated=np.zeros(n, dtype=np.bool_),
            action_mask=np.zeros((n, 4), dtype=np.int8),
        )

    def step_into(self, actions: Any, out: StepBuffers) -> None:
        """:meth:`step` without infos, writing into ``out`` (from
        :meth:`buffers`) instead of new arrays: the fast path for a training
        loop that reads the observations into its own batch. The games,
        autoreset and rewards are :meth:`step`'s."""
        a = as_actions(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(
                f"expected one action per environment, shape ({self.num_envs},), got {a.shape}"
            )
        if out is not self._checked:
            self._check_buffers(out)
            self._checked = out
        self._core.step_into(
            a, out.obs, out.rewards, out.terminated, out.truncated, out.action_mask
        )

    def _check_buffers(self, out: StepBuffers) -> None:
        """A ``TypeError`` or ``ValueError`` naming the first array of ``out``
        that :meth:`step_into` cannot write (checked once per buffers)."""
        if not isinstance(out, StepBuffers):
            raise TypeError(f"out must be StepBuffers (from buffers()), got {type(out).__name__}")
        n = self.num_envs
        want = {
            "obs": (self.observation_space.shape, np.uint8),
            "rewards": ((n,), np.float64),
            "terminated": ((n,), np.bool_),
            "truncated": ((n,), np.bool_),
            "action_mask": ((n, 4), np.int8),
        }
        arrays = []
        for name, (shape, dtype) in want.items():
            arr = getattr(out, name)
            if not isinstance(arr, np.ndarray) or arr.dtype != dtype:
                got = arr.dtype if isinstance(arr, np.ndarray) else type(arr).__name__
                raise TypeError(f"out.{name} must be a numpy array of {np.dtype(dtype)}, got {got}")
            if arr.shape != shape:
                raise ValueError(f"out.{name} has shape {arr.shape}, expected {shape}")
            if not arr.flags.c_contiguous or not arr.flags.writeable:
                raise ValueError(f"out.{name} must be C-contiguous and writeable")
            for other_name, other in arrays:
                if np.may_share_memory(arr, other):
                    raise ValueError(f"out.{name} and out.{other_name} share memory")
            arrays.append((name, arr))

    def _infos(
        self, values: tuple[Any, ...], present: npt.NDArray[np.bool_] | None
    ) -> dict[str, Any]:
        """The batched infos of a step or reset; ``present`` marks the
        environments that have them (all when ``None``): the others' entries
        are zeros, as gymnasium batches infos some environments lack."""
        if present is None:
            present = np.ones(self.num_envs, dtype=np.bool_)
        else:
            values = tuple(
                np.where(present.reshape(-1, *([1] * (v.ndim - 1))), v, 0).astype(v.dtype)
                for v in values
            )
        masks, scores, legal, gained, top, illegal = values
        infos: dict[str, Any] = {}
        for key, value in (
            ("action_mask", masks),
            ("score", scores),
            ("total_score", scores.copy()),
            ("step_score", gained),
            ("max", top),
            ("is_legal", legal),
            ("illegal_count", illegal),
        ):
            infos[key] = value
            infos["_" + key] = present.copy()
        return infos

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
        exps, scores = self._core.exponents(), self._core.scores().tolist()
        if self.render_mode == "ansi":
            return tuple(render.ansi(e, s) for e, s in zip(exps, scores))
        return tuple(render.rgb(e, s) for e, s in zip(exps, scores))


def _scatter(values: npt.NDArray[Any], rows: npt.NDArray[np.intp], n: int) -> npt.NDArray[Any]:
    """``values`` (one per row of ``rows``) in an array of ``n`` rows, the
    others zeros."""
    out = np.zeros((n, *values.shape[1:]), dtype=values.dtype)
    out[rows] = values
    return out


def _reset_mask(options: dict[str, Any] | None, n: int) -> npt.NDArray[np.bool_] | None:
    """``options["reset_mask"]`` checked as gymnasium's vector environments
    check it, or ``None`` when there is none."""
    if not options or "reset_mask" not in options:
        return None
    mask = options["reset_mask"]
    if not isinstance(mask, np.ndarray):
        raise TypeError(f"options['reset_mask'] must be a numpy array, got {type(mask).__name__}")
    if mask.shape != (n,):
        raise ValueError(f"options['reset_mask'] must have shape ({n},), got {mask.shape}")
    if mask.dtype != np.bool_:
        raise TypeError(f"options['reset_mask'] must have dtype bool, got {mask.dtype}")
    if not mask.any():
        raise ValueError("options['reset_mask'] must select at least one environment")
    return mask
