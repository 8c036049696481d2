"""order_explorer: every order of batch, repeat and shuffle it offers is the real pipeline its readout prints."""
import re

import pytest

import tutor
from tutor.doctor import read_pipeline
from tutor.widgets.order import ORDERS, pipeline_for


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
