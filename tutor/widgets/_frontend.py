"""How an explorer learns the size it is shown at, with nothing but standard ipywidgets.

The picture must be drawn at the pixel size the browser shows it at (CSS pixels
times ``devicePixelRatio``), so the kernel has to learn that size. Custom widget
JavaScript needs a front-end extension, which Colab lacks; so each explorer
carries two hidden standard widgets instead:

* an ``HTML`` widget whose value holds a ``<style>`` block (the explorer's CSS,
  presentation mode included) and an ``<img>`` whose ``onerror`` runs a small
  script. ipywidgets 7 and 8 both set the HTML widget's value with
  ``innerHTML``, so that script runs wherever the widget is shown;
* a ``Text`` widget (class ``tutor-size``). The script watches the picture's
  slot with a ``ResizeObserver`` and writes ``"width height dpr"`` into this
  field's ``<input>``, firing the same ``input``/``change`` events a person's
  typing fires, so the standard Text view sends the value to the kernel.

``width`` is the slot's width and ``height`` the height of the notebook's
scrolling area (both CSS pixels); ``dpr`` is the screen's device pixel ratio.
Where nothing scrolls (Colab draws each output in its own frame), the height
is estimated from the screen.

On a slide of JupyterLab's slideshow (jupyterlab-rise, reveal.js) the height is
what the slide leaves: the screen's height less the rest of the slide, so the
picture fits the slide. There the script also keeps the keys pressed on the
explorer's controls: reveal.js listens to the whole page, and would turn the
slide on the arrow keys, the space bar, Home and End while they move a slider.
The controls get them and the slide stays: the keys stop at the explorer, and
the focused control is marked ``data-lm-suppress-shortcuts``, which JupyterLab's
shortcuts skip (the slideshow's app matches them on the focused element before
anything else sees the key). Escape hands the keys back to the slides. In a
notebook, a focused radio button is marked too, and the arrow keys choose the
next or previous option of its group (instead of moving to the next cell).
"""
from __future__ import annotations

import html

#: CSS class of the explorer's root, its control panel, its picture slot and the hidden size field.
ROOT_CLASS, PANEL_CLASS, PICTURE_CLASS, SIZE_CLASS = "tutor-explorer", "tutor-panel", "tutor-picture", "tutor-size"

#: Added to the root while presentation mode is on: the panel (controls and readout) is zoomed.
PRESENTING_CLASS = "tutor-presenting"

#: Set by the page on an explorer narrower than ``NARROW_WIDTH`` CSS pixels (a side panel open, a small
#: window): presentation mode then zooms the panel by ``NARROW_ZOOM`` only, so the picture keeps its room.
NARROW_CLASS, NARROW_WIDTH, NARROW_ZOOM = "tutor-narrow", 1000, 1.15

# No margin around the picture (the widget default is 2 px): it is drawn exactly as wide as its slot.
# Toggle buttons wrap below their label instead of scrolling sideways (which cut the first letters of the label).
# Code wraps at spaces and at the <wbr> that code_html() puts after dots and "(", not inside words.
_CSS = """
.{root} {{ max-width: 100%; box-sizing: border-box; }}
.{root} .{picture} img {{ margin: 0; }}
.{root} .{panel} .widget-toggle-buttons {{ flex-wrap: wrap; overflow: visible; }}
.{root} .{panel} .widget-html-content {{ line-height: 1.35; }}
.{root} .{panel} code {{ white-space: pre-wrap; overflow-wrap: break-word; word-break: normal; font-size: 92%; }}
.{root}.{presenting} .{panel} {{ zoom: {zoom}; }}
.{root}.{presenting}.{narrow} .{panel} {{ zoom: {narrow_zoom}; }}
"""

