"""The website's Japanese and Chinese editions: one Sphinx build per language, beside the English one.

Sphinx searches in one language per build (Japanese with its own word splitter, Chinese with jieba), so
each edition is a book of its own, staged from the English book ``tools/site.py`` staged and built into
``<site>/<lang>/``: the English pages are ``<site>/en/<page>.html`` and an edition's are
``<site>/<lang>/<page>.html``, the same ``<page>`` in every language, which is what the language switch on
every page (``book/_ext/languages.py``) links to; the slides buttons open the English decks. An edition has
every page and lesson of the English
one: its translated ones (``book/<lang>/*.md``, ``notebooks/<lang>/*.ipynb``, made by ``tools/editions.py``)
and, until they are translated, the English ones, so every link and the switch always find their page.
A translated lesson's launch buttons open the edition's notebook; an English one's the English notebook.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from tools import editions, site
from tools.links import Lesson, lessons

#: Each edition's Sphinx language (its search, the theme's own words) and the words of its book around the pages.
SPHINX_LANGUAGE = {"ja": "ja", "zh": "zh_CN"}
WORDS = {
    "ja": {"title": "tf.data を動かして学ぶ", "Start": "はじめに", "Lessons": "レッスン",
           "Beyond the lessons": "レッスンの先へ",
           "footer": "リポジトリのノートブックと、その保存済みの出力から作られています。"},
    "zh": {"title": "看着 tf.data 运行来学习", "Start": "开始", "Lessons": "课程", "Beyond the lessons": "课程之外",
           "footer": "由仓库中的笔记本及其已保存的输出构建。"},
}
#: The doctor's rules page's own words in each edition (``tools/site.py``, ``RULE_WORDS``); the rules' text and
#: the severity titles come from tutor's catalog of the language.
RULE_WORDS = {
    "ja": {"rule": "ルール", "severity": "重大度", "what it finds": "見つけるもの", "Rules": "ルール",
           "severities": "*重大度：* {severity}。一部の指摘は {others} です。", "or": " または ",
           "finds": "見つけるもの：", "why": "なぜ重要か：", "fix": "直し方：", "docs": "TensorFlow のドキュメント："},
    "zh": {"rule": "规则", "severity": "严重程度", "what it finds": "发现什么", "Rules": "规则",
           "severities": "*严重程度：* {severity}；部分发现为 {others}。", "or": " 或 ", "finds": "发现什么：",
           "why": "为何重要：", "fix": "修复方法：", "docs": "TensorFlow 文档："},
}
#: Generated parts of the pages, by their marker (tools/site.py fills the English ones the same way), each made
#: by ``make(root, all_lessons, lang)``.
GENERATED = {
    "lessons": lambda root, all_lessons, lang: site.lesson_list(all_lessons),
    "run times": lambda root, all_lessons, lang: site.run_time_table(root, all_lessons),
    "demo paths": lambda root, all_lessons, lang: site.demo_paths(all_lessons, "../en/slides"),  # the decks
    "rules": lambda root, all_lessons, lang: site.rules_page(site.rule_entries(lang),
                                                             site.rule_words(lang, RULE_WORDS.get(lang))),
    "api": lambda root, all_lessons, lang: site.reference_body(),
}
ENGLISH_LINK_RE = re.compile(r"\]\(\.\./(\d\d_[\w.-]+\.ipynb)\)")


def languages(root: Path) -> tuple[str, ...]:
    """The site's languages: English, and each edition that has a notebook or a page."""
    return ("en", *[lang for lang in editions.LANGUAGES
                    if any((root / "notebooks" / lang).glob("*.ipynb")) or any((root / "book" / lang).glob("*.md"))])


def edition_lessons(root: Path, lang: str):
    """Every lesson as the edition shows it: its translated notebook where there is one, else the English."""
    out = []
    for lesson in lessons(root):
        translated = root / "notebooks" / lang / lesson.name
        out.append(Lesson(translated, nbformat.read(translated, as_version=4)) if translated.is_file() else lesson)
    return out


