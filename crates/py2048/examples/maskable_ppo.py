"""MaskablePPO (sb3-contrib) learning 2048 on py2048's Rust batch, with its
learning curve: every finished episode's score appended to a CSV as it ends,
and the curve drawn from it.

    pip install "py2048[sb3]" matplotlib
    python crates/py2048/examples/maskable_ppo.py --steps 300000 --out ppo

writes ``ppo/episodes.csv`` (timesteps, seconds, score, largest tile) and
``ppo/curve.png``; ``--plot-only`` draws the curve again from the CSV. Illegal actions are masked, so every action moves the
board. The rewards (merged tiles, 4 to thousands a move) are scaled by
SB3's ``VecNormalize`` for the learner; the scores written are the game's.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecNormalize

from py2048.sb3 import SB3VecEnv2048


class Episodes(BaseCallback):
    """Appends each finished episode to a CSV at once."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.file = path.open("w", newline="")
        self.rows = csv.writer(self.file)
        self.rows.writerow(["timesteps", "seconds", "score", "max_tile"])
        self.start = time.perf_counter()

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "terminal_observation" in info:
                top = int(np.argmax(info["terminal_observation"], axis=-1).max())
                self.rows.writerow([
                    self.num_timesteps,
                    round(time.perf_counter() - self.start, 1),
                    info["score"],
                    2**top,
                ])
                self.file.flush()
        return True

    def _on_training_end(self) -> None:
        self.file.close()


def plot(csv_path: Path, png_path: Path, window: int, tile: int) -> None:
    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt

    data = np.genfromtxt(csv_path, delimiter=",", names=True)
    steps, score, top = data["timesteps"], data["score"], data["max_tile"]
    k = np.ones(window) / window
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps, score, ".", ms=1.5, alpha=0.25, color="#bbada0", label="an episode's score")
    if len(score) >= window:
        ax.plot(steps[window - 1:], np.convolve(score, k, "valid"), color="#f67c5f",
                label=f"mean of the last {window} episodes")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("score")
    ax2 = ax.twinx()
    if len(top) >= window:
        ax2.plot(steps[window - 1:], np.convolve(top >= tile, k, "valid") * 100, color="#776e65",
                 lw=1, label=f"reached {tile}, % of the last {window} episodes")
    ax2.set_ylabel(f"reached {tile} (%)")
    ax2.set_ylim(0, 100)
    lines = ax.get_legend_handles_labels()
    lines2 = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], loc="upper left", fontsize=8)
    ax.set_title("MaskablePPO on py2048.sb3.SB3VecEnv2048")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300_000)
    parser.add_argument("--envs", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("ppo"))
    parser.add_argument("--window", type=int, default=100)
    parser.add_argument("--tile", type=int, default=256, help="the tile whose rate is drawn")
    # A small MLP: more torch threads than this only wait on each other.
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--plot-only", action="store_true", help="draw the curve from the CSV")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    csv_path = args.out / "episodes.csv"
    if args.plot_only:
        plot(csv_path, args.out / "curve.png", args.window, args.tile)
        print(f"curve in {args.out / 'curve.png'}")
        return
    torch.set_num_threads(args.threads)
    raw = SB3VecEnv2048(num_envs=args.envs)
    raw.seed(args.seed)
    env = VecNormalize(raw, norm_obs=False, norm_reward=True, gamma=0.99)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=256, batch_size=1024, learning_rate=3e-4, gamma=0.99,
        seed=args.seed, device="cpu", verbose=0,
    )
    start = time.perf_counter()
    model.learn(args.steps, callback=Episodes(csv_path))
    print(f"{args.steps:,} steps in {time.perf_counter() - start:.0f} s; episodes in {csv_path}")
    plot(csv_path, args.out / "curve.png", args.window, args.tile)
    print(f"curve in {args.out / 'curve.png'}")


if __name__ == "__main__":
    main()
