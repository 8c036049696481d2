"""The Japanese and Chinese editions, made from the English lessons and pages and gettext catalogs.

English is the one source. Each translatable piece of a lesson (``notebooks/NN_name.ipynb``) or a
website page (``book/en/name.md``): a heading, a paragraph, a list item, a table cell, a code comment
(:mod:`tools.segments`) is one message of a gettext catalog, keyed by its English text:

* ``locale/<lang>/notebooks/NN_name.po`` and ``locale/<lang>/book/name.po``: the lessons and pages;
* ``tutor/locale/<lang>/LC_MESSAGES/tutor.po`` (template ``tutor/locale/tutor.pot``): what ``tutor``
  says and draws, marked in its code with ``_()`` (``tutor/i18n.py``), extracted by Babel with
  ``locale/babel.cfg``; compiled to the ``tutor.mo`` beside it, which is committed so that an install
  from git has working catalogs without Babel.

Commands (run from the repository root; ``make editions`` is ``build --execute``)::

    python -m tools.editions update [--start NAME ...]  # re-read the English: new messages empty, changed ones fuzzy
    python -m tools.editions build [--execute]          # write notebooks/<lang>/, book/<lang>/ and tutor's .mo
    python -m tools.editions check                      # exit 1 on anything missing, fuzzy, stale or different
    python -m tools.editions status                     # per catalog: translated, fuzzy, missing; glossary hints

``update`` is Babel's ``Catalog.update`` (what ``pybabel update`` runs): a message whose English
changed keeps its old translation flagged fuzzy, with the old English beside it (``#| msgid``), so
it is never shown (the build and the .mo use only translations that are not fuzzy; English stands in)
and ``check`` fails until a translator has looked at it. ``--start 01_datasets_from_data`` (or
``--start all``) begins the catalogs of a lesson or page not translated yet; a new message whose exact
English is already translated in another catalog of the language starts with that translation.

An edition exists for a lesson or page once its catalog does. Its notebook has the English lesson's
cells, ids, tags and code, with the markdown and the comments translated, badges that open the edition's
own notebook, links to the lessons of the edition (English lessons not translated yet are linked as
``../NN_name.ipynb``) and ``tutor.set_language("<lang>")`` right after the lesson's ``import tutor``
(:func:`language_cell`). ``check`` fails when a catalog misses a translation or has a fuzzy one, when tutor's
template, catalogs or compiled catalogs are not up to date with the code, when an edition file is not
what ``build`` makes from the English now, or when an edition's code differs from the English code
(comments and the ``set_language`` line aside, as the repository's before-stop hook compares them).
"""
from __future__ import annotations

import argparse
import copy
import io
import re
import sys
from pathlib import Path

import nbformat
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from tools import links
from tools.segments import walk_comments, walk_markdown

#: Languages with an edition: code -> Babel locale, and the comment above the language line of each lesson.
LANGUAGES = {"ja": "ja", "zh": "zh_Hans_CN"}
LANGUAGE_COMMENT = {
    "ja": "このエディションの言語：tutor が表示する文章や図も日本語になります。",
    "zh": "本版本的语言：tutor 显示的文字和图表也会使用简体中文。",
}
PROJECT = "tf.data course"
LESSON_LINK_RE = re.compile(r"\]\((\d\d_[\w.-]+\.ipynb)?(#[^)\s]+)?\)")
HEADING_LINE_RE = re.compile(r"^#{1,6}\s+(.*?)\s*$")


def anchor(heading: str) -> str:
    """The id Jupyter gives a heading (its text, spaces as dashes), which links to it end with after ``#``.

    >>> anchor("Timings under a **CPU** quota")
    'Timings-under-a-CPU-quota'
    """
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    return re.sub(r"[*`]", "", text).strip().replace(" ", "-")


def heading_anchors(source: "Source", lang: str) -> dict[str, str]:
    """English heading id -> the edition's heading id, for links into ``source`` from its own edition."""
    catalog_path = source.catalog_path(lang)
    translate = lookup(read_catalog(catalog_path, lang) if catalog_path.is_file() else None)
    found = {}
    for cell in nbformat.read(source.path, as_version=4).cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                match = HEADING_LINE_RE.match(line)
                if match:
                    found[anchor(match.group(1))] = anchor(translate(match.group(1)))
    return found


