"""How long each lesson takes to execute headlessly, and how much memory its kernel needs.

Run it from the repository root (a person runs it; it is not a CI test)::

    .venv/bin/python benchmarks/notebooks.py            # every notebooks/*.ipynb
    .venv/bin/python benchmarks/notebooks.py notebooks/03_shuffle.ipynb --runs 2

Each notebook runs in a fresh kernel (offline data, as in CI) through
:func:`tools.nbtools.execute`, without writing outputs back. While it runs, a
thread polls the resident memory of every process this script started, that
is the kernel and anything the kernel started (their private pages summed,
the shared libraries they all map counted once), and keeps the peak.

Targets (issue 6): the whole course executes in under 10 minutes on 2 cores,
and no kernel peaks over 1.5 GB (Binder guarantees 1 GB and allows 2 GB).

The probe itself (:class:`~tools.memory.PeakMemory`, :func:`~tools.memory.measure`,
:func:`~tools.memory.table`) lives in ``tools/memory.py``; ``tools/nbval_twice.py`` (make binder-env) uses it too.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
# The maintainer tools (tools/), shared with the tests. Appended, so that an installed tutor still comes first.
sys.path.append(str(ROOT))

from tools.memory import KERNEL_BYTES_TARGET, measure, table  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="default: notebooks/*.ipynb")
    parser.add_argument("--runs", type=int, default=1, help="runs in one kernel (default 1)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.notebooks] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    if not paths:
        print("no notebooks found", file=sys.stderr)
        return 1
    print(f"{len(paths)} notebook(s), {args.runs} run(s) each, {psutil.cpu_count()} logical CPUs, "
          f"load average {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}")
    results = []
    for path in paths:
        results.append(measure(path, runs=args.runs, timeout=args.timeout))
        r = results[-1]
        print(f"  {r.name}: {r.seconds:.1f} s, {r.peak_bytes / 1e6:.0f} MB" + (f"  {r.error}" if r.error else ""), flush=True)
    print()
    print(table(results, runs=args.runs))
    failed = any(r.error for r in results) or max(r.peak_bytes for r in results) > KERNEL_BYTES_TARGET
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
