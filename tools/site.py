"""Build the course website (``make site``) from ``book/`` and the committed notebooks.

The site is a Jupyter Book 1 (Sphinx, myst-nb, sphinx-book-theme). This script
stages a copy of ``book/`` in ``build/site-src/`` and adds to it what is derived
from the repository, so nothing derived is committed twice:

* the lessons: every ``notebooks/NN_*.ipynb`` (a new lesson appears by itself),
  copied to ``en/lessons/`` and listed in the table of contents in order, so
  each page has previous/next links; their stored outputs are the page (no
  execution); the Colab and Binder badges point at the site's own copies of
  their pictures;
* the repository and git ref of the launch buttons and the repository button,
  from ``pyproject.toml`` (``[project.urls] Repository``, ``[tool.tutor] ref``);
* the home page's lesson list, the instructors' run-time table (from
  ``benchmarks/README.md``) and demo paths (from each lesson's
  ``metadata.tutor.demo``, see ``tools/slides.py``), the reference's list of
  public names (from ``tutor.__all__``) and the doctor's rules page (from the
  rule declarations);
* a static reveal.js deck of every lesson (``tools/decks.py``), from its
  committed outputs, in ``en/slides/`` (copied as is through Sphinx's
  ``html_extra_path``), with reveal.js from the npm registry in
  ``_static/revealjs/`` (fetched once into ``build/``).

Then it runs ``jupyter-book build`` with warnings as errors (a broken link or
cross-reference fails the build) and prints the path of the built
``index.html`` as its last line. It runs in the site's own environment
(``.venv-site``, ``book/requirements.txt``), which has neither TensorFlow nor
matplotlib: tutor is imported with Sphinx's stand-ins for them, as autodoc does.

    python -m tools.site                 # make site
    python -m tools.site --out build/x   # elsewhere
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tools import decks, slides
from tools.links import find_root, lessons, read_config

#: Languages with an edition: language code -> notebook folder in the repository. The English book is built
#: here; each other edition is a book of its own in ``<site>/<lang>/`` (tools/site_editions.py: its own search).
EDITIONS = {"en": "notebooks", "ja": "notebooks/ja", "zh": "notebooks/zh"}

#: The badge pictures of the lessons' launch links, served by the site itself (a page loads nothing from outside).
BADGES = {
    "https://colab.research.google.com/assets/colab-badge.svg": "/_static/badges/colab.svg",
    "https://mybinder.org/badge_logo.svg": "/_static/badges/binder.svg",
}

#: What the site's environment lacks; imported as Sphinx's stand-ins (the same list as book/_config.yml).
MOCKED = ["tensorflow", "keras", "tf_keras", "tensorflow_addons", "matplotlib", "mpl_toolkits", "ipywidgets",
          "scipy", "PIL", "psutil"]

#: The public names of tutor, by how the reference presents them.
API_GROUPS = [
    ("Displays", "Compute with ``from_*``, draw with ``plot()``."),
    ("Explorers", "Sliders over a Display; they need a running kernel with ipywidgets."),
    ("Functions", ""),
    ("Modules", "Topic modules, used as ``tutor.<module>.<name>`` in the lessons."),
]

#: The headings of the findings' severities (a finding's severity: ``tutor.doctor.SEVERITIES``).
SEVERITY_TITLES = {"wrong": "Wrong results", "slow": "Slow", "note": "Notes"}
#: The rules page's own words (an edition gives its own: ``tools/site_editions.py``, ``RULE_WORDS``); the
#: severity titles above are tutor's messages, translated from its catalog.
RULE_WORDS = {"rule": "rule", "severity": "severity", "what it finds": "what it finds", "Rules": "Rules",
              "severities": "*Severity:* {severity}; some findings are {others}.", "or": " or ",
              "finds": "What it finds.",
              "why": "Why it matters.", "fix": "The fix.", "docs": "TensorFlow's documentation."}


def _mocked():
    from sphinx.ext.autodoc.mock import mock

    return mock(MOCKED)


# ---------------------------------------------------------------------------------------------- generated pages
def lesson_list(all_lessons, folder: str = "lessons") -> str:
    """The home page's list: one line per lesson, linked, with what it covers."""
    lines = []
    for lesson in all_lessons:
        covers = f": {lesson.covers}" if lesson.covers else ""
        lines.append(f"- [{lesson.number}: {lesson.title}]({folder}/{lesson.name}){covers}")
    return "\n".join(lines) + "\n"