def language_line(lang: str) -> str:
    return f'# {LANGUAGE_COMMENT[lang]}\nimport tutor; tutor.set_language("{lang}")'


def language_cell(nb) -> int | None:
    """Where the edition sets its language: the first code cell that imports tutor (so a cell that must run before
    TensorFlow loads, such as lesson 14's ``KERAS_BACKEND``, stays before it), or else the first code cell."""
    code = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    importing = [i for i in code if re.search(r"^import tutor\b", nb.cells[i].source, flags=re.M)]
    return (importing or code or [None])[0]


def with_language_line(source: str, lang: str) -> str:
    """``source`` with the language set right after its ``import tutor`` line, or at its end."""
    lines = source.rstrip("\n").split("\n")
    at = next((i + 1 for i, line in enumerate(lines) if re.match(r"import tutor\b", line)), None)
    if at is None:
        return "\n".join(lines) + "\n" + language_line(lang)
    return "\n".join(lines[:at] + [f"# {LANGUAGE_COMMENT[lang]}", f'tutor.set_language("{lang}")'] + lines[at:])


def code_of(nb) -> list[str]:
    """Each code cell without comments, blank lines and the ``set_language`` line (the before-stop hook's rule)."""
    out = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            lines = [re.sub(r"\s+#.*$", "", line).rstrip() for line in cell.source.splitlines()]
            out.append("\n".join(line for line in lines if line.strip() and not line.lstrip().startswith("#")
                                 and "set_language" not in line))
    return out


# ------------------------------------------------------------------------------------------------ catalogs
def new_catalog(lang: str, domain: str) -> Catalog:
    catalog = Catalog(locale=LANGUAGES[lang], domain=domain, project=PROJECT, fuzzy=False,
                      msgid_bugs_address="", copyright_holder="the tf.data course authors")
    catalog.language_team = {"ja": "Japanese", "zh": "Simplified Chinese"}[lang]
    return catalog


def read_catalog(path: Path, lang: str | None = None) -> Catalog:
    with open(path, "rb") as handle:
        return read_po(handle, locale=LANGUAGES[lang] if lang else None)


def write_catalog(path: Path, catalog: Catalog, *, template: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, include_previous=not template, include_lineno=False, ignore_obsolete=False)
    data = buffer.getvalue()
    if not path.is_file() or path.read_bytes() != data:
        path.write_bytes(data)


def translated(message: Message) -> bool:
    strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
    return bool(message.id) and not message.fuzzy and all(strings)


def lookup(catalog: Catalog | None):
    """``translate(english)``: the catalog's translation where it has one that is not fuzzy, else the English."""
    def translate(english: str) -> str:
        message = catalog.get(english) if catalog is not None else None
        return message.string if message is not None and translated(message) else english
    return translate


# ------------------------------------------------------------------------------------------------- sources
class Source:
    """One English lesson or page, and where its catalog and edition files go for each language."""

    def __init__(self, root: Path, kind: str, path: Path):
        self.root, self.kind, self.path, self.name = root, kind, path, path.stem

    def catalog_path(self, lang: str) -> Path:
        return self.root / "locale" / lang / self.kind / f"{self.name}.po"

    def edition_path(self, lang: str) -> Path:
        folder = self.root / ("notebooks" if self.kind == "notebooks" else "book") / lang
        return folder / self.path.name

    def has_edition(self, lang: str) -> bool:
        return self.catalog_path(lang).is_file()

    def template(self) -> Catalog:
        template = Catalog(domain=self.name, project=PROJECT, fuzzy=False)
        where = str(self.path.relative_to(self.root))

        def collect(index: int, note: str):
            def record(english: str) -> str:
                template.add(english, locations=[(where, index)], auto_comments=[note] if note else [])
                return english
            return record

        if self.kind == "notebooks":
            nb = nbformat.read(self.path, as_version=4)
            covers = nb.metadata.get("tutor", {}).get("covers")
            if covers:
                template.add(covers, locations=[(where, 0)], auto_comments=["the lesson's one-line summary"])
            for index, cell in enumerate(nb.cells):
                walk = walk_markdown if cell.cell_type == "markdown" else walk_comments
                walk(cell.source, collect(index, "a code comment" if cell.cell_type == "code" else ""))
        else:
            walk_markdown(self.path.read_text(encoding="utf-8"), collect(0, ""))
        return template


