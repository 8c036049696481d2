"""Run inside the Binder venv (``make binder-env``): is it the image repo2docker would build, and do the lessons run there?

Checks that tensorflow-cpu (not tensorflow) and tutor are installed as
binder/ asks, then runs every notebooks/*.ipynb TWICE in one fresh kernel of
this venv (tools.nbtools.execute(runs=2, write=False)) while polling the
kernel's memory, and fails on any cell error or any kernel peak over 1.5 GB.
"""
from __future__ import annotations

import importlib.util
import re
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _load_benchmarks():
    # Loaded by file path: putting the repository root on sys.path would import
    # tutor from the checkout instead of the copy that binder/postBuild installed.
    spec = importlib.util.spec_from_file_location("benchmarks_notebooks", ROOT / "benchmarks" / "notebooks.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bench = _load_benchmarks()
KERNEL_BYTES_TARGET, measure, table = bench.KERNEL_BYTES_TARGET, bench.measure, bench.table


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


def main() -> int:
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
    results = []
    for path in paths:
        run = measure(path, runs=2)
        results.append(run)
        kernels = [cmd for cmd in run.commands.values() if "ipykernel_launcher" in " ".join(cmd)]
        if not kernels or not all(Path(cmd[0]).absolute().parent == Path(sys.executable).absolute().parent for cmd in kernels):
            problems.append(f"{run.name}: the kernel did not run on this venv's Python: {kernels}")
        if run.error:
            problems.append(f"{run.name}: {run.error}")
        if run.peak_bytes > KERNEL_BYTES_TARGET:
            problems.append(f"{run.name}: kernel peaked at {run.peak_bytes / 1e9:.2f} GB (limit 1.5 GB)")
        print(f"  {run.name}: {run.seconds:.1f} s for 2 runs, peak {run.peak_bytes / 1e6:.0f} MB", flush=True)
    print(table(results, runs=2))
    for problem in problems:
        print("FAIL:", problem)
    print("binder-env:", "FAILED" if problems else "ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