def stage_edition(root: Path, english: Path, target: Path, lang: str) -> Path:
    """The book of edition ``lang`` in ``target``, from the English book staged in ``english``."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(english, target, ignore=lambda folder, names: [n for n in names if Path(folder) == english
                                                                   and n in ("en", "_extra", *editions.LANGUAGES)])
    all_lessons = edition_lessons(root, lang)
    translated = {p.stem for p in (root / "notebooks" / lang).glob("[0-9][0-9]_*.ipynb")}
    (target / "lessons").mkdir()
    for lesson in all_lessons:
        text = site.page_text(lesson.path.read_text(encoding="utf-8"))
        if lesson.path.parent.name == lang:  # every lesson is in the edition's site: ../ is not needed there
            text = ENGLISH_LINK_RE.sub(r"](\1)", text)
        else:  # an English lesson shown in the edition: its links into translated lessons reach their headings
            nb = nbformat.reads(text, as_version=4)
            source = editions.Source(root, "notebooks", lesson.path)
            for cell in nb.cells:
                if cell.cell_type == "markdown":
                    cell.source = editions.relink(cell.source, source, lang, translated | {lesson.path.stem},
                                                  outside="")
            text = nbformat.writes(nb)
        (target / "lessons" / lesson.name).write_text(text, encoding="utf-8")
    for page in sorted((root / "book" / "en").glob("*.md")):
        own = root / "book" / lang / page.name
        text = (own if own.is_file() else page).read_text(encoding="utf-8")
        (target / page.name).write_text(text, encoding="utf-8")
        for marker, make in GENERATED.items():
            if f"<!-- {marker} -->" in text:
                site._fill(target / page.name, marker, make(root, all_lessons, lang))
    (target / "_extra").mkdir()  # the lessons' pages link the English decks (en/slides/)
    words = WORDS[lang]
    toc = site.toc(all_lessons, "en").replace("file: en/", "file: ").replace("root: en/index", "root: index")
    for caption in ("Start", "Lessons", "Beyond the lessons"):
        toc = toc.replace(f"caption: {caption}\n", f"caption: {words[caption]}\n")
    (target / "_toc.yml").write_text(toc, encoding="utf-8")
    config = (target / "_config.yml").read_text(encoding="utf-8")
    config = re.sub(r"(?m)^title: .*$", f"title: {words['title']}", config, count=1)
    config = re.sub(r'(?m)^(  extra_footer: ).*$', rf'\g<1>"{words["footer"]}"', config, count=1)
    config = re.sub(r"(?m)^(    language: ).*$", rf"\g<1>{SPHINX_LANGUAGE[lang]}", config, count=1)
    config = config.replace("  config:\n", f"  config:\n    course_edition: {lang}\n"
                                          f"    course_translated: {sorted(translated)!r}\n", 1)
    if lang == "zh":  # jieba, which splits Chinese for the search index, learns the glossary's terms as words
        words = target / "search_words.txt"
        words.write_text("".join(f"{term} 100000 n\n" for chosen in editions.glossary(root, lang).values()
                                 for term in chosen if not term.isascii()), encoding="utf-8")
        config = config.replace("  config:\n", f"  config:\n    html_search_options:\n      dict: {words}\n", 1)
    (target / "_config.yml").write_text(config, encoding="utf-8")
    return target


def build_editions(root: Path, english: Path, out: Path) -> list[Path]:
    """Stage and build every edition with notebooks or pages, each into ``out/_build/html/<lang>/``."""
    built = []
    for lang in languages(root)[1:]:
        source = stage_edition(root, english, out.parent / f"{out.name}-{lang}-src", lang)
        work = out.parent / f"{out.name}-{lang}"
        if work.exists():
            shutil.rmtree(work)
        jupyter_book = Path(sys.executable).with_name("jupyter-book")
        command = [str(jupyter_book), "build", str(source), "--path-output", str(work), "--builder", "html",
                   "-W", "--keep-going", "--all"]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
        done = subprocess.run(command, cwd=root, env=env)
        html = work / "_build" / "html"
        if done.returncode or not (html / "index.html").is_file():
            raise SystemExit(f"The {lang} edition of the site did not build (jupyter-book exited with "
                             f"{done.returncode}); see the warnings above.")
        target = out / "_build" / "html" / lang
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(html, target)
        built.append(target)
    return built
