"""The explorer machinery every explorer shares (tutor/widgets/: Explorer, its canvas, the page glue, the lookahead).

Each explorer's own tests are in tests/test_<name>_explorer.py; what the page does is in tests/browser/. Here the
kernel side, for any explorer: unknown controls and bad arguments are refused, the picture is drawn at the size it
is shown (never stretched), nothing drawn reaches past the figure's edge, presentation mode scales controls and
figures together, and the pictures one key press away are drawn ahead.
"""
import numpy as np
import pytest
import tensorflow as tf
from matplotlib.text import Text

import tutor
from tutor import style
from tutor.widgets import _frontend


def texts_outside(figure) -> list[str]:
    """Every visible, non-empty text whose drawn extent reaches past the figure's edges (half a pixel of slack)."""
    figure.canvas.draw()
    renderer, box = figure.canvas.get_renderer(), figure.bbox
    undrawn = set()  # tick labels of ticks outside the axis' limits exist but are never drawn
    for ax in figure.axes:
        for axis, coordinate in ((ax.xaxis, 0), (ax.yaxis, 1)):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - 1e-9 <= tick.get_loc() <= hi + 1e-9:
                    undrawn.update({id(tick.label1), id(tick.label2)})
    outside = []
    for text in figure.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or id(text) in undrawn:
            continue
        e = text.get_window_extent(renderer)
        if e.x0 < box.x0 - 0.5 or e.y0 < box.y0 - 0.5 or e.x1 > box.x1 + 0.5 or e.y1 > box.y1 + 0.5:
            outside.append(f"{text.get_text()!r} at {tuple(round(v) for v in e.extents)} in {tuple(box.extents)}")
    return outside


def test_set_rejects_unknown_controls():
    with pytest.raises(KeyError, match="buffer_size"):
        tutor.shuffle_explorer().set(bufsize=3)


def test_explorers_validate_arguments():
    with pytest.raises(ValueError, match="buffer_size"):
        tutor.shuffle_explorer(buffer_size=0)
    with pytest.raises(ValueError, match="order must be one of"):
        tutor.order_explorer(order="shuffle→shuffle")


@pytest.mark.parametrize("width, height, dpr", [(820, 600, 1.0), (600, 400, 2.0), (1000, 300, 1.25), (400, 0, 1.0)])
def test_picture_is_drawn_at_the_size_shown(width, height, dpr):
    ex = tutor.shuffle_explorer()
    ex.resize(width, height, dpr)
    css_w = ex.canvas.css_width
    png_w, png_h = ex.canvas.pixel_size
    assert ex.image.layout.width == f"{css_w}px" and ex.image.layout.height == "auto"  # height follows the picture
    assert css_w <= width and png_w == round(css_w * dpr)  # never wider than the room, never upscaled
    assert abs(png_h / png_w - ex.canvas.aspect) < 2 / png_w  # aspect kept
    if height:
        assert png_h / dpr <= height  # fits the height of the scrolling area
    from PIL import Image
    import io

    assert Image.open(io.BytesIO(ex.image.value)).size == (png_w, png_h)


def test_the_page_reports_the_size_through_the_hidden_field():
    ex = tutor.order_explorer()
    size_field = next(c for c in ex.children if _frontend.SIZE_CLASS in c._dom_classes)
    size_field.value = "500 450 2"
    assert ex.canvas.css_width <= 500 and ex.canvas.pixel_size[0] == 2 * ex.canvas.css_width
    before = ex.canvas.pixel_size
    size_field.value = "nonsense"  # ignored
    assert ex.canvas.pixel_size == before
    probe = next(c for c in ex.children if c is not size_field and "onerror" in getattr(c, "value", ""))
    assert _frontend.ROOT_CLASS in ex._dom_classes and "ResizeObserver" in probe.value
    assert ex.image.layout.margin == "0"  # exactly as wide as its slot: no sideways scrollbar
    assert _frontend.NARROW_CLASS in probe.value  # the page marks a narrow explorer; presentation zooms it less


@pytest.mark.parametrize("presenting", [False, True])
@pytest.mark.parametrize("room", [(820, 600), (420, 560)])
def test_no_label_reaches_past_the_figure(presenting, room):
    tutor.presentation(presenting)
    try:
        shuffle = tutor.shuffle_explorer().resize(*room)
        order = tutor.order_explorer().resize(*room)
        timeline = tutor.timeline_explorer().resize(*room)
        augment = tutor.augment_explorer().resize(*room)
        for values in [{}, dict(epochs=4), dict(buffer_size=200, epochs=2)]:
            shuffle.set(**values)
            assert not texts_outside(shuffle.figure), values
        for values in [dict(batch_size=1, count=4), dict(batch_size=12, count=1, drop_remainder=True),
                       dict(batch_size=3, count=4, order="ds.repeat().shuffle().batch()")]:
            order.set(**values)
            assert not texts_outside(order.figure), values
        for values in [dict(prefetch=True, cache=True), dict(step_ms=0, num_parallel_calls=4, interleave=True)]:
            timeline.set(**values)
            assert not texts_outside(timeline.figure), values
        augment.set(seed=3)
        assert not texts_outside(augment.figure)
    finally:
        tutor.presentation(False)


