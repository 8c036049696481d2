"""What a saved explorer shows where no widget runs: its starting picture and a sentence that says what to do.

The live widget's view stays in the bundle, unchanged, so JupyterLab, Notebook and Colab render the sliders
exactly as before (tests/browser/test_explorers.py); the website (myst-nb) and GitHub show the picture.
"""
import base64
import io
import re

import numpy as np
import pytest
from PIL import Image

import tutor
from tutor.widgets import _static

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def shown(ex, monkeypatch) -> dict:
    """The bundle Jupyter receives when the explorer is displayed, on ipywidgets 8 or 7 (Colab)."""
    if callable(getattr(type(ex), "_ipython_display_", None)):  # ipywidgets 7 displays it itself
        bundles = []
        monkeypatch.setattr("IPython.display.display", lambda data, raw=False, **kw: bundles.append(data))
        ex._ipython_display_()
        assert len(bundles) == 1
        return bundles[0]
    return ex._repr_mimebundle_()


def _png_in(html: str) -> bytes:
    found = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert found, html[:200]
    return base64.b64decode(found.group(1))


@pytest.mark.parametrize("make", [lambda: tutor.shuffle_explorer(n_elements=40), lambda: tutor.order_explorer()])
def test_the_bundle_keeps_the_widget_and_adds_its_starting_picture(make, monkeypatch):
    ex = make()
    bundle = shown(ex, monkeypatch)
    assert bundle[WIDGET_VIEW]["model_id"] == ex.model_id  # the live view, as ipywidgets makes it
    assert _png_in(bundle["text/html"]) == ex.image.value  # the picture the explorer shows now
    picture = np.asarray(Image.open(io.BytesIO(ex.image.value)))
    assert picture.shape[0] > 100 and picture.shape[1] > 100 and picture.std() > 0  # a real picture, not blank
    assert f'width="{ex.canvas.css_width}"' in bundle["text/html"]
    assert "sliders work when the notebook runs" in bundle["text/html"]
    assert bundle["text/plain"] == repr(ex) == f"{ex.name}: run this cell after the ones above to get its sliders (Jupyter, Colab or Binder)."
    assert all(len(_static.plain_text(name)) <= 110 for name in tutor._EXPLORERS)  # ipywidgets cuts longer lines


def test_the_picture_is_the_one_shown_when_displayed(monkeypatch):
    ex = tutor.shuffle_explorer(n_elements=40)
    first = _png_in(shown(ex, monkeypatch)["text/html"])
    ex.controls["buffer_size"].value = 1
    assert _png_in(shown(ex, monkeypatch)["text/html"]) == ex.image.value != first


def test_a_closed_explorer_offers_no_picture():
    ex = tutor.shuffle_explorer(n_elements=40)
    ex.close()
    from IPython.core.formatters import DisplayFormatter

    data, _ = DisplayFormatter().format(ex)
    assert set(data) == {"text/plain"}


def test_without_a_picture_the_sentence_still_says_what_to_do():
    html = _static.static_html("order_explorer", None)
    assert "<img" not in html and "run the cells above and this one" in html and "Colab or Binder" in html
    assert _static.mimebundle(object(), {})["text/plain"].startswith("explorer: run this cell")


def test_names_are_escaped():
    assert "<b>" not in _static.static_html("<b>x</b>", b"\x89PNG")
