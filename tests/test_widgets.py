"""Explorers, driven from code as a test (or a learner) would: set a control, read .display.

What the page does is in tests/browser/; here the kernel side: the controls drive
real pipelines, the picture is drawn at the size it is shown (never stretched),
nothing drawn reaches past the figure's edge, and presentation mode scales
controls and figures together.
"""
import re

import numpy as np
import pytest
import tensorflow as tf
from matplotlib.text import Text

import tutor
from tutor import style
from tutor.doctor import read_pipeline
from tutor.widgets import _frontend
from tutor.widgets.order import ORDERS, pipeline_for


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


def test_shuffle_explorer_redraws_on_each_control():
    ex = tutor.shuffle_explorer(n_elements=30)
    first_png = ex.image.value
    assert ex.display.buffer_size == 10 and ex.display.order.size == 30
    ex.controls["buffer_size"].value = 1
    assert ex.display.buffer_size == 1 and ex.display.order.tolist() == list(range(30))
    assert ex.image.value != first_png
    assert "buffer_size=1" in ex.readout.value
    ex.controls["epochs"].value = 2
    assert ex.display.order.size == 60
    ex.controls["buffer_size"].value = 30
    ex.controls["reshuffle_each_iteration"].value = False
    assert ex.display.order[:30].tolist() == ex.display.order[30:].tolist()
    assert "(= epoch 1)" in ex.readout.value
    ex.controls["seed"].value = 5
    assert ex.display.seed == 5


def test_shuffle_explorer_reports_each_epoch_with_enough_decimals():
    ex = tutor.shuffle_explorer(n_elements=100, buffer_size=2, epochs=3)
    rows = re.findall(r"<tr><td>(\d)[^<]*</td><td>([-0-9.]+)</td><td>(\d+) of (\d+)</td>", ex.readout.value)
    assert [r[0] for r in rows] == ["1", "2", "3"]  # one row per epoch
    for epoch, (_, rho, moved, size) in enumerate(rows):
        assert int(size) == 100 and int(moved) > 0
        assert float(rho) < 1.0  # a changed order never reads as unchanged
        assert rho == tutor.stats.format_correlation(ex.display.epoch_stats[epoch]["rank_correlation"])
    assert "1 = order kept" in ex.readout.value  # says what the number means


def test_reshuffle_toggle_is_disabled_with_one_epoch():
    ex = tutor.shuffle_explorer()
    assert ex.controls["reshuffle_each_iteration"].disabled
    ex.controls["epochs"].value = 2
    assert not ex.controls["reshuffle_each_iteration"].disabled


def test_order_explorer_every_stage_order():
    ex = tutor.order_explorer()
    ex.set(batch_size=7, count=3, order="ds.batch().repeat()")
    assert ex.display.batch_sizes == [7, 3, 7, 3, 7, 3]
    ex.controls["order"].value = "ds.repeat().batch()"
    assert ex.display.batch_sizes == [7, 7, 7, 7, 2]
    code = ex.readout.value.replace("<wbr>", "")  # break opportunities inside the code, invisible on the page
    assert "ds.repeat(3).batch(7, drop_remainder=False)" in code
    assert "<wbr>" in ex.readout.value and "drop_<wbr>" not in ex.readout.value  # breaks between words only
    ex.controls["drop_remainder"].value = True
    assert ex.display.batch_sizes == [7, 7, 7, 7]
    assert "drop_remainder dropped 2 of 30 elements" in ex.readout.value
    for order in ORDERS:
        ex.controls["order"].value = order
        assert ex.display.code and sum(ex.display.batch_sizes) <= 30


@pytest.mark.parametrize("label", list(ORDERS))
def test_order_dropdown_labels_are_the_pipelines_own_code(label):
    ds, code = pipeline_for(label, 10, 3, 2, False, 0, 5)
    methods = re.findall(r"\.(\w+)\(", label)
    assert re.findall(r"\.(\w+)\(", code.splitlines()[-1]) == methods  # the readout's code line
    kinds = [stage.kind for stage in read_pipeline(ds)][1:]  # the real op graph, after the source
    assert kinds == methods


def test_order_explorer_disables_shuffle_controls_without_a_shuffle():
    ex = tutor.order_explorer()
    for label, spec in ORDERS.items():
        ex.controls["order"].value = label
        disabled = ex.controls["buffer_size"].disabled
        assert disabled == ex.controls["seed"].disabled == (".shuffle(" not in label) == (not spec.shuffles)
    assert not ex.controls["batch_size"].disabled and not ex.controls["count"].disabled


@pytest.mark.parametrize("order", ["ds.batch().repeat()", "ds.repeat().batch()", "ds.shuffle().batch().repeat()"])
def test_order_explorer_says_why_the_result_is_empty(order):
    ex = tutor.order_explorer().set(order=order, batch_size=12, count=1, drop_remainder=True)
    assert ex.display.batches == []
    assert "drop_remainder dropped every batch: batch_size=12 &gt; the 10 elements that reach batch()" in ex.readout.value
    title = ex.display.ax_.get_title(loc="left")
    assert title.startswith("drop_remainder dropped every batch") and "every batch full" not in title
    assert "nothing was emitted" in [t.get_text() for t in ex.display.ax_.texts if t.get_visible()]
    ex.set(count=2)  # 20 elements reach batch(): one full batch of 12
    assert ex.display.batch_sizes == ([12] if order == "ds.repeat().batch()" else [])


def test_order_explorer_shows_epoch_mixing_after_repeat_then_shuffle():
    ex = tutor.order_explorer().set(order="ds.repeat().shuffle().batch()", batch_size=5, count=3, buffer_size=10,
                                    drop_remainder=False)
    assert ex.display.mixed_batches


def test_reset_returns_to_defaults():
    ex = tutor.shuffle_explorer()
    ex.controls["buffer_size"].value = 77
    ex.controls["epochs"].value = 3
    ex.reset_button.click()
    assert ex.controls["buffer_size"].value == 10 and ex.display.buffer_size == 10
    assert ex.display.order.size == 100


def test_set_rejects_unknown_controls():
    with pytest.raises(KeyError, match="buffer_size"):
        tutor.shuffle_explorer().set(bufsize=3)


def test_explorers_validate_arguments():
    with pytest.raises(ValueError, match="buffer_size"):
        tutor.shuffle_explorer(buffer_size=0)
    with pytest.raises(ValueError, match="order must be one of"):
        tutor.order_explorer(order="shuffle→shuffle")


def test_a_buffer_change_redraws_only_the_points():
    ex = tutor.shuffle_explorer()
    ex.controls["buffer_size"].value = 20  # the first frame of this kind saves the static layer
    points, full = ex.display.points_, ex.canvas.full_frames
    for b in (30, 40, 50):
        ex.controls["buffer_size"].value = b
    assert ex.canvas.full_frames == full and ex.canvas.frames >= full + 3  # axes, ticks, labels reused
    assert ex.display.points_ is points  # the same artist, new data
    assert np.array_equal(ex.display.points_.get_offsets()[:, 1], ex.display.order)
    ex.controls["epochs"].value = 2  # new limits: drawn in full
    assert ex.canvas.full_frames == full + 1


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
