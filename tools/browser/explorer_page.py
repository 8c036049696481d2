"""The explorers on a live page: where their parts are, whether they fit, and whether they answer.

Shared by tests/browser/ and benchmarks/widgets.py. Nothing here is a test.
Every explorer is a ``.tutor-explorer`` box: a ``.tutor-panel`` (controls,
buttons, readout) beside a ``.tutor-picture`` holding the figure's <img>.
"""
from __future__ import annotations

import re

from .harness import ARTIFACTS, ROOT


def explorers(page, lab: bool = True):
    """Locator of every explorer widget on the notebook shown (``lab=False``: the classic Notebook UI)."""
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .tutor-explorer" if lab else ".tutor-explorer")


def explorer_parts(explorer):
    """(slider handle, slider readout, explorer readout, image) of one explorer."""
    slider = explorer.locator(".tutor-panel .widget-slider").first
    handle = slider.locator(".noUi-handle, .ui-slider-handle, [role=slider]").first
    slider_readout = slider.locator(".widget-readout").first
    readout = explorer.locator(".tutor-panel > .widget-html").first
    image = explorer.locator(".tutor-picture img").first
    return handle, slider_readout, readout, image


_SIZED_JS = """root => { const img = root.querySelector('.tutor-picture img');
    const field = root.querySelector('.tutor-size input');
    if (!img || !img.complete || !img.naturalWidth || !field || !field.value) return false;
    const [width, height, dpr] = field.value.split(' ').map(Number);
    if (img.naturalWidth > width * dpr + 1.5 || (height > 0 && img.naturalHeight > height * dpr + 1.5)) return false;
    const shown = img.getBoundingClientRect().width;
    return Math.abs(img.naturalWidth - shown * devicePixelRatio) < 1.5; }"""


def wait_until_sized(page, explorer, timeout_ms: int = 60_000) -> None:
    """Wait until the page has told the kernel the picture's room and the picture came back at that size.

    The room can change after the first picture came (the front end's banners and toolbars arrive late and
    shrink the scrolling area): then the kernel draws again, which a busy machine can make take seconds. So
    this waits for a picture that fits the room the size field reports now, not only for a picture.
    """
    page.wait_for_function(_SIZED_JS, arg=explorer.element_handle(), timeout=timeout_ms, polling=100)


_GEOMETRY_JS = """root => {
    const box = el => { const r = el.getBoundingClientRect(); return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height}; };
    const panel = root.querySelector('.tutor-panel');
    const first = panel.firstElementChild;
    const img = root.querySelector('.tutor-picture img');
    // The output area the explorer is shown in (JupyterLab, classic Notebook), or the root's parent.
    const area = root.closest('.jp-OutputArea-output, .output_subarea, .output_area') || root.parentElement;
    // Labels cut by a box that hides its overflow (or scrolled sideways) between the label and the explorer.
    const clipped = [];
    panel.querySelectorAll('label, .widget-label, .widget-label-basic, button, .widget-readout').forEach(label => {
        const text = (label.innerText || '').trim();
        const r = label.getBoundingClientRect();
        if (!text || !r.width) return;
        for (let el = label.parentElement; el && el !== root.parentElement; el = el.parentElement) {
            const style = getComputedStyle(el), b = el.getBoundingClientRect();
            const hides = style.overflowX !== 'visible';
            if (el.scrollLeft > 0 || (hides && (r.left < b.left - 0.5 || r.right > b.right + 0.5))) {
                clipped.push(text); break;
            }
        }
        if (label.scrollWidth > label.clientWidth + 1 && getComputedStyle(label).overflowX !== 'visible') clipped.push(text);
    });
    // Parts of different controls drawn over each other (a readout that wrapped onto the next control, say).
    const parts = Array.from(panel.querySelectorAll('label, .widget-label, .widget-readout, button, select, .widget-slider .slider-container, input[type=checkbox]'))
        .filter(el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; });
    const overlaps = [];
    for (let i = 0; i < parts.length; i++) for (let j = i + 1; j < parts.length; j++) {
        const a = parts[i], b = parts[j];
        if (a.contains(b) || b.contains(a)) continue;
        const ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
        const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left), h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
        if (w > 2 && h > 2) overlaps.push(`${(a.innerText || a.className).trim().slice(0, 30)} / ${(b.innerText || b.className).trim().slice(0, 30)}`);
    }
    // Code in the readout broken inside a word: two word characters next to each other on different lines.
    const midWord = [];
    panel.querySelectorAll('code').forEach(code => {
        const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
        let prev = null;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (let i = 0; i < node.length; i++) {
                const range = document.createRange();
                range.setStart(node, i); range.setEnd(node, i + 1);
                const rect = range.getClientRects()[0];
                const ch = node.data[i];
                if (!rect) continue;
                if (prev && /\\w/.test(prev.ch) && /\\w/.test(ch) && rect.top > prev.top + rect.height / 2)
                    midWord.push(code.innerText.slice(0, 60));
                prev = {ch: ch, top: rect.top};
            }
        }
    });
    return {viewport: {width: window.innerWidth, height: window.innerHeight}, dpr: window.devicePixelRatio,
            first: box(first), image: box(img), natural: {width: img.naturalWidth, height: img.naturalHeight},
            panel: box(panel), root: box(root), area: box(area), slot: box(root.querySelector('.tutor-picture')),
            overflow_x: Math.max(area.scrollWidth - area.clientWidth, root.getBoundingClientRect().right - area.getBoundingClientRect().right),
            clipped: Array.from(new Set(clipped)), overlaps: overlaps, mid_word: Array.from(new Set(midWord)),
            zoom: parseFloat(getComputedStyle(panel).zoom || '1'), size_field: root.querySelector('.tutor-size input').value};
}"""


