"""Run inside the Binder venv (``make binder-env``): is it the image repo2docker would build, and do the lessons run there?

Checks that tensorflow-cpu (not tensorflow) and tutor are installed as binder/
asks, and that binder/requirements.txt pins what requirements.txt pins.

The lessons themselves run next, in the same target: nbval starts each
lesson's kernel with this venv's Python, compares the first run with the
committed outputs, runs it a second time in the same kernel and fails on any
kernel peak over 1.5 GB (``tools/nbval_twice.py``).

With ``--quota`` it then runs every lesson once more the way a Binder user
gets it: inside a cgroup with a CPU quota of one CPU of time (``tools/quota.py``),
with every core still visible, and with the data Binder gets: MNIST downloads
there, so the offline digits stand in for it at its size
(``TUTOR_DATA_SOURCE=synthetic-full``). It fails on a cell error there, or if
``tutor.env.cpus_available()`` does not report the quota, and prints each
lesson's seconds (against the 3-minute bar, which it reports without failing:
a time depends on the machine) and every verdict sentence the lessons printed
(``compare``), so they can be read against the run without a quota. Where no
cgroup can be made (not root, no cpu controller), it says so and skips that part.
"""
from __future__ import annotations

import os
import re
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# Appended, not inserted: the tutor that binder/postBuild installed must still come first on sys.path.
sys.path.append(str(ROOT))  # for tools.quota and tools.nbtools, in the quota part


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


def quota_part(paths: list[Path]) -> list[str]:
    """Run every lesson once inside a 1-CPU quota (in a child process that joins the cgroup); its problems."""
    from tools import quota

    group, why = quota.make_group(f"tutor-binder-{os.getpid()}")
    if group is None:
        print(f"1-CPU quota: no cgroup could be made here ({why}); that part is skipped.", flush=True)
        return []
    print(f"1-CPU quota: {group} ({quota.kind(group)}), {os.cpu_count()} cores visible; "
          f"the digits at MNIST's size, as Binder downloads it", flush=True)
    try:
        code = quota.run_in_group(group, [sys.executable, __file__, "--inside", *map(str, paths)])
    finally:
        quota.remove_group(group)
    return [] if code == 0 else ["the lessons failed inside the 1-CPU quota (see above)"]


def inside_quota(paths: list[str]) -> int:
    """The child: check that tutor sees the quota, run each lesson once with Binder's data, print its verdicts."""
    import tutor.env
    from tools import quota

    problems = []
    seen = tutor.env.cpus_available()
    print("  tutor.env.cpu_report():", tutor.env.cpu_report().sentence, flush=True)
    if abs(seen - 1.0) > 1e-9:
        problems.append(f"tutor.env.cpus_available() says {seen} inside a quota of one CPU")
    rows, failed = quota.run_lessons([Path(p) for p in paths], "platform", show_verdicts=True)
    problems += [f"{problem} (under the quota)" for problem in failed]
    print(quota.table(rows), flush=True)
    for problem in problems:
        print("FAIL:", problem)
    return 1 if problems else 0


def main() -> int:
    if sys.argv[1:2] == ["--inside"]:
        return inside_quota(sys.argv[2:])
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