def run_times(root: Path) -> dict[str, str]:
    """Seconds each lesson took to run headless, from the latest (first) notebooks table of ``benchmarks/README.md``."""
    readme = root / "benchmarks" / "README.md"
    found = {}
    if readme.is_file():
        for match in re.finditer(r"^\| (\d\d_[\w-]+) \| ([\d.]+) \| ([\d.]+) \|$", readme.read_text(), re.M):
            found.setdefault(match.group(1), match.group(2))  # the first table is the latest
    return found


def run_time_table(root: Path, all_lessons) -> str:
    """Instructors' table: each lesson's headless run time (or a dash where none was measured yet)."""
    times = run_times(root)
    rows = ["| lesson | runs in (s, headless, 2 cores) | cells |", "|---|---:|---:|"]
    for lesson in all_lessons:
        seconds = times.get(lesson.path.stem, "–")
        rows.append(f"| [{lesson.number}: {lesson.title}](lessons/{lesson.name}) | {seconds} | {len(lesson.nb.cells)} |")
    return "\n".join(rows) + "\n"


def _first_sentence(text: str) -> str:
    text = " ".join((text or "").split())
    return text.split(". ")[0].rstrip(".") + "." if text else ""


def rule_entries(lang: str = "en") -> list[dict]:
    """Every doctor rule as declared: id, severity, summary, why, fix, doc and quote.

    Reads ``tutor.doctor.rules.RULES``. Where a rule is a declaration (a
    ``Rule`` with those attributes) they are taken as they are; where it is
    still a plain check function, its docstring and ``DOCS`` give what there is.
    In an edition's ``lang``, summary, why and fix come from tutor's catalog of
    that language (English where a sentence has no translation yet); ids,
    severities, pages and TensorFlow's quoted sentences stay English.
    """
    with _mocked():
        from tutor.doctor import rules as module

        say = _translator(lang)
        docs = getattr(module, "DOCS", {})
        entries = []
        for rule_id, rule in module.RULES.items():
            doc, quote = docs.get(rule_id, ("", ""))
            entries.append({
                "id": getattr(rule, "id", rule_id),
                "severity": getattr(rule, "severity", ""),
                "severities": tuple(getattr(rule, "severities", ()) or ()),
                "summary": say(getattr(rule, "summary", "")) or _first_sentence(getattr(rule, "__doc__", "")),
                "why": say(getattr(rule, "why", "")),
                "fix": say(getattr(rule, "fix", "")),
                "doc": getattr(rule, "doc", "") or doc,
                "quote": getattr(rule, "quote", "") or quote,
            })
    return entries


def _translator(lang: str):
    """``text -> text`` in ``lang``, from tutor's compiled catalog (the identity for English)."""
    if lang == "en":
        return lambda text: text
    with _mocked():
        from tutor import i18n

        found = i18n.catalog(lang)
    return lambda text: found.gettext(text) if text else text


def rule_words(lang: str = "en", words: dict | None = None) -> dict:
    """The rules page's words in ``lang``: ``words`` over the English ones, the severity titles from tutor's catalog."""
    say = _translator(lang)
    return {**RULE_WORDS, **(words or {}), **{title: say(title) for title in SEVERITY_TITLES.values()}}


def _md(text: str) -> str:
    """A declaration's text as one markdown paragraph."""
    return " ".join(str(text).split()).replace("|", "\\|")


def rules_page(entries: list[dict], words: dict | None = None) -> str:
    """One section per rule, its anchor the rule id, grouped by severity; ``words``: the page's (``rule_words``)."""
    w = {**RULE_WORDS, **(words or {})}
    out = []
    present = [s for s in SEVERITY_TITLES if any(e["severity"] == s for e in entries)]
    groups = [(w.get(SEVERITY_TITLES[s], SEVERITY_TITLES[s]), [e for e in entries if e["severity"] == s])
              for s in present]
    rest = [e for e in entries if e["severity"] not in SEVERITY_TITLES]
    if rest:
        groups.append((w["Rules"], rest))
    out.append(f"| {w['rule']} | {w['severity']} | {w['what it finds']} |\n|---|---|---|")
    for entry in entries:
        severities = ", ".join(entry["severities"]) or entry["severity"] or "–"
        out.append(f"| [`{entry['id']}`](#{entry['id']}) | {severities} | {_md(entry['summary'] or entry['quote'])} |")
    out.append("")
    for title, group in groups:
        out.append(f"## {title}\n")
        for entry in group:
            out.append(f"({entry['id']})=")
            out.append(f"### `{entry['id']}`\n")
            others = [s for s in entry["severities"] if s != entry["severity"]]
            if others:
                out.append(w["severities"].format(severity=entry["severity"], others=w["or"].join(others)) + "\n")
            out.append(f"**{w['finds']}** {_md(entry['summary'] or entry['quote'])}\n")
            if entry["why"]:
                out.append(f"**{w['why']}** {_md(entry['why'])}\n")
            if entry["fix"]:
                out.append(f"**{w['fix']}** {_md(entry['fix'])}\n")
            if entry["doc"]:
                out.append(f"**{w['docs']}** <{entry['doc']}>\n")
            if entry["quote"]:
                out.append(f"> {_md(entry['quote'])}\n")
    return "\n".join(out) + "\n"


