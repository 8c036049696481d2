"""Sphinx extension of the course website: launch buttons on every lesson page, each script once.

sphinx-book-theme builds its launch links from the page's path inside the book
(``<path_to_book>/en/lessons/03_shuffle.ipynb``) and lists Binder first. The
lessons live in the repository's ``notebooks/`` folder and Colab is the course's
first platform, so this extension adds its own group to each lesson page's
header, in this order: Colab (which gets the ``.ipynb`` itself), Binder, the
notebook's source on GitHub, and the lesson's static slides (the reveal.js deck
``tools/site.py`` builds into ``en/slides/``, shown without a kernel).
The theme's own download button (the ``.ipynb``)
stays. The repository and ref come from ``pyproject.toml`` through the config
values ``course_repository`` and ``course_ref`` (``tools/site.py`` sets them), so
``make links REPO=you/your-fork`` retargets the site as well.

A lesson page is any page named ``<language>/lessons/<notebook>``, or ``lessons/<notebook>`` in an edition
built on its own (``course_edition``, ``tools/site_editions.py``); where that edition's notebooks live in the
repository is ``course_notebooks[<language>]``, for the lessons it has translated (``course_translated``),
and the English folder for the others, which it shows in English.
"""
from __future__ import annotations

import re
from urllib.parse import quote

LESSON_PAGE = re.compile(r"^(?:(?P<lang>[a-z]{2}(?:[_-][A-Za-z]{2,4})?)/)?lessons/(?P<stem>\d\d_[\w.-]+)$")


def lesson_links(repo: str, ref: str, folder: str, notebook: str) -> dict[str, str]:
    """Colab, Binder and source addresses of one notebook of the repository.

    >>> lesson_links("you/fork", "main", "notebooks", "03_shuffle.ipynb")["colab"]
    'https://colab.research.google.com/github/you/fork/blob/main/notebooks/03_shuffle.ipynb'
    """
    path = f"{folder.strip('/')}/{notebook}"
    return {
        "colab": f"https://colab.research.google.com/github/{repo}/blob/{ref}/{path}",
        "binder": f"https://mybinder.org/v2/gh/{repo}/{ref}?labpath={quote(path, safe='')}",
        "source": f"https://github.com/{repo}/blob/{ref}/{path}",
    }


def slides_link(stem: str) -> str:
    """The static deck of a lesson, from its page (``<language>/lessons/<stem>.html``): the English deck
    (``en/slides/``), which ``tools/site.py`` builds; an edition's pages link it too.

    >>> slides_link("03_shuffle")
    '../../en/slides/03_shuffle.html'
    """
    return f"../../en/slides/{stem}.html"


def add_lesson_buttons(app, pagename, templatename, context, doctree):
    match = LESSON_PAGE.match(pagename)
    if not match or "header_buttons" not in context:
        return
    lang = match.group("lang") or getattr(app.config, "course_edition", "en")
    if lang != "en" and match.group("stem") not in app.config.course_translated:
        lang = "en"
    folder = app.config.course_notebooks.get(lang)
    if folder is None:
        return
    links = lesson_links(app.config.course_repository, app.config.course_ref, folder, match.group("stem") + ".ipynb")
    buttons = [
        {"type": "link", "text": "Colab", "tooltip": "Open this lesson on Colab", "label": "colab-button",
         "icon": "_static/images/logo_colab.png", "url": links["colab"]},
        {"type": "link", "text": "Binder", "tooltip": "Launch this lesson on Binder", "label": "binder-button",
         "icon": "_static/images/logo_binder.svg", "url": links["binder"]},
        {"type": "link", "text": "Source", "tooltip": "This notebook on GitHub", "label": "source-button",
         "icon": "fab fa-github", "url": links["source"]},
        {"type": "link", "text": "Slides", "tooltip": "This lesson as slides (no kernel needed)",
         "label": "slides-button", "icon": "fas fa-person-chalkboard", "url": slides_link(match.group("stem"))},
    ]
    group = {"type": "group", "tooltip": "Run this lesson", "icon": "fas fa-rocket", "buttons": buttons,
             "label": "launch-buttons"}
    context["header_buttons"].insert(0, group)


def drop_repeated_scripts(app, pagename, templatename, context, doctree):
    """Keep each script once: sphinx-thebe registers its inline config twice under Jupyter Book 1, and the
    second ``const THEBE_JS_URL`` is a JavaScript error on every page."""
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for script in scripts:
        # An inline script's file name is None in one registration and "" in the other.
        name = getattr(script, "filename", script) or ""
        key = (str(name), tuple(sorted((k, str(v)) for k, v in getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            kept.append(script)
    scripts[:] = kept


def setup(app):
    app.add_config_value("course_repository", "tfdata-course/tfdata-course", "html")
    app.add_config_value("course_ref", "main", "html")
    app.add_config_value("course_notebooks", {"en": "notebooks"}, "html")
    app.add_config_value("course_translated", [], "html")
    # After sphinx-book-theme has prepared its header buttons (priority 501).
    app.connect("html-page-context", add_lesson_buttons, priority=600)
    app.connect("html-page-context", drop_repeated_scripts, priority=999)  # after every other extension
    return {"parallel_read_safe": True, "parallel_write_safe": True}
