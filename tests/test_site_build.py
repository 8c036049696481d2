"""The website's generated parts (tools/site.py, book/_ext/course.py), without building it.

The built site itself is checked in a browser by tests/browser/test_site.py (make browser, after make site).
"""
import importlib.util
import re
from pathlib import Path

import pytest

from tools import links, site

ROOT = Path(__file__).resolve().parents[1]


def _course_extension():
    spec = importlib.util.spec_from_file_location("course_ext", ROOT / "book" / "_ext" / "course.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_toc_lists_every_notebook_in_order():
    lessons = links.lessons(ROOT)
    toc = site.toc(lessons)
    listed = re.findall(r"file: en/lessons/(\S+)", toc)
    assert listed == sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert toc.index("en/start_here") < toc.index("en/lessons/") < toc.index("en/doctor_rules")


def test_the_config_takes_repository_and_ref_from_pyproject():
    text = (ROOT / "book" / "_config.yml").read_text()
    configured = site.configure(text, "you/fork", "v2")
    assert "  url: https://github.com/you/fork\n" in configured and "  branch: v2\n" in configured
    assert "course_repository: you/fork" in configured and "course_ref: v2" in configured


def test_lesson_links_point_at_the_notebook_colab_first():
    course = _course_extension()
    got = course.lesson_links("you/fork", "v2", "notebooks", "03_shuffle.ipynb")
    assert got["colab"] == "https://colab.research.google.com/github/you/fork/blob/v2/notebooks/03_shuffle.ipynb"
    assert got["binder"] == "https://mybinder.org/v2/gh/you/fork/v2?labpath=notebooks%2F03_shuffle.ipynb"
    assert course.LESSON_PAGE.match("en/lessons/03_shuffle") and course.LESSON_PAGE.match("ja/lessons/03_shuffle")
    assert not course.LESSON_PAGE.match("en/start_here")
    assert list(got)[0] == "colab"


def test_the_rules_page_has_a_section_per_rule_with_its_id_as_anchor():
    from tutor.doctor.rules import RULES

    entries = [{"id": rule_id, "kind": getattr(r, "kind", ""), "kinds": tuple(getattr(r, "kinds", ()) or ()),
                "summary": getattr(r, "summary", "a | b"), "why": getattr(r, "why", ""), "fix": getattr(r, "fix", ""),
                "doc": getattr(r, "doc", "https://www.tensorflow.org/"), "quote": getattr(r, "quote", "q")}
               for rule_id, r in RULES.items()]
    page = site.rules_page(entries)
    for rule_id in RULES:
        assert f"({rule_id})=\n### `{rule_id}`" in page
        assert f"(#{rule_id})" in page
    table = [line for line in page.splitlines() if line.startswith("| [`")]
    assert len(table) == len(RULES) and all(line.count(" | ") == 2 for line in table)  # a "|" in a text is escaped


def test_run_times_come_from_the_benchmarks_readme():
    times = site.run_times(ROOT)
    if not times:
        pytest.skip("benchmarks/README.md has no notebooks table")
    assert all(re.fullmatch(r"\d\d_[\w-]+", name) for name in times)
    assert all(float(v) > 0 for v in times.values())
    table = site.run_time_table(ROOT, links.lessons(ROOT))
    first = links.lessons(ROOT)[0]
    assert f"[{first.number}: {first.title}](lessons/{first.name}) | {times.get(first.path.stem, '–')} |" in table


def test_the_badges_are_served_by_the_site():
    for outside, inside in site.BADGES.items():
        assert (ROOT / "book" / inside.lstrip("/")).is_file()
        assert outside.startswith("https://")


def test_every_page_has_its_generated_part(tmp_path):
    for page, marker in [("index.md", "lessons"), ("instructors.md", "run times"), ("doctor_rules.md", "rules"),
                         ("reference.md", "api")]:
        assert f"<!-- {marker} -->" in (ROOT / "book" / "en" / page).read_text()
    staged = tmp_path / "page.md"
    staged.write_text("a\n<!-- x -->\nb\n")
    site._fill(staged, "x", "filled\n")
    assert staged.read_text() == "a\nfilled\nb\n"
    with pytest.raises(ValueError, match="no <!-- y --> line"):
        site._fill(staged, "y", "z")