def api_names() -> dict[str, list[tuple[str, str]]]:
    """``tutor.__all__`` sorted into the reference's groups: group -> [(name, directive)]."""
    import inspect

    with _mocked():
        import tutor

        groups: dict[str, list[tuple[str, str]]] = {title: [] for title, _ in API_GROUPS}
        explorers = set(getattr(tutor, "_EXPLORERS", ()))
        for name in tutor.__all__:
            if name in explorers:
                groups["Explorers"].append((name, "autofunction"))
                continue
            obj = getattr(tutor, name)
            if inspect.ismodule(obj):
                groups["Modules"].append((name, "automodule"))
            elif inspect.isclass(obj):
                groups["Displays"].append((name, "autoclass"))
            else:
                groups["Functions"].append((name, "autofunction"))
    return groups


def reference_body() -> str:
    """autodoc entries for every public name of tutor, by group."""
    out = []
    for (title, intro), (_, names) in zip(API_GROUPS, api_names().items()):
        if not names:
            continue
        out.append(f"## {title}\n")
        if intro:
            out.append(intro.replace("``", "`") + "\n")
        out.append("```{eval-rst}")
        for name, directive in names:
            if directive == "autoclass":
                out.append(f".. autoclass:: tutor.{name}\n   :members:\n   :inherited-members:\n")
            elif directive == "automodule":
                out.append(f".. automodule:: tutor.{name}\n   :no-index:\n")
            else:
                out.append(f".. {directive}:: tutor.{name}\n")
        out.append("```\n")
    return "\n".join(out)


# --------------------------------------------------------------------------------------------------- staging
def _fill(path: Path, marker: str, text: str) -> None:
    """Replace the line ``<!-- marker -->`` of a staged page with ``text``."""
    page = path.read_text(encoding="utf-8")
    tag = f"<!-- {marker} -->"
    if tag not in page:
        raise ValueError(f"{path} has no {tag} line for the generated {marker}.")
    path.write_text(page.replace(tag, text.rstrip("\n")), encoding="utf-8")


#: A link from one lesson to a heading of another: ``(00_start_here.ipynb#Timings-under-a-CPU-quota)``.
LESSON_ANCHOR = re.compile(r"(\(\d\d_[\w-]+\.ipynb#)([^)\s\"]+)\)")


def page_text(text: str) -> str:
    """A lesson's notebook text as the site shows it: the site's badges, and links to another lesson's heading
    written with the anchor Sphinx makes (``myst_heading_anchors``: lower case), not Jupyter's (case kept)."""
    for outside, inside in BADGES.items():
        text = text.replace(outside, inside)
    return LESSON_ANCHOR.sub(lambda m: m.group(1) + m.group(2).lower() + ")", text)


def deck_text(text: str) -> str:
    """A lesson's notebook JSON as its deck shows it: badges from the site, "Next:" links to the next deck, and
    links to another lesson's heading to that heading on the lesson's page (a deck's headings have no anchors)."""
    for outside, inside in BADGES.items():
        text = text.replace(outside, "../.." + inside)
    text = LESSON_ANCHOR.sub(lambda m: "(../lessons/" + m.group(1)[1:].replace(".ipynb#", ".html#")
                             + m.group(2).lower() + ")", text)
    return re.sub(r"\((\d\d_[\w-]+)\.ipynb\)", r"(\1.html)", text)


def demo_paths(all_lessons, folder: str = "slides") -> str:
    """The instructors' demo paths (tools/slides.py), each slide linked into the lesson's deck in ``folder``."""
    return slides.demo_table([(lesson.path.stem, f"{lesson.number}: {lesson.title}", lesson.nb)
                              for lesson in all_lessons], folder)