def sources(root: Path) -> list[Source]:
    notebooks = [Source(root, "notebooks", p) for p in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))]
    pages = [Source(root, "book", p) for p in sorted((root / "book" / "en").glob("*.md"))]
    return notebooks + pages


def memory(root: Path, lang: str) -> dict[str, str]:
    """Every translation (not fuzzy) of the language's catalogs: English -> translation."""
    found = {}
    for path in sorted((root / "locale" / lang).rglob("*.po")):
        for message in read_catalog(path, lang):
            if translated(message) and isinstance(message.id, str):
                found.setdefault(message.id, message.string)
    return found


def update_catalog(path: Path, template: Catalog, lang: str, known: dict[str, str]) -> Catalog:
    catalog = read_catalog(path, lang) if path.is_file() else new_catalog(lang, template.domain)
    catalog.update(template, update_creation_date=False)
    for message in catalog:
        if message.id and not message.string and isinstance(message.id, str) and message.id in known:
            message.string = known[message.id]
    write_catalog(path, catalog)
    return catalog


# --------------------------------------------------------------------------------------------- tutor's own
def tutor_template(root: Path) -> Catalog:
    """tutor's marked messages, as ``pybabel extract -F locale/babel.cfg -c Translators: tutor`` finds them."""
    with open(root / "locale" / "babel.cfg", encoding="utf-8") as handle:
        method_map, options_map = parse_mapping_cfg(handle)
    template = Catalog(domain="tutor", project=PROJECT, fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
            root / "tutor", method_map, options_map, comment_tags=("Translators:",), strip_comment_tags=True):
        template.add(message, locations=[(f"tutor/{filename}", lineno)], auto_comments=comments, context=context)
    return template


def tutor_paths(root: Path, lang: str) -> tuple[Path, Path]:
    folder = root / "tutor" / "locale" / lang / "LC_MESSAGES"
    return folder / "tutor.po", folder / "tutor.mo"


def compiled(catalog: Catalog) -> bytes:
    """The ``.mo`` of ``catalog``, holding only its translated messages: Babel's ``write_mo`` would fill an empty
    plural entry with the English singular, which a one-form language (ja, zh) then shows for every number."""
    kept = copy.deepcopy(catalog)
    for message in list(kept):
        if message.id and not translated(message):
            kept.delete(message.id, message.context)
    buffer = io.BytesIO()
    write_mo(buffer, kept, use_fuzzy=False)
    return buffer.getvalue()


def mo_messages(data: bytes) -> dict:
    """What a compiled catalog holds, as gettext reads it (the header aside)."""
    import gettext

    table = gettext.GNUTranslations(io.BytesIO(data))._catalog
    return {key: value for key, value in table.items() if key != ""}


# ---------------------------------------------------------------------------------------------------- build
def relink(text: str, source: Source, lang: str, translated_lessons: set[str], *, outside: str = "../") -> str:
    """Links in ``text`` (in lesson ``source``) to lessons: inside the edition, to its headings, where translated;
    to the English lesson (through ``outside``) where not."""
    def one(match: re.Match) -> str:
        name, fragment = match.group(1), match.group(2) or ""
        stem = Path(name).stem if name else source.name
        if stem not in translated_lessons:
            return f"]({outside}{name}{fragment})" if name else match.group(0)
        if fragment:
            target = source if stem == source.name else Source(source.root, "notebooks", source.path.with_name(name))
            fragment = "#" + heading_anchors(target, lang).get(fragment[1:], fragment[1:])
        return f"]({name or ''}{fragment})"

    return LESSON_LINK_RE.sub(one, text)


