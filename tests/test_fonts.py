"""tutor/fonts.py: figures draw Japanese and Chinese with real glyphs (Noto Sans CJK from PyPI), Latin text as before."""
import io
import warnings

import matplotlib
import matplotlib.pyplot as plt
import pytest
from matplotlib import font_manager

import tutor
from tutor import fonts

TEXT = {
    "ja": ("シャッフルバッファの大きさ", "要素の位置", "エポック 1・プリフェッチ", "バッチ 3 が 2 つのエポックを混ぜています"),
    "zh": ("重排缓冲区的大小", "元素的位置", "周期 1・预提取", "批次 3 混入了两个周期的数据"),
}


@pytest.fixture(autouse=True)
def _english_after():
    yield
    tutor.presentation(False)
    tutor.set_language("en")


def missing_glyphs(lang: str) -> list[str]:
    """Draw a figure with a title, axis labels, a legend and a readout in ``lang``; the missing-glyph warnings."""
    title, xlabel, legend, readout = TEXT[lang]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure, ax = plt.subplots(figsize=(4, 3))
        ax.plot([0, 1, 2], [0, 2, 1], label=legend)
        ax.set_title(f"{title} (buffer_size=10)")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("ids 0–39")
        ax.legend()
        figure.text(0.01, 0.01, readout)
        figure.savefig(io.BytesIO(), format="png")
        plt.close(figure)
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


@pytest.mark.parametrize("presentation", [False, True], ids=["normal", "presentation"])
@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_each_language_draws_every_glyph(lang, presentation):
    tutor.presentation(presentation)
    tutor.set_language(lang)
    assert missing_glyphs(lang) == []


def test_without_the_language_the_same_figure_misses_glyphs():
    """The check above can fail: matplotlib's own font has no Japanese or Chinese."""
    tutor.set_language("en")
    assert missing_glyphs("ja") and missing_glyphs("zh")


def test_each_language_uses_its_own_face_and_latin_text_keeps_its_font():
    latin = font_manager.findfont(font_manager.FontProperties(family=matplotlib.rcParams["font.family"]))
    tutor.set_language("ja")
    assert matplotlib.rcParams["font.family"][-1] == "Noto Sans CJK JP"
    family = matplotlib.rcParams["font.family"]
    assert font_manager.findfont(font_manager.FontProperties(family=family[:-1])) == latin
    assert "NotoSansCJK" in str(font_manager.findfont(font_manager.FontProperties(family="Noto Sans CJK JP")))
    tutor.set_language("zh")
    assert matplotlib.rcParams["font.family"][-1] == "Noto Sans CJK SC"
    assert "Noto Sans CJK JP" not in matplotlib.rcParams["font.family"]
    tutor.set_language("en")
    assert not any("CJK" in f for f in matplotlib.rcParams["font.family"])


def test_the_font_comes_from_the_package_registry():
    path = fonts.collection_path()
    assert path is not None and path.name == fonts.COLLECTION and "site-packages" in str(path)


def test_older_matplotlib_gets_the_face_as_a_file_of_its_own(tmp_path, monkeypatch):
    """matplotlib before 3.11 (Colab's 3.10) reads only the first face of a collection: the Chinese face is copied."""
    from matplotlib import ft2font

    monkeypatch.setattr(matplotlib, "get_cachedir", lambda: str(tmp_path))
    made = fonts._single_face(fonts.collection_path(), fonts.FACES["zh"][1], fonts.FACES["zh"][0])
    assert made.parent == tmp_path / "tutor-fonts"
    assert ft2font.FT2Font(str(made)).family_name == "Noto Sans CJK SC"
    assert fonts._single_face(fonts.collection_path(), 2, "Noto Sans CJK SC") == made  # made once


def test_without_the_font_package_a_warning_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(fonts, "collection_path", lambda: None)
    monkeypatch.setattr(fonts, "_registered", set())
    with pytest.warns(UserWarning, match="pip install noto-cjk-sans-otc"):
        assert fonts.use_language("ja") is None