def test_presentation_mode_scales_controls_and_figures_together():
    import matplotlib as mpl

    before = mpl.rcParams["font.size"]
    plain = tutor.shuffle_explorer().resize(820, 600)
    assert tutor.presentation(True) is True
    try:
        assert mpl.rcParams["font.size"] > before
        big = tutor.shuffle_explorer().resize(820, 600)
        assert _frontend.PRESENTING_CLASS in big._dom_classes and _frontend.PRESENTING_CLASS not in plain._dom_classes
        assert f"zoom: {style.PRESENTATION_SCALE:g}" in next(c.value for c in big.children if "onerror" in getattr(c, "value", ""))
        # The figure's labels grow with the controls ...
        assert big.display.ax_.xaxis.label.get_fontsize() > plain.display.ax_.xaxis.label.get_fontsize()
        # ... and the dots do not shrink: their diameter in device pixels grows too.
        def dot_pixels(ex):
            return np.sqrt(ex.display.points_.get_sizes()[0]) * ex.figure.dpi / 72
        assert dot_pixels(big) > dot_pixels(plain)
        assert big.canvas.pixel_size[0] <= 820  # still drawn at the size shown
    finally:
        assert tutor.presentation(False) is False
    assert mpl.rcParams["font.size"] == before
    with pytest.raises(TypeError):
        tutor.presentation("yes")


def test_explorer_keeps_its_constructor_arguments():
    from tutor.widgets import Explorer

    def compute(n):
        return tutor.ShuffleDisplay.from_dataset(tf.data.Dataset.range(n))

    ex = Explorer({"n": tutor.widgets._base.int_slider(5, 2, 9, "n")}, compute,
                  options=lambda disp, previous: {"title": f"{disp.order.size} elements"},
                  describe=lambda disp, values: f"n={values['n']}", figsize=(6, 3), name="mine",
                  margins={"left": 0.2})
    ex.controls["n"].value = 7
    assert ex.display.order.tolist() == list(range(7)) and ex.readout.value == "n=7"
    assert ex.display.ax_.get_title(loc="left") == "7 elements"  # the options reach plot and replot
    assert repr(ex).startswith("mine")


def _show_in_page(ex, size="700 600 1"):
    """What the page does once the explorer is on screen: report its room through the hidden field."""
    next(c for c in ex.children if _frontend.SIZE_CLASS in c._dom_classes).value = size


def test_pictures_one_key_press_away_are_drawn_ahead_once_shown():
    ex = tutor.shuffle_explorer()
    ex.controls["buffer_size"].value = 11
    assert ex.lookahead.wait() and ex.last_source == "drawn"
    assert len(ex.lookahead._frames) == 2  # not shown yet: only what was drawn for real is kept
    _show_in_page(ex)
    assert ex.lookahead.wait() and ex.lookahead.error is None
    ex.controls["buffer_size"].value = 12  # the next position the same way: drawn ahead
    assert ex.last_source == "ahead"
    fresh = tutor.ShuffleDisplay.from_params(n_elements=100, buffer_size=12)
    assert "buffer_size=12" in ex.readout.value
    # Looking at the display draws it into the explorer's own figure.
    assert np.array_equal(ex.display.order, fresh.order)
    assert np.array_equal(ex.display.points_.get_offsets()[:, 1], fresh.order)
    assert ex.display.ax_.figure is ex.figure
    # The picture drawn ahead is the picture drawn for real.
    plain = tutor.shuffle_explorer()
    plain.lookahead = None
    plain.resize(700, 600, 1)
    plain.controls["buffer_size"].value = 12
    from PIL import Image
    import io

    ahead = np.asarray(Image.open(io.BytesIO(ex.image.value)))
    drawn = np.asarray(Image.open(io.BytesIO(plain.image.value)))
    assert ahead.shape == drawn.shape and (ahead != drawn).any(axis=-1).mean() < 0.01


def test_lookahead_plans_the_direction_just_taken_first():
    ex = tutor.order_explorer()
    _show_in_page(ex)
    ex.lookahead.wait()
    ex.controls["batch_size"].value = 3  # moving down
    ex.lookahead.wait()
    ex.controls["batch_size"].value = 2
    assert ex.last_source == "ahead" and ex.display.batch_sizes == [2] * 15
    ex.lookahead.wait()
    ex.controls["drop_remainder"].value = True  # a checkbox: its other value is one click away too
    assert ex.last_source == "ahead" and ex.readout.value.count("drop_remainder=True") == 1


def test_choices_are_radio_buttons_the_keyboard_can_move_in_jupyterlab():
    import ipywidgets as widgets

    explorers = {"order": (tutor.order_explorer(), "order"), "augment": (tutor.augment_explorer(), "path"),
                 "sources": (tutor.sources_explorer(), "transformation")}
    for name, (ex, control) in explorers.items():
        found = ex.controls[control]
        assert isinstance(found, widgets.RadioButtons), (name, type(found).__name__)
        assert not any(isinstance(c, widgets.Dropdown) for c in ex.controls.values()), name
        assert found.layout.flex_flow == "column"  # the name above the options, which keep the panel's width
        options = list(found.options)
        ex.controls[control].value = options[-1]  # choosing another option redraws, as a dropdown did
        assert ex.controls[control].value == options[-1] and ex.error is None
    # In a notebook the page script keeps a focused radio button's arrow keys from JupyterLab's shortcuts.
    probe = _frontend.probe_html(1.4)
    assert "event.target.type === &#x27;radio&#x27;" in probe and "data-lm-suppress-shortcuts" in probe


def test_every_slider_keeps_a_usable_track_beside_its_name():
    ex = tutor.timeline_explorer()
    names = {key: c.description for key, c in ex.controls.items() if hasattr(c, "min")}
    assert names["element_ms"] == "decode ms"
    assert max(len(n) for n in names.values()) <= 13, names  # a longer name left the track 19 px of 270