def edition_notebook(source: Source, lang: str, repo: str, ref: str, translated_lessons: set[str]):
    """The edition notebook the English lesson and the catalog make now (outputs taken from the old one)."""
    english = nbformat.read(source.path, as_version=4)
    catalog_path = source.catalog_path(lang)
    translate = lookup(read_catalog(catalog_path, lang) if catalog_path.is_file() else None)
    nb = copy.deepcopy(english)
    target = source.edition_path(lang)
    old = nbformat.read(target, as_version=4) if target.is_file() else None
    old_cells = {c.get("id"): c for c in old.cells} if old is not None else {}

    chosen = language_cell(nb)
    for index, cell in enumerate(nb.cells):
        first_code = index == chosen
        if cell.cell_type == "markdown":
            cell.source = relink(walk_markdown(cell.source, translate), source, lang, translated_lessons)
            continue
        cell.source = walk_comments(cell.source, translate)
        if first_code:
            cell.source = with_language_line(cell.source, lang)
        before = old_cells.get(cell.get("id"))
        if before is not None and before.cell_type == "code" and (first_code or code_of(_one(before)) ==
                                                                   code_of(_one(cell))):
            cell.outputs, cell.execution_count = before.outputs, before.execution_count
        else:
            cell.outputs, cell.execution_count, before = [], None, None
        cell.metadata.pop("execution", None)  # when the edition's own run executed it, not the English one
        if before is not None and "execution" in before.get("metadata", {}):
            cell.metadata["execution"] = before.metadata["execution"]
        first_code = False
    head = nb.cells[0]
    notebook = f"{lang}/{source.path.name}"
    badges = (f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
              f"({links.colab_url(repo, ref, notebook)}) [![Launch Binder](https://mybinder.org/badge_logo.svg)]"
              f"({links.binder_url(repo, ref, notebook.replace('/', '%2F'))})")
    head.source = links.BADGE_LINE_RE.sub(lambda m: badges, head.source, count=1)
    meta = nb.metadata.setdefault("tutor", {})
    if meta.get("covers"):
        meta["covers"] = translate(meta["covers"])
    meta["edition"] = lang
    return nb


def _one(cell):
    return nbformat.v4.new_notebook(cells=[cell])


def sources_of(nb) -> list:
    """What ``check`` compares: cells' type, id, metadata (not run times) and source, and the ``tutor`` metadata."""
    return [nb.metadata.get("tutor"), *[(c.cell_type, c.get("id"), {k: v for k, v in c.get("metadata", {}).items()
                                                                     if k != "execution"}, c.source) for c in nb.cells]]


def build(root: Path, *, execute: bool = False) -> list[Path]:
    """Write every edition file from the English and the catalogs; returns the files that changed."""
    repo, ref = links.read_config(root)
    changed = []
    for lang in LANGUAGES:
        po, mo = tutor_paths(root, lang)
        if po.is_file():
            data = compiled(read_catalog(po, lang))
            if not mo.is_file() or mo.read_bytes() != data:
                mo.write_bytes(data)
                changed.append(mo)
        all_sources = sources(root)
        lessons = {s.name for s in all_sources if s.kind == "notebooks" and s.has_edition(lang)}
        for source in all_sources:
            if not source.has_edition(lang):
                continue
            target = source.edition_path(lang)
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.kind == "notebooks":
                nb = edition_notebook(source, lang, repo, ref, lessons)
                text = nbformat.writes(nb) + "\n"
            else:
                text = walk_markdown(source.path.read_text(encoding="utf-8"),
                                     lookup(read_catalog(source.catalog_path(lang), lang)))
            if not target.is_file() or target.read_text(encoding="utf-8") != text:
                target.write_text(text, encoding="utf-8")
                changed.append(target)
            if execute and source.kind == "notebooks":
                from tools import nbtools

                _, seconds = nbtools.execute(target)
                print(f"{target.relative_to(root)}: {seconds:.1f} s")
    return changed


# ---------------------------------------------------------------------------------------------------- check
#: What a translation keeps as the English has it: placeholders (tutor), inline code, link targets and numbers.
KEPT = {
    "placeholder": re.compile(r"\{[^{}]*\}"),
    "inline code": re.compile(r"`[^`]+`"),
    "link target": re.compile(r"\]\(([^)\s]+)\)"),
    "number": re.compile(r"(?<![\w.])\d+(?:\.\d+)?"),
}


