"""The website's Japanese and Chinese editions (tools/site_editions.py, book/_ext/languages.py) in a real browser.

A Japanese lesson page reads in Japanese, its launch buttons open the Japanese notebook, and its language switch
goes to the same page in Chinese and in English, and back; an English lesson page switches to Japanese; each
edition's search finds a Japanese or a Chinese word. Like tests/browser/test_site.py, it reads the built site
(``make browser`` runs ``make site`` first).
"""
from __future__ import annotations

import pytest

from tests.browser.test_site import SITE, open_page, repository, site  # noqa: F401 (fixtures)

EDITIONS = sorted(p.parent.name for p in SITE.glob("*/searchindex.js") if p.parent.name in ("ja", "zh"))
pytestmark = pytest.mark.skipif(not EDITIONS, reason="the built site has no edition")


def switch_targets(page) -> dict[str, str]:
    links = page.locator(".dropdown-language-switch a")
    return {a.split("btn-language-")[1].split()[0]: href for a, href in
            zip(links.evaluate_all("els => els.map(a => a.className)"), links.evaluate_all("els => els.map(a => a.href)"))}


def test_an_edition_lesson_reads_in_its_language_and_switches_to_the_same_page(site, open_page):  # noqa: F811
    page, errors = open_page(site + "ja/lessons/00_start_here.html")
    assert page.locator("html").get_attribute("lang") == "ja"
    assert page.locator("h1").first.inner_text().startswith("00: はじめに")
    repo, ref = repository()
    colab = page.locator("a.btn-colab-button").first.get_attribute("href")
    assert colab == f"https://colab.research.google.com/github/{repo}/blob/{ref}/notebooks/ja/00_start_here.ipynb"
    targets = switch_targets(page)
    assert targets == {"en": site + "en/lessons/00_start_here.html", "zh": site + "zh/lessons/00_start_here.html"}
    assert page.locator(".dropdown-language-switch a").first.get_attribute("target") is None  # same tab
    page.goto(targets["zh"], wait_until="load")
    assert page.locator("html").get_attribute("lang") == "zh-CN"
    assert page.locator("h1").first.inner_text().startswith("00: 从这里开始")
    assert switch_targets(page)["ja"] == site + "ja/lessons/00_start_here.html"
    page.goto(switch_targets(page)["en"], wait_until="load")
    assert page.locator("h1").first.inner_text().startswith("00: Start here")
    assert not errors, errors


def test_an_english_page_switches_to_the_editions(site, open_page):  # noqa: F811
    page, errors = open_page(site + "en/lessons/03_shuffle.html")
    assert switch_targets(page) == {lang: site + f"{lang}/lessons/03_shuffle.html" for lang in EDITIONS}
    page.goto(site + "ja/lessons/03_shuffle.html", wait_until="load")  # the Japanese lesson, and its notebook
    assert page.locator("h1").first.inner_text().startswith("03: シャッフル")
    colab = page.locator("a.btn-colab-button").first.get_attribute("href")
    assert colab.endswith("/notebooks/ja/03_shuffle.ipynb")
    assert not errors, errors


@pytest.mark.parametrize("lang, word, page_name", [("ja", "シャッフル", "lessons/00_start_here.html"),
                                                   ("zh", "随机重排", "lessons/00_start_here.html")])
def test_each_edition_searches_its_own_words(site, open_page, lang, word, page_name):  # noqa: F811
    if lang not in EDITIONS:
        pytest.skip(f"no {lang} edition in the built site")
    page, errors = open_page(site + f"{lang}/search.html?q={word}")
    results = page.locator("#search-results a")
    results.first.wait_for(timeout=30_000)
    hrefs = results.evaluate_all("els => els.map(a => a.href)")
    assert any(f"/{lang}/{page_name}" in href for href in hrefs), hrefs
    assert not errors, errors
