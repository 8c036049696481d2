"""A lesson as slides in JupyterLab's slideshow (jupyterlab-rise): open it, step through it, run its cells.

Shared by tests/browser/. Nothing here is a test. The slideshow is a page of its own (``/rise/<notebook>``), a
small JupyterLab app showing the notebook with reveal.js: each slide is a ``section`` whose id is
``slide-<h>-<v>`` (from 0), as :mod:`tools.slides` numbers them.
"""
from __future__ import annotations

import re

from .harness import Server, open_notebook

#: The present slide (the innermost present section) and the deck's address.
_PRESENT_JS = """() => { const s = document.querySelector('.reveal .slides section.present section.present')
                         || document.querySelector('.reveal .slides section.present');
                         return {id: s ? s.id : '', hash: location.hash}; }"""

_IDLE_JS = """() => !Array.from(document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt'))
                   .some(p => p.textContent.includes('*'))"""

# innerText is empty for a cell not shown yet (a fragment to come, a slide still being laid out): textContent then.
_ACTIVE_JS = """() => { const textOf = el => el.innerText || el.textContent;
                        const cells = Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell'));
                        const active = document.querySelector('.jp-Notebook .jp-Cell.jp-mod-active');
                        return {index: cells.indexOf(active), code: active && active.classList.contains('jp-CodeCell'),
                                text: active ? textOf(active.querySelector('.jp-InputArea-editor') || active) : ''}; }"""

#: What jupyterlab-rise's page itself logs as errors, whatever the notebook: its toolbar's web components overflow
#: the stack, the notebook lab extension (built for JupyterLab, not for this page) cannot find its modules, the
#: optional per-folder stylesheets are missing, and a front end sharing the kernel hears of widgets another made.
KNOWN_NOISE = ("Maximum call stack size exceeded", "RUNTIME-012", "shareKey", "module-federation.io",
               "Failed to load resource", "rise.css", ".css' because its MIME type", "Comm not found for comm id")



def present(page) -> dict:
    """``{'id': 'slide-3-0', 'hash': '#/slide-3-0'}`` of the slide shown."""
    return page.evaluate(_PRESENT_JS)


def active_cell(page) -> dict:
    """``{'index', 'code', 'text'}`` of the slideshow's active cell (its index counts every cell of the notebook)."""
    return page.evaluate(_ACTIVE_JS)


def open_slideshow(page, server: Server, name: str, timeout_ms: int = 120_000):
    """Open ``name`` in JupyterLab, press Alt+R (RISE's key), then open the slideshow's own page in a new tab.

    Returns ``(preview_frame, slideshow_page)``: the slideshow Alt+R shows beside the notebook, and the same
    slideshow as a page of its own, ``/rise/<name>``, which is what the preview's full-screen button fills the
    screen with (the test drives that page: a frame put in full screen is the same page at the screen's size).
    """
    open_notebook(page, server, name, timeout_ms)
    page.evaluate("() => window.jupyterapp.shell.currentWidget.content.activate()")
    page.keyboard.press("Escape")
    page.keyboard.press("Alt+r")
    preview = page.frame_locator("iframe[src*='/rise/']")
    preview.locator(".reveal .slides section.present").first.wait_for(timeout=timeout_ms)
    slideshow = page.context.new_page()
    slideshow.goto(server.url(f"rise/{name}"), wait_until="domcontentloaded", timeout=timeout_ms)
    slideshow.wait_for_selector(".reveal .slides section.present", timeout=timeout_ms)
    slideshow.wait_for_function("() => document.querySelector('.jp-Notebook .jp-Cell.jp-mod-active') !== null",
                                timeout=timeout_ms)
    slideshow.locator(".jp-Notebook").first.focus()
    return preview, slideshow


def run_cell(page, keys: str, timeout_ms: int = 300_000) -> None:
    """Press ``keys`` (Shift+Enter: run and go on; Ctrl+Enter: run and stay) and wait until the kernel is done."""
    page.keyboard.press(keys)
    page.wait_for_timeout(200)
    page.wait_for_function(_IDLE_JS, timeout=timeout_ms, polling=200)


def run_until(page, wanted, edit=None, limit: int = 80) -> tuple[dict, list[str]]:
    """Run cell after cell with Shift+Enter, as a teacher does, until the active cell's text matches ``wanted``
    (a regex); run that one with Ctrl+Enter, which stays on its slide.

    ``edit(text) -> str | None``: a line to add at the end of a cell before it runs (a teacher's edit), or None.
    Returns the active cell found and the slides passed on the way.
    """
    passed = []
    for _ in range(limit):
        cell = active_cell(page)
        if present(page)["id"] not in passed:
            passed.append(present(page)["id"])
        if cell["code"] and re.search(wanted, cell["text"]):
            run_cell(page, "Control+Enter")
            return cell, passed
        line = edit(cell["text"]) if (edit and cell["code"]) else None
        if line:
            active = page.locator(".jp-Notebook .jp-Cell.jp-mod-active .cm-content").first
            active.click()
            page.keyboard.press("Control+End")
            page.keyboard.type("\n" + line)
            page.keyboard.press("Escape")
        run_cell(page, "Shift+Enter")
    raise AssertionError(f"no cell matching {wanted!r} within {limit} cells (slides passed: {passed})")