def changed_in_translation(english: str, translation: str, kinds) -> list[str]:
    """What of ``english`` (placeholders, inline code, link targets, numbers) the translation lost or changed."""
    lost = []
    for kind in kinds:
        missing = set(KEPT[kind].findall(english)) - set(KEPT[kind].findall(translation))
        lost += [f"{kind} {item}" for item in sorted(missing)]
    return lost


def catalog_problems(path: Path, template: Catalog, lang: str, root: Path) -> list[str]:
    where = path.relative_to(root)
    if not path.is_file():
        return [f"{where} is missing: run python -m tools.editions update"]
    catalog = read_catalog(path, lang)
    problems = []
    for message in template:
        if not message.id:
            continue
        found = catalog.get(message.id, context=message.context)
        english = message.id if isinstance(message.id, str) else message.id[0]
        if found is None:
            problems.append(f"{where}: not in the catalog (run update, then translate): {english!r}")
        elif found.fuzzy:
            problems.append(f"{where}: outdated, its English changed (fuzzy): {english!r}")
        elif not translated(found):
            problems.append(f"{where}: not translated: {english!r}")
        else:
            kinds = ("placeholder",) if template.domain == "tutor" else ("inline code", "link target", "number")
            ids = [message.id] if isinstance(message.id, str) else list(message.id)
            strings = [found.string] if isinstance(found.string, str) else list(found.string)
            lost = [x for e in ids[:1] for t in strings for x in changed_in_translation(e, t, kinds)]
            if lost:
                problems.append(f"{where}: the translation of {english!r} lost {', '.join(sorted(set(lost)))}")
    return problems


def check(root: Path) -> list[str]:
    """Every missing, outdated or stale translation and every edition that differs from the English, as sentences."""
    problems = []
    repo, ref = links.read_config(root)
    template = tutor_template(root)
    pot = root / "tutor" / "locale" / "tutor.pot"
    if not pot.is_file() or {m.id for m in read_catalog(pot)} != {m.id for m in template}:
        problems.append("tutor/locale/tutor.pot is not what tutor's code marks now: run python -m tools.editions update")
    all_sources = sources(root)
    names = {(s.kind, s.path.name) for s in all_sources}
    for lang in LANGUAGES:
        po, mo = tutor_paths(root, lang)
        editions = [s for s in all_sources if s.has_edition(lang)]
        if not editions and not po.is_file():
            continue
        problems += catalog_problems(po, template, lang, root)
        if po.is_file() and (not mo.is_file() or mo_messages(mo.read_bytes()) != mo_messages(
                compiled(read_catalog(po, lang)))):
            problems.append(f"{mo.relative_to(root)} does not match {po.name}: run python -m tools.editions build")
        lessons = {s.name for s in editions if s.kind == "notebooks"}
        for source in editions:
            problems += catalog_problems(source.catalog_path(lang), source.template(), lang, root)
            target = source.edition_path(lang)
            where = target.relative_to(root)
            if not target.is_file():
                problems.append(f"{where} is missing: run make editions")
                continue
            if source.kind == "book":
                wanted = walk_markdown(source.path.read_text(encoding="utf-8"),
                                       lookup(read_catalog(source.catalog_path(lang), lang)))
                if target.read_text(encoding="utf-8") != wanted:
                    problems.append(f"{where} is not what book/en/{source.path.name} and its catalog make: "
                                    "run python -m tools.editions build")
                continue
            have = nbformat.read(target, as_version=4)
            if code_of(have) != code_of(nbformat.read(source.path, as_version=4)):
                problems.append(f"{where}: its code differs from the English lesson's: run make editions")
            elif sources_of(have) != sources_of(edition_notebook(source, lang, repo, ref, lessons)):
                problems.append(f"{where} is not what the English lesson and its catalog make: run make editions")
        for folder, kind, pattern in ((root / "notebooks" / lang, "notebooks", "*.ipynb"),
                                      (root / "book" / lang, "book", "*.md")):
            for path in sorted(folder.glob(pattern)) if folder.is_dir() else []:
                if (kind, path.name) not in names or not Source(root, kind, path).catalog_path(lang).is_file():
                    problems.append(f"{path.relative_to(root)} has no English source or no catalog")
    return problems