def geometry(explorer) -> dict:
    """Where the explorer's parts are, in CSS pixels: controls, picture (and its natural size), panel, output area.

    Also what would be wrong to a reader: ``overflow_x`` (how far the explorer
    reaches past its output area, which then scrolls sideways), ``clipped``
    (labels cut off by a box that hides its overflow), ``overlaps`` (parts of
    controls drawn over each other) and ``mid_word`` (code in the readout
    broken inside a word).
    """
    return explorer.evaluate(_GEOMETRY_JS)


def settled_geometry(page, explorer, *, pause_ms: int = 250, timeout_ms: int = 30_000) -> dict:
    """:func:`geometry` once the page has stopped moving: two readings ``pause_ms`` apart agree on where every part is.

    A busy machine can take longer than any fixed pause to finish a scroll or a layout (the front end's banners
    and toolbars arrive late), so the test waits for the layout itself, up to ``timeout_ms``.
    """
    def where(g):
        return [tuple(round(float(v)) for v in g[name].values()) for name in ("first", "image")] + [g["viewport"]]

    last = geometry(explorer)
    for _ in range(max(1, timeout_ms // pause_ms)):
        page.wait_for_timeout(pause_ms)
        now = geometry(explorer)
        if where(now) == where(last):
            return now
        last = now
    return last


#: Explorers narrower than this (CSS pixels) zoom their panel less in presentation mode (see tutor/widgets/_frontend.py).
NARROW_WIDTH = 1000


def show_file_browser(page, shown: bool = True, timeout_ms: int = 60_000) -> None:
    """Open (or close) JupyterLab's file browser in the left side bar; wait until the explorers drew at the new width."""
    if page.evaluate("() => !window.jupyterapp.shell.leftCollapsed") == shown:
        return
    fields = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .tutor-explorer .tutor-size input")
    before = [fields.nth(i).input_value() for i in range(fields.count())]
    page.evaluate("open => open ? window.jupyterapp.shell.activateById('filebrowser') : window.jupyterapp.shell.collapseLeft()",
                  shown)
    for i, value in enumerate(before):  # each explorer reports its new room; its picture comes back at that size
        page.wait_for_function("([el, old]) => el.value !== old", arg=[fields.nth(i).element_handle(), value],
                               timeout=timeout_ms)
        wait_until_sized(page, explorers(page).nth(i), timeout_ms)


def click_each_toggle(page, explorer, timeout_ms: int = 60_000) -> dict:
    """Click every enabled checkbox and toggle button of the explorer's panel, then return its :func:`geometry`.

    Each click waits for the explorer's answer: a new picture, or a new readout where the setting changes
    nothing drawn (``drop_remainder`` when no batch is short still changes the code in the readout). The layout
    is measured after the last.
    """
    _, _, readout, image = explorer_parts(explorer)
    targets = explorer.locator(".tutor-panel input[type=checkbox]:not([disabled]), "
                               ".tutor-panel .widget-toggle-buttons button:not([disabled]):not(.mod-active)")
    for index in range(targets.count()):
        target = targets.nth(index)
        if not target.is_visible():
            continue
        before = [image.get_attribute("src"), readout.inner_html()]
        target.click()
        try:
            page.wait_for_function("([img, text, before]) => img.src !== before[0] || text.innerHTML !== before[1]",
                                   arg=[image.element_handle(), readout.element_handle(), before], timeout=timeout_ms)
        except Exception:  # noqa: BLE001 -- a click the explorer does not answer: the layout check still runs
            pass
    return settled_geometry(page, explorer)


#: The narrowest picture an explorer may show, as a share of its own width, where the panel sits beside it.
MIN_PICTURE_SHARE = 0.55


def layout_problems(g: dict) -> list[str]:
    """What is wrong with a :func:`geometry`: outside the viewport, stretched, out of proportion, overflowing,
    clipped labels, code broken inside a word, a picture squeezed by the panel, a panel taller than the screen."""
    problems = []
    vw, vh = g["viewport"]["width"], g["viewport"]["height"]
    for name in ("first", "image"):
        r = g[name]
        if r["left"] < -0.5 or r["top"] < -0.5 or r["right"] > vw + 0.5 or r["bottom"] > vh + 0.5:
            problems.append(f"the {name} {'control' if name == 'first' else 'picture'} is not inside the "
                            f"{vw}x{vh} viewport: {r}")
    shown, natural = g["image"], g["natural"]
    if natural["width"] < shown["width"] * g["dpr"] - 0.5:
        problems.append(f"the picture is upscaled: {natural['width']} pixels wide shown at {shown['width']:.1f} CSS "
                        f"pixels x devicePixelRatio {g['dpr']}")
    if natural["height"] and shown["height"]:
        ratio = (natural["width"] / natural["height"]) / (shown["width"] / shown["height"])
        if abs(ratio - 1) > 0.01:
            problems.append(f"aspect ratio not kept: natural {natural}, shown {shown['width']:.1f}x{shown['height']:.1f}")
    if g["overflow_x"] > 0.5:
        problems.append(f"the explorer is {g['overflow_x']:.1f} px wider than its output area (a sideways scrollbar)")
    if g["clipped"]:
        problems.append(f"labels cut off: {g['clipped']}")
    if g["overlaps"]:
        problems.append(f"controls drawn over each other: {g['overlaps'][:5]}")
    if g["mid_word"]:
        problems.append(f"readout code broken inside a word: {g['mid_word']}")
    if g["panel"]["height"] > vh:
        problems.append(f"the control panel is {g['panel']['height']:.0f} px tall, taller than the {vh} px screen")
    # The picture's room beside the panel (the picture itself may be narrower: limited by its height or its size).
    room = g["slot"]
    if room["left"] >= g["panel"]["right"] - 0.5 and room["width"] < MIN_PICTURE_SHARE * g["root"]["width"]:
        problems.append(f"the picture is squeezed into {room['width']:.0f} px beside the panel, under "
                        f"{MIN_PICTURE_SHARE:.0%} of the explorer's {g['root']['width']:.0f} px")
    return problems


def image_digest(image) -> dict:
    """SHA-256 and size of the bytes behind an <img> (fetched from its blob/data URL in the page)."""
    return image.evaluate(
        """async img => { const data = await (await fetch(img.src)).arrayBuffer();
                          const hash = await crypto.subtle.digest('SHA-256', data);
                          return {src: img.src, size: data.byteLength,
                                  sha256: Array.from(new Uint8Array(hash)).map(b => b.toString(16).padStart(2, '0')).join('')}; }"""
    )


def press_and_wait(page, handle, image, key: str, timeout_ms: int = 60_000) -> str:
    """Focus the slider handle, press ``key``, and wait until the image src changes; returns the new src."""
    before = image.get_attribute("src")
    handle.focus()
    page.keyboard.press(key)
    page.wait_for_function("([img, before]) => img.src !== before", arg=[image.element_handle(), before], timeout=timeout_ms)
    return image.get_attribute("src")


def translations(language: str, messages: list[str]) -> list[str]:
    """What tutor's compiled catalog of ``language`` says for each of ``messages``, where it translates them.

    Read with the standard library, without importing tutor (or TensorFlow): an
    edition's explorer must show these instead of the English.

    >>> translations("en", ["reset"])
    []
    """
    import gettext

    catalog = gettext.translation("tutor", ROOT / "tutor" / "locale", languages=[language], fallback=True)
    return [text for text in (catalog.gettext(m) for m in messages) if text not in messages]


def has_font_for(language: str) -> bool:
    """Whether fontconfig (which Chromium asks on Linux) has a font for ``language``'s script, e.g. ``"ja"``.

    Without one, Chromium draws empty boxes, and an edition's labels are not measured at their real width.
    """
    import subprocess

    try:
        found = subprocess.run(["fc-list", f":lang={language}", "family"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return bool(found.stdout.strip())


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def numbers_in(text: str) -> list[float]:
    """Every number in ``text`` (a Unicode minus counts as a minus sign)."""
    return [float(n) for n in _NUMBER.findall(text.replace("\u2212", "-"))]


def _moved(before: list[float], after: list[float]) -> list[float]:
    return [new for old, new in zip(before, after) if new != old]



def drag_and_wait(page, handle, image, dx: float, timeout_ms: int = 60_000) -> str:
    """Drag the slider handle ``dx`` pixels with the mouse and wait until the image src changes."""
    before = image.get_attribute("src")
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx, y, steps=8)
    page.mouse.up()
    page.wait_for_function("([img, before]) => img.src !== before", arg=[image.element_handle(), before], timeout=timeout_ms)
    return image.get_attribute("src")


def exercise_explorer(page, explorer, label: str, *, mouse: bool = False) -> dict:
    """Move an explorer's first slider with the keyboard (right, then back left) and check the figure follows.

    Asserts that the <img> bytes change and that the slider readout and the
    explorer's readout show the new value. Saves ``label-before.png`` and
    ``label-after.png`` under test-artifacts/browser/. With ``mouse=True`` the
    handle is dragged instead (Notebook 7 binds ArrowLeft/ArrowRight to
    heading navigation in command mode, so a focused slider never gets them).
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    handle, slider_readout, readout, image = explorer_parts(explorer)
    explorer.scroll_into_view_if_needed()
    assert handle.count() == 1, f"{label}: no slider found in the explorer"
    image.wait_for(state="visible")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    start_values = numbers_in(slider_readout.inner_text())  # one number, or two for a range slider
    at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
    forward, back = ("ArrowLeft", "ArrowRight") if at_max else ("ArrowRight", "ArrowLeft")
    explorer.screenshot(path=str(ARTIFACTS / f"{label}-before.png"))
    before = image_digest(image)
    before_readout = readout.inner_text()

    if mouse:
        drag_and_wait(page, handle, image, -40 if at_max else 40)
    else:
        press_and_wait(page, handle, image, forward)
    moved_values = numbers_in(slider_readout.inner_text())
    after = image_digest(image)
    page.wait_for_function("([el, old]) => el.innerText !== old", arg=[readout.element_handle(), before_readout], timeout=30_000)
    after_readout = readout.inner_text()
    explorer.screenshot(path=str(ARTIFACTS / f"{label}-after.png"))
    moved = _moved(start_values, moved_values)
    assert moved, f"{label}: {forward} did not move the slider (still {start_values})"
    assert after["sha256"] != before["sha256"], f"{label}: the image bytes did not change after {forward}"
    missing = [v for v in moved if v not in numbers_in(after_readout)]
    assert not missing, f"{label}: readout does not show the new value {missing}: {after_readout!r}"

    if mouse:
        return {"start": start_values, "moved": moved_values, "before": before, "after": after}
    press_and_wait(page, handle, image, back)
    back_values = numbers_in(slider_readout.inner_text())
    page.wait_for_function("([el, old]) => el.innerText !== old", arg=[readout.element_handle(), after_readout], timeout=30_000)
    back_digest = image_digest(image)
    assert back_values == start_values, f"{label}: {back} did not bring the slider back to {start_values} ({back_values})"
    assert back_digest["sha256"] != after["sha256"], f"{label}: the image bytes did not change after {back}"
    missing = [v for v in _moved(moved_values, back_values) if v not in numbers_in(readout.inner_text())]
    assert not missing, f"{label}: readout does not show {missing} again: {readout.inner_text()!r}"
    return {"start": start_values, "moved": moved_values, "before": before, "after": after}


_ACTIVE_CELL_JS = "() => window.jupyterapp ? window.jupyterapp.shell.currentWidget.content.activeCellIndex : -1"
_CHECKED_JS = "box => Array.from(box.querySelectorAll('input[type=radio]')).findIndex(r => r.checked)"


def choose_with_keys(page, explorer, label: str, timeout_ms: int = 60_000) -> dict | None:
    """Focus the chosen option of the explorer's first radio group and press ArrowDown (ArrowUp at the last).

    Asserts that the next option is chosen, that the picture changes, and that
    the notebook kept its active cell (on a dropdown, JupyterLab took ArrowDown
    and moved to the next cell). None when the explorer has no radio group.
    """
    group = explorer.locator(".tutor-panel .widget-radio-box").first
    if group.count() == 0:
        return None
    _, _, _, image = explorer_parts(explorer)
    radios = group.locator("input[type=radio]")
    start = group.evaluate(_CHECKED_JS)
    key, want = ("ArrowUp", start - 1) if start == radios.count() - 1 else ("ArrowDown", start + 1)
    before = image.get_attribute("src")
    radios.nth(start).focus()  # the explorer's cell becomes the active one
    cell = page.evaluate(_ACTIVE_CELL_JS)
    page.keyboard.press(key)
    page.wait_for_function("([img, old]) => img.src !== old", arg=[image.element_handle(), before],
                           timeout=timeout_ms)
    chosen = group.evaluate(_CHECKED_JS)
    assert chosen == want, f"{label}: {key} on option {start} chose option {chosen}, not {want}"
    assert page.evaluate(_ACTIVE_CELL_JS) == cell, f"{label}: {key} on a radio button moved the notebook's cell"
    return {"key": key, "from": start, "to": chosen}


# --------------------------------------------------------------------------- scratch notebooks of explorers

_EXPLORER_DEF = re.compile(r"^def (\w+_explorer)\(", re.MULTILINE)


def explorer_names() -> list[tuple[str, str]]:
    """``(module, function)`` of every ``*_explorer`` defined in tutor/widgets/ (new explorers are found by themselves)."""
    found = []
    for path in sorted((ROOT / "tutor" / "widgets").glob("*.py")):
        if not path.name.startswith("_"):
            found += [(path.stem, name) for name in _EXPLORER_DEF.findall(path.read_text(encoding="utf-8"))]
    return found


def explorer_notebook(path, explorers: list[tuple[str, ...]], *, presentation: bool = False,
                      display: bool = False) -> None:
    """A notebook that shows each ``(module, function)`` explorer, with its default arguments, in its own cell,
    in or out of presentation mode.

    Each explorer is its cell's value, as in the lessons; ``display=True``
    shows it with ``display(ex)`` instead (nbclassic's ipywidgets 7 front end
    draws widgets from ``display`` only). A third item, ``(module, function,
    language)``, builds that explorer after ``tutor.set_language(language)``,
    as an edition's lesson does. The kernel has one language: the explorers
    shown above it draw their later pictures and readouts in it too.
    """
    import nbformat

    cells = [nbformat.v4.new_code_cell(f"import tutor\nmode = tutor.presentation({presentation})")]
    language = "en"
    for module, name, *rest in explorers:
        show = "display(ex)" if display else "ex"
        switch = ""
        if rest and rest[0] != language:
            language = rest[0]
            switch = f"tutor.set_language({language!r})\n"
        cells.append(nbformat.v4.new_code_cell(f"{switch}from tutor.widgets.{module} import {name}\nex = {name}()\n{show}"))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, str(path))
