"""Run the lesson notebooks headlessly: for committing outputs, tests and benchmarks.

``python -m tools.nbtools notebooks/*.ipynb`` (``make notebooks``) executes each notebook in a
fresh kernel with the offline digit set, drops stderr outputs, and writes the
results back, so that the outputs nbval compares are deterministic.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat

#: Environment for every headless run: offline data, no C++ log lines.
HEADLESS_ENV = {"TUTOR_DATA_SOURCE": "synthetic", "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONHASHSEED": "0", "MPLBACKEND": "module://matplotlib_inline.backend_inline"}


def strip_stderr(nb) -> int:
    """Remove stderr stream outputs in place; returns how many were removed."""
    removed = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        keep = [o for o in cell.get("outputs", []) if not (o.get("output_type") == "stream" and o.get("name") == "stderr")]
        removed += len(cell.get("outputs", [])) - len(keep)
        cell["outputs"] = keep
    return removed


def execute(path: str | os.PathLike, *, timeout: int = 600, runs: int = 1, write: bool = True, kernel_name: str = "python3",
            env: dict[str, str] | None = None):
    """Execute a notebook ``runs`` times in one kernel; returns ``(notebook, seconds)``.

    ``env`` overrides :data:`HEADLESS_ENV`, for example ``{"TUTOR_DATA_SOURCE": "synthetic-full"}``
    for the data size Colab and Binder get. Raises ``nbclient.exceptions.CellExecutionError`` when a cell fails.
    """
    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    os.environ.update({**HEADLESS_ENV, **(env or {})})
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name, resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    with client.setup_kernel():
        for _ in range(runs):
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index)
    seconds = time.perf_counter() - start
    strip_stderr(nb)
    if write:
        nbformat.write(nb, path)
    return nb, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+")
    parser.add_argument("--timeout", type=int, default=600)
    args = parser.parse_args(argv)
    for name in args.notebooks:
        _, seconds = execute(name, timeout=args.timeout)
        print(f"{name}: {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
