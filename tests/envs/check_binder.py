"""Run inside the Binder venv (``make binder-env``): is it the image repo2docker would build, and do the lessons run there?

Checks that tensorflow-cpu (not tensorflow) and tutor are installed as binder/
asks, and that binder/requirements.txt pins what requirements.txt pins.

The lessons themselves run next, in the same target: nbval starts each
lesson's kernel with this venv's Python, compares the first run with the
committed outputs, runs it a second time in the same kernel and fails on any
kernel peak over 1.5 GB (``tools/nbval_twice.py``).

With ``--quota`` it then runs every lesson once more the way mybinder.org
limits a user: inside a cgroup with a CPU quota of one CPU of time (cgroup v1
``cpu.cfs_quota_us`` of one period, or cgroup v2 ``cpu.max``), with every core
still visible. It fails on a cell error there, or if
``tutor.env.cpus_available()`` does not report the quota, and prints every
verdict sentence the lessons printed (``compare``), so they can be read against
the run without a quota. Where no cgroup can be made (not root, no cpu
controller), it says so and skips that part.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# Appended, not inserted: the tutor that binder/postBuild installed must still come first on sys.path.
sys.path.append(str(ROOT))  # for tools.nbtools, in the quota part


def pins(path: Path) -> dict[str, str]:
    """``name -> version`` for every ``name==version`` line of a requirements file."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            found[re.sub(r"[-_.]+", "-", name).lower().strip()] = version.strip()
    return found


def pin_drift() -> list[str]:
    """binder/requirements.txt must pin what requirements.txt pins (tensorflow-cpu for tensorflow)."""
    main, binder = pins(ROOT / "requirements.txt"), pins(ROOT / "binder" / "requirements.txt")
    main["tensorflow-cpu"] = main.get("tensorflow", "missing")
    return [
        f"binder/requirements.txt pins {name}=={version} but requirements.txt has {main[name]}"
        for name, version in binder.items()
        if name in main and main[name] != version
    ]


QUOTA_PERIOD_US = 100_000
VERDICT = re.compile(r"(faster|slower|no clear difference)")


def make_quota_group() -> tuple[Path | None, str]:
    """A new cgroup with a quota of one CPU of time: (its folder, '') or (None, why not)."""
    name = f"tutor-binder-{os.getpid()}"
    mounts = [line.split(" - ") for line in Path("/proc/self/mountinfo").read_text().splitlines() if " - " in line]
    v1 = [Path(left.split()[4]) for left, right in mounts
          if right.split()[0] == "cgroup" and "cpu" in right.split()[2].split(",")]
    v2 = [Path(left.split()[4]) for left, right in mounts if right.split()[0] == "cgroup2"]
    tried = []
    for mount in v1:
        group = mount / name
        try:
            group.mkdir()
            (group / "cpu.cfs_period_us").write_text(str(QUOTA_PERIOD_US))
            (group / "cpu.cfs_quota_us").write_text(str(QUOTA_PERIOD_US))
            return group, ""
        except OSError as error:
            tried.append(f"cgroup v1 at {mount}: {error}")
            _remove_group(group)
    for mount in v2:
        controllers = mount / "cgroup.controllers"
        if not controllers.exists() or "cpu" not in controllers.read_text().split():
            tried.append(f"cgroup v2 at {mount}: no cpu controller")
            continue
        group = mount / name
        try:
            (mount / "cgroup.subtree_control").write_text("+cpu")
            group.mkdir()
            (group / "cpu.max").write_text(f"{QUOTA_PERIOD_US} {QUOTA_PERIOD_US}")
            return group, ""
        except OSError as error:
            tried.append(f"cgroup v2 at {mount}: {error}")
            _remove_group(group)
    return None, "; ".join(tried) or "no cgroup with a cpu controller is mounted"


def _remove_group(group: Path) -> None:
    for _ in range(50):  # the kernels of the last notebook may still be exiting
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.2)


def quota_part(paths: list[Path]) -> list[str]:
    """Run every lesson once inside a 1-CPU quota (in a child process that joins the cgroup); its problems."""
    group, why = make_quota_group()
    if group is None:
        print(f"1-CPU quota: no cgroup could be made here ({why}); that part is skipped.", flush=True)
        return []
    print(f"1-CPU quota: {group} (cgroup {'v2 cpu.max' if (group / 'cpu.max').exists() else 'v1 cfs quota'}), "
          f"{os.cpu_count()} cores visible", flush=True)
    try:
        child = subprocess.run([sys.executable, __file__, "--inside", str(group / "cgroup.procs"), *map(str, paths)],
                               text=True, capture_output=False)
    finally:
        _remove_group(group)
    return [] if child.returncode == 0 else ["the lessons failed inside the 1-CPU quota (see above)"]


def inside_quota(procs: str, paths: list[str]) -> int:
    """The child: join the cgroup, check that tutor sees the quota, run each lesson once, print its verdicts."""
    Path(procs).write_text(str(os.getpid()))
    import tutor.env

    problems = []
    seen = tutor.env.cpus_available()
    print("  tutor.env.cpu_report():", tutor.env.cpu_report().sentence, flush=True)
    if abs(seen - 1.0) > 1e-9:
        problems.append(f"tutor.env.cpus_available() says {seen} inside a quota of one CPU")
    from tools.nbtools import execute

    for path in map(Path, paths):
        start = time.perf_counter()
        try:
            nb, _ = execute(path, runs=1, write=False)
        except Exception as exc:  # noqa: BLE001 -- report every lesson
            lines = [line for line in re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).splitlines() if line.strip()]
            problems.append(f"{path.name} under the quota: {type(exc).__name__}: {lines[-1] if lines else ''}"[:300])
            continue
        print(f"  {path.name}: {time.perf_counter() - start:.1f} s under the quota", flush=True)
        for index, cell in enumerate(nb.cells):
            for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
                for line in output.get("text", "").splitlines():
                    if VERDICT.search(line):
                        print(f"    c{index}: {line.strip()}", flush=True)
    for problem in problems:
        print("FAIL:", problem)
    return 1 if problems else 0


def main() -> int:
    if sys.argv[1:2] == ["--inside"]:
        return inside_quota(sys.argv[2], sys.argv[3:])
    problems = pin_drift()
    names = {re.sub(r"[-_.]+", "-", d.metadata["Name"]).lower() for d in metadata.distributions()}
    if "tensorflow-cpu" not in names or "tensorflow" in names:
        problems.append(f"expected tensorflow-cpu and no tensorflow; found {sorted(n for n in names if n.startswith('tensorflow'))}")
    import tutor

    location = Path(tutor.__file__).resolve()
    if (ROOT / "tutor") in location.parents or "site-packages" not in location.parts:
        problems.append(f"tutor is imported from the checkout ({location}), not installed by binder/postBuild")
    paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if not paths:
        problems.append("no notebooks/*.ipynb to run")
    print(f"Binder env: Python {sys.version.split()[0]}, tensorflow-cpu {metadata.version('tensorflow-cpu')}, "
          f"tutor from {location.parent}", flush=True)
    if paths and "--quota" in sys.argv[1:]:
        problems += quota_part(paths)
    for problem in problems:
        print("FAIL:", problem)
    print("binder-env:", "FAILED" if problems else "ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
