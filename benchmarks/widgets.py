"""How fast each explorer answers in a real browser: key press -> new figure painted.

Run it from the repository root (a person runs it; it is not a CI test)::

    .venv/bin/python benchmarks/widgets.py               # every tutor.*_explorer
    .venv/bin/python benchmarks/widgets.py --moves 20 shuffle_explorer

It starts JupyterLab (127.0.0.1, random port and token) on a scratch notebook
that shows each explorer with its default arguments, opens it in headless
Debian Chromium, focuses the explorer's first slider and presses ArrowRight /
ArrowLeft in turn. In the page, a keydown listener stamps ``performance.now()``
and a MutationObserver on the figure's ``<img src>`` waits for the new image to
decode, then stamps the next animation frame: that difference is one latency.
After each move the kernel is asked for ``Explorer.last_render_seconds`` (the
kernel-side share: running the pipeline and drawing the PNG) and for the CPU
time its process used during the move: on a loaded machine the wall times
grow, the CPU times much less.

Targets (issue 6): median <= 150 ms for the order and shuffle explorers,
<= 300 ms for the augmentation explorer, <= 1 s for the timeline explorer.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import harness  # noqa: E402

TARGETS_MS = {"order_explorer": 150, "shuffle_explorer": 150, "augment_explorer": 300, "timeline_explorer": 1000}
DEFAULT_TARGET_MS = 1000

_ARM_JS = """([img, handle]) => {
    window.__bench = {t0: null, t1: null};
    const before = img.src;
    handle.addEventListener('keydown', () => { window.__bench.t0 = performance.now(); }, {capture: true, once: true});
    const observer = new MutationObserver(() => {
        if (img.src === before) return;
        observer.disconnect();
        img.decode().catch(() => null).then(() =>
            requestAnimationFrame(() => { window.__bench.t1 = performance.now(); }));
    });
    observer.observe(img, {attributes: true, attributeFilter: ['src']});
}"""

_KERNEL_JS = """async code => {
    const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    const future = kernel.requestExecute({code, silent: false, store_history: false});
    let out = '';
    future.onIOPub = msg => { if (msg.header.msg_type === 'stream') out += msg.content.text; };
    await future.done;
    return out.trim();
}"""


def explorer_names() -> list[str]:
    """Every ``*_explorer`` that tutor exports (read from tutor/__init__.py without importing TensorFlow)."""
    text = (ROOT / "tutor" / "__init__.py").read_text(encoding="utf-8")
    block = text[text.index("__all__"):]
    return sorted(set(re.findall(r"['\"](\w+_explorer)['\"]", block)))


def scratch_notebook(names: list[str], path: Path) -> None:
    cells = [nbformat.v4.new_code_cell("import tutor\nimport tensorflow as tf\nEX = {}")]
    for name in names:
        cells.append(nbformat.v4.new_code_cell(f"EX[{name!r}] = tutor.{name}()\nEX[{name!r}]"))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, path)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def measure_explorer(page, explorer, name: str, moves: int) -> dict:
    handle, slider_readout, _, image = harness.explorer_parts(explorer)
    explorer.scroll_into_view_if_needed()
    at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
    keys = ("ArrowLeft", "ArrowRight") if at_max else ("ArrowRight", "ArrowLeft")
    browser_ms, kernel_ms, cpu_ms = [], [], []
    cpu_code = "import time as _t; print(_t.process_time())"
    for move in range(moves):
        cpu_before = float(page.evaluate(_KERNEL_JS, cpu_code))
        page.evaluate(_ARM_JS, [image.element_handle(), handle.element_handle()])
        handle.focus()
        page.keyboard.press(keys[move % 2])
        page.wait_for_function("() => window.__bench.t1 !== null && window.__bench.t0 !== null", timeout=60_000)
        bench = page.evaluate("() => window.__bench")
        browser_ms.append(bench["t1"] - bench["t0"])
        seconds = page.evaluate(_KERNEL_JS, f"print(EX[{name!r}].last_render_seconds)")
        kernel_ms.append(float(seconds) * 1000)
        cpu_ms.append((float(page.evaluate(_KERNEL_JS, cpu_code)) - cpu_before) * 1000)
        page.wait_for_timeout(100)
    return {
        "name": name,
        "median": statistics.median(browser_ms),
        "p90": percentile(browser_ms, 90),
        "kernel_median": statistics.median(kernel_ms),
        "cpu_median": statistics.median(cpu_ms),
        "target": TARGETS_MS.get(name, DEFAULT_TARGET_MS),
        "moves": moves,
    }


def table(rows: list[dict]) -> str:
    lines = [f"{'explorer':<20} {'median ms':>9} {'p90 ms':>7} {'kernel ms':>9} {'CPU ms':>7} {'target':>7}  status", "-" * 74]
    for r in rows:
        status = "ok" if r["median"] <= r["target"] else "SLOWER than target"
        lines.append(f"{r['name']:<20} {r['median']:>9.0f} {r['p90']:>7.0f} {r['kernel_median']:>9.0f} {r['cpu_median']:>7.0f} "
                     f"{'<= ' + str(r['target']):>7}  {status}")
    lines.append("median/p90: key press to new figure painted in Chromium; kernel: Explorer.last_render_seconds (median);")
    lines.append("CPU: kernel process CPU time per move (median), close to the kernel's wall time on an idle machine")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("explorers", nargs="*", help="default: every tutor.*_explorer")
    parser.add_argument("--moves", type=int, default=20)
    args = parser.parse_args(argv)
    names = args.explorers or explorer_names()
    from playwright.sync_api import sync_playwright

    workdir = harness.new_workdir("tutor-bench-widgets-")
    source = workdir / "source"
    source.mkdir()
    scratch_notebook(names, source / "bench_explorers.ipynb")
    server = harness.start_server("lab", source, workdir)
    rows = []
    try:
        with sync_playwright() as p:
            browser = harness.launch_browser(p)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            harness.run_lesson(page, server, "bench_explorers")
            explorers = harness.explorers(page)
            if explorers.count() != len(names):
                raise RuntimeError(f"expected {len(names)} explorers on the page, found {explorers.count()}")
            for index, name in enumerate(names):
                rows.append(measure_explorer(page, explorers.nth(index), name, args.moves))
                print(f"  {name}: median {rows[-1]['median']:.0f} ms", flush=True)
            browser.close()
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\n{args.moves} moves per explorer, {os.cpu_count()} logical CPUs, load average {os.getloadavg()[0]:.1f}")
    print(table(rows))
    return 0 if all(r["median"] <= r["target"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
