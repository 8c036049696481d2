"""Sphinx extension of the course website: a language switch on every page, to the same page in each edition.

The English book's pages live under ``en/`` of the site (``en/lessons/03_shuffle.html``); each other edition
is a book of its own built into ``<lang>/`` of the site (``tools/site_editions.py``) with the same pages at
its top (``lessons/03_shuffle.html``, served as ``ja/lessons/03_shuffle.html``). So the same page in
language ``L`` is always ``<site>/L/<page>.html``, reached from the current page through as many ``../`` as
the page is deep in the site. ``course_edition`` says which edition this build is, ``course_languages`` which
editions the site has. Each page also names its other editions for search engines (``hreflang``).
"""
from __future__ import annotations

#: Each edition's own name, as its readers look for it in a menu.
NAMES = {"en": "English", "ja": "日本語", "zh": "简体中文"}
#: The pages Sphinx makes for every book (index of terms, search): outside the editions' shared page paths.
SPHINX_PAGES = ("genindex", "search", "py-modindex")
#: The page's ``lang`` attribute for each edition.
HREFLANG = {"en": "en", "ja": "ja", "zh": "zh-Hans"}


def page_in_edition(pagename: str, edition: str) -> str | None:
    """The page's path inside its edition (the same in every language), or None for a page outside the editions.

    >>> page_in_edition("en/lessons/03_shuffle", "en"), page_in_edition("lessons/03_shuffle", "ja")
    ('lessons/03_shuffle', 'lessons/03_shuffle')
    >>> page_in_edition("genindex", "en") is None, page_in_edition("search", "ja") is None
    (True, True)
    """
    if pagename in SPHINX_PAGES:  # each book has its own, at its top, not under en/
        return None
    if edition == "en":
        return pagename[len("en/"):] if pagename.startswith("en/") else None
    return pagename


def switch_links(pagename: str, edition: str, languages: list[str]) -> dict[str, str]:
    """Language -> the relative address of this page in that language.

    >>> switch_links("en/lessons/03_shuffle", "en", ["en", "ja"])["ja"]
    '../../ja/lessons/03_shuffle.html'
    >>> switch_links("lessons/03_shuffle", "ja", ["en", "ja"])["en"]
    '../../en/lessons/03_shuffle.html'
    >>> switch_links("index", "zh", ["en", "zh"])["en"]
    '../en/index.html'
    """
    page = page_in_edition(pagename, edition)
    if page is None:
        return {}
    depth = pagename.count("/") + (0 if edition == "en" else 1)
    return {lang: "../" * depth + f"{lang}/{page}.html" for lang in languages}


def add_language_switch(app, pagename, templatename, context, doctree):
    links = switch_links(pagename, app.config.course_edition, list(app.config.course_languages))
    if len(links) < 2:
        return
    edition = app.config.course_edition
    if "header_buttons" in context:
        buttons = [{"type": "link", "text": NAMES.get(lang, lang), "tooltip": NAMES.get(lang, lang),
                    "label": f"language-{lang}", "url": url}
                   for lang, url in links.items() if lang != edition]
        context["header_buttons"].append({"type": "group", "tooltip": NAMES.get(edition, edition),
                                          "icon": "fas fa-language", "buttons": buttons, "label": "language-switch"})
    tags = "".join(f'<link rel="alternate" hreflang="{HREFLANG.get(lang, lang)}" href="{url}" />\n'
                   for lang, url in links.items())
    context["metatags"] = context.get("metatags", "") + tags


def setup(app):
    app.add_config_value("course_edition", "en", "html")
    app.add_config_value("course_languages", ["en"], "html")
    # After sphinx-book-theme has prepared its header buttons (priority 501).
    app.connect("html-page-context", add_language_switch, priority=600)
    # The theme opens header links in a new tab; a language switch replaces the page instead.
    app.add_js_file(None, body="document.addEventListener('DOMContentLoaded', () => document.querySelectorAll("
                    "'.dropdown-language-switch a').forEach(a => a.removeAttribute('target')));")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
