"""The website's editions without building them: tools/site_editions.py's staging, book/_ext/languages.py's switch.

The built site is checked in a browser by tests/browser/test_site_editions.py (make browser, after make site).
"""
import importlib.util
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from tools import site, site_editions

ROOT = Path(__file__).resolve().parents[1]


def _extension(name: str):
    spec = importlib.util.spec_from_file_location(f"{name}_ext", ROOT / "book" / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_switch_goes_to_the_same_page_in_every_language():
    languages = _extension("languages")
    every = ["en", "ja", "zh"]
    assert languages.switch_links("en/lessons/03_shuffle", "en", every) == {
        "en": "../../en/lessons/03_shuffle.html", "ja": "../../ja/lessons/03_shuffle.html",
        "zh": "../../zh/lessons/03_shuffle.html"}
    assert languages.switch_links("lessons/03_shuffle", "zh", every)["ja"] == "../../ja/lessons/03_shuffle.html"
    assert languages.switch_links("start_here", "ja", every)["en"] == "../en/start_here.html"
    assert languages.switch_links("en/index", "en", every)["zh"] == "../zh/index.html"
    assert languages.switch_links("genindex", "en", every) == {}  # Sphinx's own pages have no twin


def test_an_edition_lesson_page_is_a_lesson_page():
    course = _extension("course")
    assert course.LESSON_PAGE.match("lessons/03_shuffle").group("stem") == "03_shuffle"
    assert course.LESSON_PAGE.match("ja/lessons/03_shuffle").group("lang") == "ja"


@pytest.fixture
def english_book(tmp_path):
    """What tools/site.py stages, as far as an edition needs it (its generated parts are stood in for)."""
    book = tmp_path / "site-src"
    shutil.copytree(ROOT / "book", book, ignore=shutil.ignore_patterns("requirements.txt", "__pycache__"))
    return book


@pytest.fixture
def simple_parts(monkeypatch):
    monkeypatch.setattr(site_editions, "GENERATED", {
        "lessons": lambda root, lessons, lang: site.lesson_list(lessons),
        "run times": lambda root, lessons, lang: "RUN TIMES", "demo paths": lambda root, lessons, lang: "DEMO PATHS",
        "rules": lambda root, lessons, lang: "RULES", "api": lambda root, lessons, lang: "API"})


@pytest.mark.parametrize("lang", sorted(site_editions.editions.LANGUAGES))
def test_an_edition_book_has_every_page_translated_where_it_can_be(english_book, simple_parts, tmp_path, lang):
    if not (ROOT / "notebooks" / lang / "00_start_here.ipynb").is_file():
        pytest.skip(f"no {lang} edition of lesson 00")
    book = site_editions.stage_edition(ROOT, english_book, tmp_path / lang, lang)
    english_lessons = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(p.name for p in (book / "lessons").glob("*.ipynb")) == english_lessons
    own = nbformat.read(book / "lessons" / "00_start_here.ipynb", as_version=4)
    assert own.metadata["tutor"]["edition"] == lang and "../" not in own.cells[-1].source
    assert sorted(p.name for p in book.glob("*.md")) == sorted(p.name for p in (ROOT / "book" / "en").glob("*.md"))
    index = (book / "index.md").read_text()
    title = nbformat.read(ROOT / "notebooks" / lang / "00_start_here.ipynb", as_version=4).cells[0].source
    assert f"[{title.splitlines()[0][2:]}](lessons/00_start_here.ipynb)" in index  # its lesson list, in its words
    assert not (book / "en").exists() and not (book / lang).exists()
    toc = (book / "_toc.yml").read_text()
    assert "root: index\n" in toc and "file: lessons/00_start_here" in toc and "en/" not in toc
    assert f"caption: {site_editions.WORDS[lang]['Lessons']}" in toc
    config = (book / "_config.yml").read_text()
    assert f"    language: {site_editions.SPHINX_LANGUAGE[lang]}\n" in config
    assert f"course_edition: {lang}" in config and "course_translated: [" in config and "'00_start_here'" in config
    if lang == "zh":
        words = re.search(r"dict: (\S+)", config).group(1)
        assert "随机重排 " in Path(words).read_text()  # jieba keeps the glossary's terms whole in the index


def test_the_site_has_the_languages_that_have_an_edition():
    languages = site_editions.languages(ROOT)
    assert languages[0] == "en"
    assert set(languages[1:]) == {lang for lang in site_editions.editions.LANGUAGES
                                  if any((ROOT / "notebooks" / lang).glob("*.ipynb"))
                                  or any((ROOT / "book" / lang).glob("*.md"))}
    configured = site.configure((ROOT / "book" / "_config.yml").read_text(), "you/fork", "v2", languages)
    assert f"course_languages: {list(languages)!r}" in configured
