"""How fast each explorer answers in a real browser: key press -> new figure painted.

Run it from the repository root (a person runs it; it is not a CI test)::

    .venv/bin/python benchmarks/widgets.py                      # every explorer in tutor/widgets/
    .venv/bin/python benchmarks/widgets.py --moves 20 shuffle_explorer
    .venv/bin/python benchmarks/widgets.py --busy 1              # one core kept busy by other work

It starts JupyterLab (127.0.0.1, random port and token) on a scratch notebook
that shows each explorer with its default arguments, opens it in headless
Debian Chromium at 1280x720 (the projector case), focuses the explorer's
first slider and presses ArrowRight / ArrowLeft in turn. In the page, a keydown
listener stamps ``performance.now()`` and a MutationObserver on the figure's
``<img src>`` waits for the new image to decode, then stamps the next animation
frame: that difference is one latency. After each move the kernel is asked for
``Explorer.last_render_seconds`` (the kernel-side share: running the pipeline
and drawing the PNG) and for the CPU time its process used during the move.

``--busy N`` starts N processes that spin on a core each for the whole run
(and stops them at the end), so the figures show an explorer on a machine
that is doing other work too. The order, shuffle and augmentation explorers
draw the pictures one key press away in the background while they are shown
(``Explorer(precompute=True)``); ``--draw-every-time`` switches that off, to
measure a key press whose picture must be computed and drawn on the spot.

Targets (issue 13): median <= 80 ms for the order and shuffle explorers on an
idle machine and <= 150 ms with one core busy; <= 300 ms for the augmentation
and timeline explorers.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # the maintainer tools (tools/), shared with the tests

from tools.browser import explorer_page, harness  # noqa: E402

TARGETS_MS = {"order_explorer": 80, "shuffle_explorer": 80, "augment_explorer": 300, "timeline_explorer": 300}
BUSY_TARGETS_MS = {"order_explorer": 150, "shuffle_explorer": 150}
DEFAULT_TARGET_MS = 1000
VIEWPORT = {"width": 1280, "height": 720}

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

_SPIN = "import time\nwhile True:\n    time.perf_counter()\n"


def target_ms(name: str, busy: int) -> int:
    if busy:
        return BUSY_TARGETS_MS.get(name, TARGETS_MS.get(name, DEFAULT_TARGET_MS))
    return TARGETS_MS.get(name, DEFAULT_TARGET_MS)


def scratch_notebook(explorers: list[tuple[str, str]], path: Path) -> None:
    import nbformat

    cells = [nbformat.v4.new_code_cell("import tutor\nimport tensorflow as tf\nEX = {}")]
    for module, name in explorers:
        cells.append(nbformat.v4.new_code_cell(
            f"from tutor.widgets.{module} import {name}\nEX[{name!r}] = {name}()\nEX[{name!r}]"))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, str(path))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def measure_explorer(page, explorer, name: str, moves: int, busy: int) -> dict:
    handle, _, _, image = explorer_page.explorer_parts(explorer)
    explorer.evaluate("el => el.scrollIntoView({block: 'start'})")
    explorer_page.wait_until_sized(page, explorer)
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
    g = explorer_page.geometry(explorer)
    return {
        "name": name,
        "median": statistics.median(browser_ms),
        "p90": percentile(browser_ms, 90),
        "kernel_median": statistics.median(kernel_ms),
        "cpu_median": statistics.median(cpu_ms),
        "picture": f"{g['natural']['width']}x{g['natural']['height']}",
        "target": target_ms(name, busy),
        "moves": moves,
    }


def table(rows: list[dict]) -> str:
    lines = [f"{'explorer':<20} {'median ms':>9} {'p90 ms':>7} {'kernel ms':>9} {'CPU ms':>7} {'picture px':>11} "
             f"{'target':>7}  status", "-" * 86]
    for r in rows:
        status = "ok" if r["median"] <= r["target"] else "SLOWER than target"
        lines.append(f"{r['name']:<20} {r['median']:>9.0f} {r['p90']:>7.0f} {r['kernel_median']:>9.0f} "
                     f"{r['cpu_median']:>7.0f} {r['picture']:>11} {'<= ' + str(r['target']):>7}  {status}")
    lines.append("median/p90: key press to new figure painted in Chromium; kernel: Explorer.last_render_seconds (median),")
    lines.append("0 when the picture had been drawn ahead;")
    lines.append("CPU: kernel process CPU time per move (median); picture: the PNG's size, drawn at the size shown")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("explorers", nargs="*", help="default: every *_explorer in tutor/widgets/")
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--busy", type=int, default=0, help="cores to keep busy with other work while measuring")
    parser.add_argument("--draw-every-time", action="store_true",
                        help="switch off drawing ahead: every key press computes and draws its picture")
    args = parser.parse_args(argv)
    found = explorer_page.explorer_names()
    chosen = [(m, n) for m, n in found if not args.explorers or n in args.explorers]
    if args.explorers and len(chosen) != len(set(args.explorers)):
        parser.error(f"unknown explorer(s); these exist: {[n for _, n in found]}")
    from playwright.sync_api import sync_playwright

    workdir = harness.new_workdir("tutor-bench-widgets-")
    source = workdir / "source"
    source.mkdir()
    scratch_notebook(chosen, source / "bench_explorers.ipynb")
    server = harness.start_server("lab", source, workdir)
    spinners = []
    rows = []
    load_before = os.getloadavg()[0]
    try:
        with sync_playwright() as p:
            browser = harness.launch_browser(p)
            page = browser.new_page(viewport=VIEWPORT)
            harness.run_lesson(page, server, "bench_explorers")
            explorers = explorer_page.explorers(page)
            if explorers.count() != len(chosen):
                raise RuntimeError(f"expected {len(chosen)} explorers on the page, found {explorers.count()}")
            if args.draw_every_time:
                page.evaluate(_KERNEL_JS, "for _ex in EX.values(): _ex.lookahead = None")
            spinners = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(args.busy)]
            for index, (_, name) in enumerate(chosen):
                rows.append(measure_explorer(page, explorers.nth(index), name, args.moves, args.busy))
                print(f"  {name}: median {rows[-1]['median']:.0f} ms", flush=True)
            browser.close()
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    busy = f", {args.busy} core(s) kept busy by other work" if args.busy else ", no extra load"
    busy += ", every picture drawn on the key press" if args.draw_every_time else ", pictures drawn ahead"
    print(f"\n{args.moves} moves per explorer, {os.cpu_count()} logical CPUs{busy}, "
          f"load average {load_before:.1f} before and {os.getloadavg()[0]:.1f} after, viewport 1280x720")
    print(table(rows))
    return 0 if all(r["median"] <= r["target"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