# Runs once per shown explorer (the root remembers it), then on every resize, debounced.
_PROBE_JS = """(function (img) {
  var root = img.closest('.%(root)s');
  if (!root || root.tutorProbe) return;
  var slot = root.querySelector('.%(picture)s');
  var input = root.querySelector('.%(size)s input');
  if (!slot || !input) return;
  root.tutorProbe = true;
  function narrow() { root.classList.toggle('%(narrow)s', root.getBoundingClientRect().width < %(narrow_width)d); }
  var last = '', timer = null;
  function scroller() {
    var found = null;
    for (var el = root.parentElement; el && el !== document.body; el = el.parentElement) {
      var oy = getComputedStyle(el).overflowY;
      if (oy === 'auto' || oy === 'scroll') found = el;
    }
    return found;
  }
  function slide() { return root.closest('.reveal .slides section'); }
  function room() {
    var deck = slide();
    if (deck) {  /* the screen less the rest of the slide (its content's height, scrolled or not) */
      var rest = deck.scrollHeight - root.getBoundingClientRect().height;
      return Math.max(root.closest('.reveal').getBoundingClientRect().height - rest - 24, 0);
    }
    if (window.self !== window.top) return Math.max(screen.availHeight - 260, 320);
    var box = scroller();
    return (box && box.clientHeight) || window.innerHeight;
  }
  function send() {
    timer = null;
    if (!root.isConnected) return;
    if (slide()) root.setAttribute('data-lm-suppress-shortcuts', 'true');
    narrow();
    var width = Math.floor(slot.getBoundingClientRect().width);
    if (width <= 0) return;
    var value = [width, Math.floor(room()), window.devicePixelRatio || 1].join(' ');
    if (value === last) return;
    last = value;
    input.value = value;
    input.dispatchEvent(new Event('input', {bubbles: true}));
    input.dispatchEvent(new Event('change', {bubbles: true}));
  }
  function later() { if (timer) clearTimeout(timer); timer = setTimeout(send, 100); }
  narrow();
  if (window.ResizeObserver) {
    var watch = new ResizeObserver(later); watch.observe(slot); watch.observe(root);
    var box = scroller(); if (box) watch.observe(box);  /* the page's own bars can shrink it after the first look */
  }
  window.addEventListener('resize', later);
  /* JupyterLab's shortcuts skip an element marked so, and the slideshow's match the focused control itself;
     in a notebook a radio button keeps its arrow keys (JupyterLab would move to the next cell on ArrowDown) */
  root.addEventListener('focusin', function (event) {
    if (slide() || event.target.type === 'radio') event.target.setAttribute('data-lm-suppress-shortcuts', 'true');
  });
  /* The arrow keys choose the next or the previous option of a radio group (ipywidgets' radio buttons are not
     one group to the browser); a click tells the widget, as a mouse click does */
  root.addEventListener('keydown', function (event) {
    var target = event.target, box = target.closest && target.closest('.widget-radio-box');
    var step = {ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1}[event.key];
    if (!box || target.type !== 'radio' || !step) return;
    var radios = Array.prototype.slice.call(box.querySelectorAll('input[type=radio]'));
    var next = radios[radios.indexOf(target) + step];
    event.preventDefault(); event.stopPropagation();
    if (next && !next.disabled) { next.setAttribute('data-lm-suppress-shortcuts', 'true'); next.focus(); next.click(); }
  });
  root.addEventListener('keydown', function (event) {
    if (!slide()) return;
    if (event.key === 'Escape') { var cell = root.closest('.jp-Cell'); if (cell) cell.focus(); }
    event.stopPropagation();
  });
  later();
})(this);"""


def probe_html(zoom: float) -> str:
    """The hidden HTML widget's value: the explorer's CSS and the size script."""
    css = _CSS.format(root=ROOT_CLASS, panel=PANEL_CLASS, picture=PICTURE_CLASS, presenting=PRESENTING_CLASS,
                      narrow=NARROW_CLASS, zoom=f"{zoom:g}", narrow_zoom=f"{min(zoom, NARROW_ZOOM):g}")
    js = _PROBE_JS % {"root": ROOT_CLASS, "picture": PICTURE_CLASS, "size": SIZE_CLASS, "narrow": NARROW_CLASS,
                      "narrow_width": NARROW_WIDTH}
    js = " ".join(line.strip() for line in js.splitlines())
    return f"<style>{css}</style><img src='data:,' alt='' style='display:none' onerror=\"{html.escape(js, quote=True)}\">"


def code_html(text: str) -> str:
    """``text`` as inline code for a readout: escaped, breakable at spaces and after dots and ``(`` only.

    >>> code_html("ds.batch(4, drop_remainder=True)")
    '<code>ds.<wbr>batch(<wbr>4, drop_remainder=True)</code>'
    """
    escaped = html.escape(str(text), quote=False)
    for mark in (".", "("):
        escaped = escaped.replace(mark, mark + "<wbr>")
    return f"<code>{escaped}</code>"


def parse_size(text: str) -> tuple[int, int, float] | None:
    """``(width, height, dpr)`` from the size field's ``"width height dpr"``; None when it is not that.

    >>> parse_size("812 604 1.25")
    (812, 604, 1.25)
    >>> parse_size("") is None
    True
    """
    parts = str(text).split()
    if len(parts) != 3:
        return None
    try:
        width, height, dpr = int(float(parts[0])), int(float(parts[1])), float(parts[2])
    except ValueError:
        return None
    if width <= 0 or height < 0 or not 0.25 <= dpr <= 8:
        return None
    return width, height, dpr
