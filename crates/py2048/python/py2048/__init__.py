"""py2048: 2048 for reinforcement learning, on a Rust engine.

- :class:`Env2048`: one game as a ``gymnasium.Env`` (gymnasium-2048's
  conventions: actions 0 up, 1 right, 2 down, 3 left; one-hot observations;
  reward = merged tile sum), with action masks and illegal-action modes.
- :class:`VectorEnv2048`: N games stepped in one Rust call.
- :func:`apply_action`: batched afterstates for n-tuple learners.
- :func:`decide` / :class:`Solver`: the expectimax solver as an expert
  (with :class:`EndgameTables`, the endgame tables' move on late chains);
  :func:`value` / :class:`Network`: the learned evaluator.

Importing the package registers ``py2048/Env2048-v0`` with gymnasium
(``gymnasium.make`` and ``gymnasium.make_vec(..., vectorization_mode=
"vector_entry_point")``), and ``py2048/TwentyFortyEight-v0``: the same
environment under gymnasium-2048's name and (lack of a) step limit, for
programs written for ``gymnasium_2048/TwentyFortyEight-v0``.
"""

from py2048.board import (
    ACTION_NAMES,
    apply_action,
    encode,
    format_board,
    from_tiles,
    legal_actions,
    pack,
    parse_board,
    unpack,
)
from py2048.env import MAX_EXPONENT, Env2048, TwentyFortyEightEnv
from py2048.solver import (
    DEFAULT_PRESET,
    PRESETS,
    SETTINGS,
    SHIPPED_WEIGHTS,
    Decision,
    EndgameTables,
    Network,
    Solver,
    decide,
    value,
)
from py2048.vector import StepBuffers, VectorEnv2048

__all__ = [
    "ACTION_NAMES",
    "ALIAS_ID",
    "ENV_ID",
    "MAX_EPISODE_STEPS",
    "MAX_EXPONENT",
    "DEFAULT_PRESET",
    "PRESETS",
    "SETTINGS",
    "SHIPPED_WEIGHTS",
    "Decision",
    "Env2048",
    "EndgameTables",
    "Network",
    "Solver",
    "StepBuffers",
    "TwentyFortyEightEnv",
    "VectorEnv2048",
    "apply_action",
    "decide",
    "encode",
    "format_board",
    "from_tiles",
    "legal_actions",
    "pack",
    "parse_board",
    "unpack",
    "value",
]

#: The registered environment's id.
ENV_ID = "py2048/Env2048-v0"

#: The id under gymnasium-2048's environment name.
ALIAS_ID = "py2048/TwentyFortyEight-v0"

#: The registered step limit: far beyond a 32768 game (about 16,000 moves),
#: but it ends an agent stuck on an illegal action under the no-op rule.
MAX_EPISODE_STEPS = 100_000


def _register() -> None:
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID,
            entry_point="py2048.env:Env2048",
            vector_entry_point="py2048.vector:VectorEnv2048",
            max_episode_steps=MAX_EPISODE_STEPS,
        )
    if ALIAS_ID not in gymnasium.registry:
        gymnasium.register(
            id=ALIAS_ID,
            entry_point="py2048.env:TwentyFortyEightEnv",
            vector_entry_point="py2048.vector:VectorEnv2048",
        )


_register()
