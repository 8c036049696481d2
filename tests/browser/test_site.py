"""The course website (``make site``) in a real browser, served from the built folder on 127.0.0.1.

Checked at 1280x720 unless said otherwise: the home page links every lesson; every lesson page loads with no
JavaScript error and nothing from outside the site, shows its figures (an explorer's cell shows the picture it starts with, never an empty
widget box), and has launch links, Colab first, that point at ``notebooks/<lesson>.ipynb`` of the repository
and ref in pyproject.toml; every internal link, anchor and image of every page resolves; search finds the
shuffle lesson; the doctor's rules page has a section per rule, its anchor the rule id; the reference
documents every public name; and at 390x844 no lesson page scrolls sideways. Every lesson's static deck
(``en/slides/``) loads nothing from outside the site; one deck, opened in the browser, has the slides tools.slides
counts, steps on a key, and shows its explorer's saved picture and sentence on the slide tools.slides names.

The site must be built first (``make browser`` runs ``make site``); TUTOR_SITE_DIR points at another build.
"""
from __future__ import annotations

import functools
import html.parser
import http.server
import json
import os
import threading
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from tools import decks, slides
from tools.browser import harness
from tools.links import read_config

SITE = Path(os.environ.get("TUTOR_SITE_DIR", harness.ROOT / "build" / "site" / "_build" / "html"))
LESSONS = sorted(p.stem for p in (harness.ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
DESKTOP = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def repository() -> tuple[str, str]:
    """(owner/name, ref) from pyproject.toml, as the site's launch buttons must use."""
    return read_config(harness.ROOT)


# ------------------------------------------------------------------------------------------------- server
class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site():
    """Base URL of the built site, served on loopback."""
    if not (SITE / "index.html").is_file():
        pytest.fail(f"No built site at {SITE}: run `make site` first (make browser does).")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def open_page(browser):
    """``open_page(url, viewport=DESKTOP)`` -> (page, errors): a fresh page with its JavaScript errors collected."""
    contexts = []

    def opener(url, viewport=DESKTOP):
        context = browser.new_context(viewport=viewport)
        contexts.append(context)
        page = context.new_page()
        errors = []
        local = url.split("/", 3)[:3]
        local = "/".join(local) + "/"
        page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
        # Network failures are judged by the requests below: the lesson badges come from outside (not reachable
        # here, and not this site's to serve); everything on 127.0.0.1 must load.
        page.on("console", lambda msg: errors.append(f"console.{msg.type}: {msg.text}")
                if msg.type == "error" and not msg.text.startswith("Failed to load resource") else None)
        page.on("requestfailed", lambda req: errors.append(f"request failed: {req.url}") if req.url.startswith(local) else None)
        page.on("response", lambda res: errors.append(f"HTTP {res.status}: {res.url}")
                if res.url.startswith(local) and res.status >= 400 else None)
        page.outside = []
        page.on("request", lambda req: page.outside.append(req.url) if not req.url.startswith((local, "data:")) else None)
        page.goto(url, wait_until="load")
        page.wait_for_function("() => Array.from(document.images).every(i => i.complete)", timeout=30_000)
        return page, errors

    yield opener
    for context in contexts:
        context.close()


def lesson_url(site: str, stem: str) -> str:
    return f"{site}en/lessons/{stem}.html"


# ------------------------------------------------------------------------------------- what a notebook holds
def notebook_outputs(stem: str) -> tuple[int, int]:
    """(outputs that are pictures, outputs of explorers) in the committed notebook."""
    nb = json.loads((harness.ROOT / "notebooks" / f"{stem}.ipynb").read_text(encoding="utf-8"))
    pictures = explorers = 0
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                explorers += 1
            elif "image/png" in data or "image/jpeg" in data or "image/svg+xml" in data:
                pictures += 1
    return pictures, explorers


# ----------------------------------------------------------------------------------------------- the tests
def test_home_page_links_every_lesson(site, open_page):
    assert LESSONS, "no lessons in notebooks/"
    page, errors = open_page(site + "index.html")
    page.wait_for_url("**/en/index.html")
    hrefs = page.eval_on_selector_all("article a[href]", "els => els.map(a => a.href)")
    missing = [stem for stem in LESSONS if lesson_url(site, stem) not in hrefs]
    assert not missing, f"the home page does not link {missing}"
    assert not errors, errors


@pytest.mark.parametrize("stem", LESSONS)
def test_lesson_page(site, open_page, stem):
    page, errors = open_page(lesson_url(site, stem))
    assert not errors, f"{stem}: {errors}"
    assert not page.outside, f"{stem}: the page loads from outside the site: {page.outside}"
    number, title = stem[:2], page.title()
    assert title.startswith(f"{number}:"), f"{stem}: the page's title is {title!r}"

    # Figures: every image shown, at least one per picture the notebook holds, one per explorer.
    broken = page.eval_on_selector_all(
        "article img", "els => els.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(0, 80))")
    assert not broken, f"{stem}: images that do not load: {broken}"
    pictures, explorers = notebook_outputs(stem)
    shown = page.locator("article .cell_output img").count()
    assert shown >= pictures + explorers, f"{stem}: {shown} pictures shown, the notebook holds {pictures + explorers}"
    text = page.locator("article").inner_text()
    assert "Error displaying widget" not in text and "Loading widget" not in text
    assert page.locator(f'script[type="{WIDGET_VIEW}"]').count() == 0, f"{stem}: an empty widget box"
    statics = page.locator("article .tutor-static img")
    assert statics.count() == explorers, (
        f"{stem}: {explorers} explorer(s) in the notebook, {statics.count()} shown with their starting picture "
        "(re-execute the notebook so its saved explorer output carries the picture)")
    if explorers:
        assert "sliders work when the notebook runs" in page.locator("article .tutor-static").first.inner_text()

    # Launch links: Colab first, then Binder, at the notebook of pyproject.toml's repository and ref.
    repo, ref = repository()
    links = page.eval_on_selector_all(".dropdown-launch-buttons a", "els => els.map(a => a.href)")
    assert len(links) >= 2, f"{stem}: launch buttons {links}"
    assert links[0] == f"https://colab.research.google.com/github/{repo}/blob/{ref}/notebooks/{stem}.ipynb"
    assert links[1].startswith(f"https://mybinder.org/v2/gh/{repo}/{ref}?") and f"{stem}.ipynb" in unquote(links[1])
    assert any(link == f"https://github.com/{repo}/blob/{ref}/notebooks/{stem}.ipynb" for link in links)
    assert links[-1] == f"{site}en/slides/{stem}.html", f"{stem}: no link to its slides in {links}"
    download = page.eval_on_selector_all(".dropdown-download-buttons a", "els => els.map(a => a.href)")
    assert any(link.endswith(f"{stem}.ipynb") for link in download), f"{stem}: no .ipynb download in {download}"

    # Previous / next: in the order of the notebooks.
    index = LESSONS.index(stem)
    if index + 1 < len(LESSONS):
        assert page.locator("a.right-next").get_attribute("href").endswith(f"{LESSONS[index + 1]}.html")
    if index > 0:
        assert page.locator("a.left-prev").get_attribute("href").endswith(f"{LESSONS[index - 1]}.html")


class _Refs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.refs.append(attrs["href"])
        if tag in ("img", "script") and attrs.get("src"):
            self.refs.append(attrs["src"])
        if tag == "link" and attrs.get("href") and attrs.get("rel") != ["preload"]:
            self.refs.append(attrs["href"])


def _parse(path: Path) -> _Refs:
    parser = _Refs()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_every_internal_link_and_image_resolves(site, browser):
    pages = sorted(p for p in SITE.rglob("*.html")  # the theme's own files in _static/ of each book are not pages
                   if not any(part.startswith("_") for part in p.relative_to(SITE).parts))
    parsed = {p: _parse(p) for p in pages}
    problems = []
    context = browser.new_context(viewport=DESKTOP)
    try:
        checked: dict[str, int] = {}
        for path, refs in parsed.items():
            base = site + path.relative_to(SITE).as_posix()
            for ref in refs.refs:
                if ref.startswith(("data:", "mailto:", "javascript:")):
                    continue
                url = urljoin(base, ref)
                if not url.startswith(site):
                    continue
                parts = urlsplit(url)
                target = parts.scheme + "://" + parts.netloc + parts.path
                if target not in checked:
                    checked[target] = context.request.get(target).status
                if checked[target] != 200:
                    problems.append(f"{path.relative_to(SITE)}: {ref} -> HTTP {checked[target]}")
                    continue
                if parts.fragment and not parts.fragment.startswith("/") and target.endswith(".html"):  # "#/4/1": a slide
                    file = SITE / unquote(parts.path[len(urlsplit(site).path):])
                    ids = parsed[file].ids if file in parsed else _parse(file).ids
                    if unquote(parts.fragment) not in ids:
                        problems.append(f"{path.relative_to(SITE)}: {ref}: no #{parts.fragment} there")
    finally:
        context.close()
    assert len(checked) > len(LESSONS), "too few internal links found"
    assert not problems, "\n".join(problems[:40])


def test_search_finds_the_shuffle_lesson(site, open_page):
    page, errors = open_page(site + "search.html?q=shuffle+buffer")
    results = page.locator("#search-results a")
    results.first.wait_for(timeout=30_000)
    hrefs = results.evaluate_all("els => els.map(a => a.href)")
    assert any("/en/lessons/03_shuffle.html" in href for href in hrefs), hrefs
    assert not errors, errors


def test_doctor_rules_have_their_own_anchors(site, open_page):
    from tutor.doctor.rules import RULES

    page, errors = open_page(site + "en/doctor_rules.html")
    ids = set(page.eval_on_selector_all("article [id]", "els => els.map(e => e.id)"))
    missing = [rule_id for rule_id in RULES if rule_id not in ids]
    assert not missing, f"no section for {missing}"
    assert not errors, errors


def test_reference_documents_every_public_name(site, open_page):
    import tutor

    page, errors = open_page(site + "en/reference.html")
    ids = set(page.eval_on_selector_all("article [id]", "els => els.map(e => e.id)"))
    names = [n for n in tutor.__all__ if not isinstance(getattr(tutor, n), type(tutor))]
    missing = [n for n in names if f"tutor.{n}" not in ids]
    assert not missing, f"the reference has no entry for {missing}"
    assert "Examples" in page.locator("article").inner_text(), "the docstring examples are missing"
    assert not errors, errors


@pytest.mark.parametrize("stem", LESSONS)
def test_lesson_page_fits_a_phone(site, open_page, stem):
    page, errors = open_page(lesson_url(site, stem), viewport=PHONE)
    width = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width[0] <= width[1], f"{stem}: the page is {width[0]} px wide on a {width[1]} px screen"
    # Paragraphs of lesson text stay inside the screen (wide figures and code scroll in their own box).
    wide = page.eval_on_selector_all(
        "article p, article li, article h1, article h2",
        "els => els.filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)"
        ".map(e => e.textContent.slice(0, 60))")
    assert not wide, f"{stem}: text wider than the screen: {wide[:5]}"
    assert not errors, errors


# --------------------------------------------------------------------------------------------------- the decks
def test_every_deck_loads_nothing_from_outside():
    found = {path.name: decks.external_loads(path.read_text(encoding="utf-8"))
             for path in sorted((SITE / "en" / "slides").glob("*.html"))}
    assert sorted(name[:-5] for name in found) == LESSONS, "a deck per lesson"
    assert not {name: urls for name, urls in found.items() if urls}, found


DECK = "03_shuffle"


def test_a_deck_steps_and_shows_its_explorers_saved_picture(site, open_page):
    nb = json.loads((harness.ROOT / "notebooks" / f"{DECK}.ipynb").read_text(encoding="utf-8"))
    page, errors = open_page(f"{site}en/slides/{DECK}.html")
    assert not errors and not page.outside, (errors, page.outside)
    page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)
    assert page.evaluate("() => Reveal.getTotalSlides()") == slides.slide_count(nb["cells"])
    if slides.slide_count(nb["cells"]) > 1:
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => Reveal.getIndices().h + Reveal.getIndices().v > 0 || Reveal.getIndices().f >= 0",
                               timeout=10_000)
    index = next(i for i, cell in enumerate(nb["cells"]) if slides.shows_explorer(cell))
    place = slides.places(nb["cells"])[index]
    page.goto(f"{site}en/slides/{DECK}.html{place.address}")
    page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)
    assert page.evaluate("() => Reveal.getIndices()")["h"] == place.h
    picture = page.locator(".reveal section.present .tutor-static img").first
    picture.wait_for(timeout=10_000)
    assert picture.evaluate("img => img.complete && img.naturalWidth > 0")
    assert "sliders work when the notebook runs" in page.locator(".reveal section.present .tutor-static").first.inner_text()
    if max(p.h for p in slides.places(nb["cells"]) if p):  # with one slide across, reveal.js numbers them 1, 2, ...
        label = "".join(page.locator(".slide-number").inner_text().split())
        assert label == place.label, f"the deck shows slide {label}, tools.slides numbers it {place.label}"
