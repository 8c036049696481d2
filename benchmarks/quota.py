"""How long each lesson takes inside a quota of one CPU of time, with the data a learner's platform gets.

Run it as root from the repository root (a person runs it; it is not a CI test)::

    .venv/bin/python benchmarks/quota.py                        # every lesson, Colab's and Binder's data size
    .venv/bin/python benchmarks/quota.py notebooks/05_*.ipynb   # some lessons
    .venv/bin/python benchmarks/quota.py --data offline         # the offline 2,000-digit set of CI instead

Each lesson runs once in a fresh kernel (:func:`tools.nbtools.execute`, outputs
not written) inside a cgroup with a CPU quota of one CPU of time, every core
still visible, as mybinder.org limits a user (:mod:`tools.quota`). On Colab and
Binder MNIST downloads, so by default the offline digits stand in for it at its
size (``TUTOR_DATA_SOURCE=synthetic-full``: 70,000 digits rendered once, then
read from a file, as Keras keeps ``mnist.npz``). The table gives each lesson's
seconds (kernel start included), its slowest cell, and whether it stayed within
the course's bar of 3 minutes per lesson. Other work on the machine slows
every run: the first line prints the load average.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The maintainer tools (tools/), shared with the tests. Appended, so that an installed tutor still comes first.
sys.path.append(str(ROOT))

from tools import quota  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="default: notebooks/*.ipynb")
    parser.add_argument("--data", choices=sorted(quota.DATA), default="platform",
                        help="platform: MNIST's size, as on Colab and Binder (default); offline: CI's 2,000 digits")
    parser.add_argument("--runs", type=int, default=1, help="runs in one kernel (default 1)")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)  # the child, already in the group
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.notebooks] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    if not paths:
        print("no notebooks found", file=sys.stderr)
        return 1
    if args.inside:
        import tutor.env

        print(f"  {tutor.env.cpu_report().sentence}", flush=True)
        rows, problems = quota.run_lessons(paths, args.data, runs=args.runs)
        print()
        print(quota.table(rows, runs=args.runs))
        for problem in problems:
            print("FAILED:", problem)
        return 1 if problems else 0
    group, why = quota.make_group(f"tutor-bench-{os.getpid()}")
    if group is None:
        print(f"no 1-CPU quota can be made here ({why}): run this as root on Linux with a cgroup cpu controller",
              file=sys.stderr)
        return 1
    print(f"{len(paths)} lesson(s), {args.runs} run(s) each, inside a quota of 1 CPU ({quota.kind(group)}); "
          f"data: {args.data} ({quota.DATA[args.data]['TUTOR_DATA_SOURCE']}); {os.cpu_count()} cores visible, "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    try:
        return quota.run_in_group(group, [sys.executable, __file__, "--inside", "--data", args.data,
                                          "--runs", str(args.runs), *map(str, paths)])
    finally:
        quota.remove_group(group)


if __name__ == "__main__":
    sys.exit(main())
