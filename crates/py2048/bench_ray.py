"""What py2048.distributed costs and how it scales, on this machine.

Plays the same seeds with one local Ray worker, then with two (a local
``ray.init(num_cpus=N)`` each time), and prints, for each, the wall time,
the games per minute and the time per game beyond the game itself (the
run's wall time times its workers, less the games' own time, per game: Ray's
scheduling, moving the result, writing the records file; the idle tail when
fewer games than workers are left is counted too, so this overstates it).
Ray's start-up is timed apart.

    python bench_ray.py [--games 24] [--preset fast] [--seed-start 1]

Build the wheel with the release profile for speed figures
(PY2048_PROFILE=release crates/py2048/ci.sh, or maturin develop --release).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import ray

from py2048.distributed import Player, tournament


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--preset", default="fast")
    parser.add_argument("--seed-start", type=int, default=1)
    args = parser.parse_args()
    player = Player(args.preset)
    rates = {}
    print(f"{os.cpu_count()} cores; {args.games} games of preset {args.preset}, seeds "
          f"{args.seed_start} to {args.seed_start + args.games - 1}")
    for workers in (1, 2):
        start = time.monotonic()
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        startup = time.monotonic() - start
        with tempfile.TemporaryDirectory() as folder:
            t = tournament(player, games=args.games, seed_start=args.seed_start,
                           csv=os.path.join(folder, "games.csv"), progress=False)
        ray.shutdown()
        game_seconds = sum(r.millis for r in t.records) / 1e3
        overhead = (t.seconds * workers - game_seconds) / len(t.records)
        rates[workers] = 60 * len(t.records) / t.seconds
        print(f"{workers} worker(s): Ray started in {startup:.1f} s; {len(t.records)} games in "
              f"{t.seconds:.1f} s, {rates[workers]:.1f} games/min; games' own time "
              f"{game_seconds:.1f} s; beyond it {1e3 * overhead:.1f} ms per game")
    print(f"2 workers / 1 worker: {rates[2] / rates[1]:.2f}x the games per minute")


if __name__ == "__main__":
    main()
