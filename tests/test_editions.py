"""tools/editions.py and tools/segments.py: the Japanese and Chinese editions stay translated, current and the same code."""
import shutil
from pathlib import Path

import nbformat
import pytest

from tools import editions, links
from tools.segments import pieces, walk_comments, walk_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_every_edition_is_translated_up_to_date_and_has_the_english_code():
    """What CI enforces (python -m tools.editions check): run update, translate, then make editions."""
    problems = editions.check(ROOT)
    assert not problems, "\n".join(problems)


def test_each_edition_notebook_opens_itself_and_speaks_its_language():
    repo, ref = links.read_config(ROOT)
    for path in sorted(ROOT.glob("notebooks/[a-z][a-z]/[0-9][0-9]_*.ipynb")):
        lang = path.parent.name
        nb = nbformat.read(path, as_version=4)
        head = nb.cells[0].source
        assert f"/blob/{ref}/notebooks/{lang}/{path.name})" in head
        assert f"?labpath=notebooks%2F{lang}%2F{path.name})" in head
        lines = nb.cells[editions.language_cell(nb)].source.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("import tutor"))
        assert lines[at + 2] == f'tutor.set_language("{lang}")', path.name   # after a comment line saying so
        assert not any("set_language" in c.source for c in nb.cells[:editions.language_cell(nb)]), path.name
        assert nb.metadata["tutor"]["edition"] == lang


# --------------------------------------------------------------------------------------- a copy to break
@pytest.fixture
def course(tmp_path):
    """A copy of what the edition notebooks are made from: the lessons, their editions and catalogs, tutor, the
    config (the website's pages left out)."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for name in ("locale", "tutor", "notebooks"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb_checkpoints"))
    (tmp_path / "book" / "en").mkdir(parents=True)
    for lang in editions.LANGUAGES:  # no page was copied: no page catalog either
        for po in (tmp_path / "locale" / lang / "book").glob("*.po"):
            po.unlink()
    assert editions.check(tmp_path) == []
    return tmp_path


def _edit_english(root: Path, old: str, new: str, kind: str = "markdown") -> None:
    path = root / "notebooks" / "00_start_here.ipynb"
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if old in c.source and c.cell_type == kind)
    cell.source = cell.source.replace(old, new)
    nbformat.write(nb, path)


@pytest.mark.slow  # copies tutor and runs the check several times
def test_a_changed_english_sentence_is_caught_and_its_old_translation_is_not_shown(course):
    _edit_english(course, "## Tips for live demos", "## Tips for live teaching")
    assert any("not in the catalog" in p and "Tips for live teaching" in p for p in editions.check(course))
    editions.update(course, [])
    problems = editions.check(course)
    assert any("outdated, its English changed (fuzzy): 'Tips for live teaching'" in p for p in problems), problems
    catalog = editions.read_catalog(course / "locale/ja/notebooks/00_start_here.po", "ja")
    assert catalog["Tips for live teaching"].fuzzy and catalog["Tips for live teaching"].string == "ライブデモのヒント"
    editions.build(course)
    built = (course / "notebooks/ja/00_start_here.ipynb").read_text()
    assert "## Tips for live teaching" in built and "## ライブデモのヒント" not in built  # English, until translated
    catalog["Tips for live teaching"].flags.discard("fuzzy")
    catalog["Tips for live teaching"].string = "ライブ授業のヒント"
    editions.write_catalog(course / "locale/ja/notebooks/00_start_here.po", catalog)
    editions.build(course)
    assert [p for p in editions.check(course) if "/ja/" in p] == []


@pytest.mark.slow  # copies tutor and runs the check several times
def test_an_edition_whose_code_differs_from_the_english_fails(course):
    path = course / "notebooks" / "ja" / "00_start_here.ipynb"
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "env_report" in c.source)
    cell.source += "\nprint('only in Japanese')"
    nbformat.write(nb, path)
    assert editions.check(course) == ["notebooks/ja/00_start_here.ipynb: its code differs from the English lesson's: "
                                      "run make editions"]
    _edit_english(course, "tutor.env_report()", "tutor.env_report(data_source=False)", "code")
    editions.build(course)
    rebuilt = nbformat.read(path, as_version=4)
    assert editions.code_of(rebuilt) == editions.code_of(nbformat.read(course / "notebooks/00_start_here.ipynb", 4))
    assert not [p for p in editions.check(course) if "/ja/" in p or "/zh/" in p]


@pytest.mark.slow  # copies tutor and runs the check several times
def test_a_translation_that_loses_code_a_link_or_a_number_fails(course):
    po = course / "locale/zh/notebooks/00_start_here.po"
    catalog = editions.read_catalog(po, "zh")
    message = catalog["`ex.q1.solution()` shows one correct answer. Try each exercise yourself before you look."]
    message.string = "ex.q1.solution() 会显示一个正确答案。"
    editions.write_catalog(po, catalog)
    assert any("lost inline code `ex.q1.solution()`" in p for p in editions.check(course))


@pytest.mark.slow  # copies tutor and runs the check several times
def test_a_newly_marked_tutor_message_needs_its_translations(course):
    env = course / "tutor" / "env.py"
    env.write_text(env.read_text().replace('_("digit images")', '_("digit pictures")'))
    problems = editions.check(course)
    assert "tutor/locale/tutor.pot is not what tutor's code marks now: run python -m tools.editions update" in problems
    assert any("tutor.po: not in the catalog" in p and "digit pictures" in p for p in problems)
    editions.update(course, [])
    assert any("tutor.po: outdated, its English changed (fuzzy): 'digit pictures'" in p for p in editions.check(course))


@pytest.mark.slow  # copies tutor and runs the check several times
def test_the_compiled_catalogs_match_their_sources(course):
    mo = course / "tutor/locale/ja/LC_MESSAGES/tutor.mo"
    mo.write_bytes(editions.compiled(editions.new_catalog("ja", "tutor")))
    assert "tutor/locale/ja/LC_MESSAGES/tutor.mo does not match tutor.po: run python -m tools.editions build" in \
        editions.check(course)
    editions.build(course)
    assert editions.check(course) == []


# ------------------------------------------------------------------------------------------------- segments
def test_markdown_pieces_are_whole_blocks_and_structure_stays():
    text = ("# 03: Shuffle\n\n[![Open In Colab](x)](y)\n\nA paragraph\nover two lines.\n\n"
            "- an item\n  that continues\n- 2 GB\n\n| where | how |\n|---|---|\n| **Colab** | 01 |\n\n"
            "(target)=\n<!-- lessons -->\n> a quote\n\n```bash\nmake lab    # sets up .venv\n```\n")
    assert pieces(text, "markdown") == ["03: Shuffle", "A paragraph over two lines.", "an item that continues", "2 GB",
                                        "where", "how", "**Colab**", "a quote", "sets up .venv"]
    out = walk_markdown(text, lambda s: f"<{s}>")
    assert out.startswith("# <03: Shuffle>\n\n[![Open In Colab](x)](y)\n\n<A paragraph over two lines.>\n\n")
    assert "- <an item that continues>\n- <2 GB>\n" in out and "| <where> | <how> |\n|---|---|\n| <**Colab**> | 01 |" in out
    assert "(target)=\n<!-- lessons -->\n> <a quote>\n" in out and "make lab    # <sets up .venv>\n```" in out


def test_comments_are_found_outside_strings_and_runs_of_them_are_one_message():
    code = ('# first line of a comment\n# and its second line\nx = "a # not a comment"  # but this is\n'
            's = """\n# inside a string\n"""\ny = 1  # noqa: E501\n%pip install -q "x @ git+https://h/a#b"\n')
    assert pieces(code, "code") == ["first line of a comment and its second line", "but this is"]
    out = walk_comments(code, lambda s: s.upper().replace(" AND", "\nAND"))
    assert out.startswith("# FIRST LINE OF A COMMENT\n# AND ITS SECOND LINE\nx = \"a # not a comment\"  # BUT THIS IS\n")
    assert '"""\n# inside a string\n"""' in out and "# noqa: E501" in out