# --------------------------------------------------------------------------------------------------- status
def glossary(root: Path, lang: str) -> dict[str, list[str]]:
    """English term -> the accepted translations, from the first two columns of ``locale/glossary.<lang>.md``."""
    path = root / "locale" / f"glossary.{lang}.md"
    terms = {}
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and line.startswith("|") and not set(cells[0]) <= set("-: ") and cells[0] != "English":
            terms[cells[0].strip("`*").lower()] = [t.strip().strip("`*") for t in cells[1].split("/") if t.strip()]
    return terms


def status(root: Path) -> list[str]:
    """One line per catalog (translated, fuzzy, missing), then translations that use none of a glossary term's."""
    lines = []
    for lang in LANGUAGES:
        terms = glossary(root, lang)
        paths = [tutor_paths(root, lang)[0], *sorted((root / "locale" / lang).rglob("*.po"))]
        for path in paths:
            if not path.is_file():
                continue
            catalog = read_catalog(path, lang)
            messages = [m for m in catalog if m.id]
            done = [m for m in messages if translated(m)]
            fuzzy = sum(1 for m in messages if m.fuzzy)
            lines.append(f"{path.relative_to(root)}: {len(done)} translated, {fuzzy} fuzzy, "
                         f"{len(messages) - len(done) - fuzzy} missing")
            for message in done:
                english = KEPT["inline code"].sub("", message.id if isinstance(message.id, str) else message.id[0])
                text = message.string if isinstance(message.string, str) else message.string[0]
                for term, chosen in terms.items():
                    if re.search(rf"\b{re.escape(term)}\b", english, re.I) and not any(c in text for c in chosen):
                        lines.append(f"  glossary: {term!r} -> {' / '.join(chosen)} not used in: {text[:70]!r}")
    return lines


def update(root: Path, start: list[str]) -> list[str]:
    """Re-read the English into every catalog (and start those named in ``start``); returns what was written."""
    written = []
    template = tutor_template(root)
    pot = root / "tutor" / "locale" / "tutor.pot"
    if pot.is_file():  # the date changes only with what the template holds
        old = read_catalog(pot)
        if [(m.id, m.auto_comments) for m in old] == [(m.id, m.auto_comments) for m in template]:
            template.creation_date = old.creation_date
    write_catalog(pot, template, template=True)
    all_sources = sources(root)
    unknown = set(start) - {s.name for s in all_sources} - {"all"}
    if unknown:
        raise SystemExit(f"--start names no English lesson or page: {sorted(unknown)}")
    for lang in LANGUAGES:
        known = memory(root, lang)
        po = tutor_paths(root, lang)[0]
        update_catalog(po, template, lang, known)
        written.append(po)
        for source in all_sources:
            if source.has_edition(lang) or source.name in start or "all" in start:
                update_catalog(source.catalog_path(lang), source.template(), lang, known)
                written.append(source.catalog_path(lang))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("update", help="re-read the English into every catalog")
    up.add_argument("--start", nargs="*", default=[], help="begin the catalogs of these lessons or pages (or: all)")
    bd = sub.add_parser("build", help="write the edition notebooks, pages and tutor's compiled catalogs")
    bd.add_argument("--execute", action="store_true", help="then re-record every edition notebook's outputs")
    sub.add_parser("check", help="exit 1 on a missing or outdated translation or a stale or different edition")
    sub.add_parser("status", help="how far each catalog is translated")
    args = parser.parse_args(argv)
    root = links.find_root()
    if args.command == "update":
        for path in update(root, args.start):
            print(f"updated {path.relative_to(root)}")
    elif args.command == "build":
        for path in build(root, execute=args.execute):
            print(f"wrote {path.relative_to(root)}")
    elif args.command == "status":
        print("\n".join(status(root)))
    else:
        problems = check(root)
        print("\n".join(problems) if problems else "Every edition is translated, up to date, and has the English code.")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