def toc(all_lessons, lang: str = "en") -> str:
    chapters = "\n".join(f"      - file: {lang}/lessons/{lesson.path.stem}" for lesson in all_lessons)
    return (
        "# Generated by tools/site.py from notebooks/: do not edit the staged copy.\n"
        "format: jb-book\n"
        f"root: {lang}/index\n"
        "parts:\n"
        "  - caption: Start\n"
        "    chapters:\n"
        f"      - file: {lang}/start_here\n"
        "  - caption: Lessons\n"
        "    chapters:\n"
        f"{chapters}\n"
        "  - caption: Beyond the lessons\n"
        "    chapters:\n"
        f"      - file: {lang}/instructors\n"
        f"      - file: {lang}/reference\n"
        f"      - file: {lang}/doctor_rules\n"
        f"      - file: {lang}/troubleshooting\n"
    )


def configure(text: str, repo: str, ref: str, languages: tuple[str, ...] = ("en",)) -> str:
    """book/_config.yml pointed at the repository and ref of pyproject.toml, with the site's ``languages``."""
    text = re.sub(r"(?m)^(  url: ).*$", rf"\g<1>https://github.com/{repo}", text, count=1)
    text = re.sub(r"(?m)^(  branch: ).*$", rf"\g<1>{ref}", text, count=1)
    return text.replace("  config:\n", f"  config:\n    course_repository: {repo}\n    course_ref: {ref}\n"
                        f"    course_notebooks: {EDITIONS!r}\n    course_languages: {list(languages)!r}\n", 1)


def stage(root: Path, source: Path, reveal: Path | None = None) -> Path:
    """Lay out the book to build in ``source``: book/, the lessons and the generated parts; with ``reveal`` (the
    reveal.js tarball, :func:`tools.decks.reveal_tarball`) also every lesson's deck."""
    repo, ref = read_config(root)
    if source.exists():
        shutil.rmtree(source)
    shutil.copytree(root / "book", source, ignore=shutil.ignore_patterns("requirements.txt", "__pycache__"))
    all_lessons = lessons(root)
    for lang, folder in EDITIONS.items():
        if lang != "en":  # built on their own, from this English book: tools/site_editions.py
            continue
        target = source / lang / "lessons"
        target.mkdir(parents=True, exist_ok=True)
        for lesson in all_lessons:
            (target / lesson.name).write_text(page_text(lesson.path.read_text(encoding="utf-8")), encoding="utf-8")
            if reveal is not None:
                deck = source / "_extra" / lang / "slides" / f"{lesson.path.stem}.html"
                decks.write_deck(deck_text(lesson.path.read_text(encoding="utf-8")), deck, "../../_static/revealjs")
        if lang != "en":
            continue
        pages = source / lang
        _fill(pages / "index.md", "lessons", lesson_list(all_lessons))
        _fill(pages / "instructors.md", "run times", run_time_table(root, all_lessons))
        _fill(pages / "instructors.md", "demo paths", demo_paths(all_lessons))
        _fill(pages / "doctor_rules.md", "rules", rules_page(rule_entries()))
        _fill(pages / "reference.md", "api", reference_body())
    (source / "_extra").mkdir(exist_ok=True)
    if reveal is not None:
        decks.unpack_reveal(reveal, source / "_static" / "revealjs")
    (source / "_toc.yml").write_text(toc(all_lessons), encoding="utf-8")
    config = source / "_config.yml"
    from tools.site_editions import languages

    config.write_text(configure(config.read_text(encoding="utf-8"), repo, ref, languages(root)), encoding="utf-8")
    return source


def build(root: Path, out: Path) -> Path:
    source = stage(root, out.parent / (out.name + "-src"), reveal=decks.reveal_tarball(root / "build"))
    if out.exists():
        shutil.rmtree(out)
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    command = [str(jupyter_book), "build", str(source), "--path-output", str(out), "--builder", "html",
               "-W", "--keep-going", "--all"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(command, cwd=root, env=env)
    index = out / "_build" / "html" / "index.html"
    if done.returncode or not index.is_file():
        raise SystemExit(f"The site did not build (jupyter-book exited with {done.returncode}); see the warnings above.")
    from tools.site_editions import build_editions

    build_editions(root, source, out)
    return index


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="build/site", help="output folder (default build/site)")
    args = parser.parse_args(argv)
    root = find_root()
    out = Path(args.out)
    index = build(root, out if out.is_absolute() else root / out)
    print(index.relative_to(root) if index.is_relative_to(root) else index)
    return 0


if __name__ == "__main__":
    sys.exit(main())