@pytest.mark.slow  # copies tutor and runs the check several times
def test_links_stay_inside_the_edition_and_reach_its_translated_headings(course):
    for path in (course / "locale/ja/notebooks/03_shuffle.po", course / "notebooks/ja/03_shuffle.ipynb"):
        path.unlink()  # lesson 03 not translated (yet) into Japanese
    _edit_english(course, "## Tips for live demos", "See [the tips](#Tips-for-live-demos) and [lesson 03's buffer]"
                  "(03_shuffle.ipynb#The-buffer).\n\n## Tips for live demos")
    editions.build(course)
    built = nbformat.read(course / "notebooks/ja/00_start_here.ipynb", as_version=4)
    text = "\n".join(c.source for c in built.cells if c.cell_type == "markdown")
    assert "](#ライブデモのヒント)" in text  # the edition's own heading
    assert "](../03_shuffle.ipynb#The-buffer)" in text  # not translated yet: the English lesson
    assert "](01_datasets_from_data.ipynb)" in text and "](../01_datasets_from_data.ipynb)" not in text


@pytest.mark.slow  # copies tutor and runs the check several times
def test_make_links_retargets_the_editions_too(course):
    """make links runs tools.links, then tools.editions build: a fork's badges and install cell, outputs kept."""
    before = nbformat.read(course / "notebooks/ja/00_start_here.ipynb", as_version=4)
    links.rewrite(course, "someone/my-course", "v1.2")
    editions.build(course)
    nb = nbformat.read(course / "notebooks/ja/00_start_here.ipynb", as_version=4)
    assert "github/someone/my-course/blob/v1.2/notebooks/ja/00_start_here.ipynb)" in nb.cells[0].source
    assert "mybinder.org/v2/gh/someone/my-course/v1.2?labpath=notebooks%2Fja%2F00_start_here.ipynb)" in nb.cells[0].source
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    assert "git+https://github.com/someone/my-course@v1.2" in first_code.source
    assert [c.get("outputs") for c in nb.cells] == [c.get("outputs") for c in before.cells]
    assert editions.check(course) == []
