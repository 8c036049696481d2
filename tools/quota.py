"""Run the lessons inside a quota of one CPU of time, as mybinder.org limits a user.

A cgroup with a CPU quota of one period per period (cgroup v1 ``cpu.cfs_quota_us``
or v2 ``cpu.max``) lets its processes use one CPU of time in all, while every core
of the machine stays visible to them, as on Binder. Making one needs root and a
cgroup with the cpu controller; :func:`make_group` says why not where it cannot.
``tests/envs/check_binder.py --quota`` (``make binder-env``) and
``benchmarks/quota.py`` run the lessons in such a group with :func:`run_lessons`.

The data matter as much as the CPU: on Colab and Binder MNIST downloads, so the
lessons get its 70,000 digits; CI and the committed outputs use the offline set.
:data:`DATA` names both; ``"platform"`` stands in for MNIST offline with the
offline digits at MNIST's size (``TUTOR_DATA_SOURCE=synthetic-full``).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

PERIOD_US = 100_000
#: What each lesson run gets: the data Colab and Binder get, or the offline set of CI and the committed outputs.
DATA = {
    "platform": {"TUTOR_DATA_SOURCE": "synthetic-full"},
    "offline": {"TUTOR_DATA_SOURCE": "synthetic"},
}
#: The bar a lesson must stay under, inside the quota with its platform's data (CONTRIBUTING.md, "Standards").
LESSON_SECONDS = 180
VERDICT = re.compile(r"(faster|slower|no clear difference)")


def make_group(name: str) -> tuple[Path | None, str]:
    """A new cgroup with a quota of one CPU of time: ``(its folder, "")`` or ``(None, why not)``."""
    mounts = [line.split(" - ") for line in Path("/proc/self/mountinfo").read_text().splitlines() if " - " in line]
    v1 = [Path(left.split()[4]) for left, right in mounts
          if right.split()[0] == "cgroup" and "cpu" in right.split()[2].split(",")]
    v2 = [Path(left.split()[4]) for left, right in mounts if right.split()[0] == "cgroup2"]
    tried = []
    for mount in v1:
        group = mount / name
        try:
            group.mkdir()
            (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (group / "cpu.cfs_quota_us").write_text(str(PERIOD_US))
            return group, ""
        except OSError as error:
            tried.append(f"cgroup v1 at {mount}: {error}")
            remove_group(group)
    for mount in v2:
        controllers = mount / "cgroup.controllers"
        if not controllers.exists() or "cpu" not in controllers.read_text().split():
            tried.append(f"cgroup v2 at {mount}: no cpu controller")
            continue
        group = mount / name
        try:
            (mount / "cgroup.subtree_control").write_text("+cpu")
            group.mkdir()
            (group / "cpu.max").write_text(f"{PERIOD_US} {PERIOD_US}")
            return group, ""
        except OSError as error:
            tried.append(f"cgroup v2 at {mount}: {error}")
            remove_group(group)
    return None, "; ".join(tried) or "no cgroup with a cpu controller is mounted"


def remove_group(group: Path) -> None:
    """Remove a group made by :func:`make_group`, once its last process has left."""
    for _ in range(50):  # the kernels of the last notebook may still be exiting
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.2)


def kind(group: Path) -> str:
    """``"cgroup v2 cpu.max"`` or ``"cgroup v1 cfs quota"``."""
    return "cgroup v2 cpu.max" if (group / "cpu.max").exists() else "cgroup v1 cfs quota"


def run_in_group(group: Path, command: list[str]) -> int:
    """Run ``command`` as a process that joins ``group`` before it starts (its children stay in it); its exit code."""
    procs = group / "cgroup.procs"
    return subprocess.run(command, preexec_fn=lambda: procs.write_text(str(os.getpid()))).returncode


def cell_seconds(nb) -> list[tuple[int, float]]:
    """``(index, seconds)`` of every executed code cell, from the timing nbclient records in its metadata."""
    found = []
    for index, cell in enumerate(nb.cells):
        timing = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in timing and "shell.execute_reply" in timing:
            start, end = (datetime.fromisoformat(timing[key].replace("Z", "+00:00"))
                          for key in ("iopub.execute_input", "shell.execute_reply"))
            found.append((index, (end - start).total_seconds()))
    return found


def run_lessons(paths: list[Path], data: str, *, runs: int = 1, show_verdicts: bool = False) -> tuple[list[dict], list[str]]:
    """Execute each lesson in a fresh kernel with ``DATA[data]``; one row per lesson, and the problems met.

    A row holds the lesson's name, its seconds (kernel start included), its slowest
    cell and the verdict sentences it printed. Call it inside the quota.
    """
    from tools.nbtools import execute

    rows, problems = [], []
    for path in paths:
        start = time.perf_counter()
        try:
            nb, _ = execute(path, runs=runs, write=False, env=DATA[data])
        except Exception as exc:  # noqa: BLE001 -- report every lesson
            lines = [line for line in re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).splitlines() if line.strip()]
            problems.append(f"{path.name}: {type(exc).__name__}: {lines[-1] if lines else ''}"[:300])
            continue
        seconds = time.perf_counter() - start
        cells = cell_seconds(nb)
        slowest = max(cells, key=lambda pair: pair[1], default=(None, 0.0))
        verdicts = [f"c{index}: {line.strip()}" for index, cell in enumerate(nb.cells) if cell.cell_type == "code"
                    for output in cell.get("outputs", []) for line in output.get("text", "").splitlines()
                    if VERDICT.search(line)]
        rows.append({"name": path.stem, "seconds": seconds, "slowest": slowest, "verdicts": verdicts})
        over = f"  OVER the {LESSON_SECONDS} s bar" if seconds > LESSON_SECONDS * runs else ""
        print(f"  {path.name}: {seconds:.1f} s (slowest cell c{slowest[0]}: {slowest[1]:.1f} s){over}", flush=True)
        for line in verdicts if show_verdicts else []:
            print(f"    {line}", flush=True)
    return rows, problems


def table(rows: list[dict], *, runs: int = 1) -> str:
    """A Markdown table of :func:`run_lessons`' rows, with the sum."""
    lines = ["| lesson | seconds | slowest cell | within 3 min |", "|---|---:|---|---|"]
    for row in rows:
        index, slow = row["slowest"]
        ok = "yes" if row["seconds"] <= LESSON_SECONDS * runs else "**no**"
        lines.append(f"| {row['name']} | {row['seconds']:.1f} | c{index}: {slow:.1f} s | {ok} |")
    total = sum(row["seconds"] for row in rows)
    lines.append(f"| **sum** | **{total:.1f}** ({total / 60:.1f} min) | | |")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("tools/quota.py is a module: run benchmarks/quota.py or tests/envs/check_binder.py --quota")
