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

    entries = [{"id": rule_id, "severity": r.severity, "severities": r.severities,
                "summary": getattr(r, "summary", "a | b"), "why": getattr(r, "why", ""), "fix": getattr(r, "fix", ""),
                "doc": getattr(r, "doc", "https://www.tensorflow.org/"), "quote": getattr(r, "quote", "q")}
               for rule_id, r in RULES.items()]
    page = site.rules_page(entries)
    for rule_id in RULES:
        assert f"({rule_id})=\n### `{rule_id}`" in page
        assert f"(#{rule_id})" in page
    table = [line for line in page.splitlines() if line.startswith("| [`")]
    assert len(table) == len(RULES) and all(line.count(" | ") == 2 for line in table)  # a "|" in a text is escaped
    assert page.index("## Wrong results") < page.index("## Slow") < page.index("## Notes")
    assert "| [`no-prefetch-at-end`](#no-prefetch-at-end) | note, slow |" in page
    assert "*Severity:* note; some findings are slow." in page


def test_the_rules_page_reads_each_rules_severity():
    pytest.importorskip("sphinx")  # rule_entries imports tutor under Sphinx's mock of TensorFlow
    from tutor.doctor.rules import RULES

    entries = {e["id"]: e for e in site.rule_entries()}
    assert {i: (e["severity"], e["severities"]) for i, e in entries.items()} == {
        i: (r.severity, r.severities) for i, r in RULES.items()}


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


# ------------------------------------------------------------------------------ slides and the instructors' page
def test_decks_show_the_sites_badges_link_the_next_deck_and_headings_on_lesson_pages():
    text = ('"![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)", "Next: [04](04_map.ipynb).'
            ' See [the timings](00_start_here.ipynb#Timings)."')
    staged = site.deck_text(text)
    assert "../../_static/badges/colab.svg" in staged and "(04_map.html)" in staged
    assert "(../lessons/00_start_here.html#timings)" in staged   # a deck's headings have no anchors: the page's
    assert "notebooks/03_shuffle.ipynb)" in site.deck_text("blob/main/notebooks/03_shuffle.ipynb)"), "Colab links stay"


def test_lesson_pages_link_their_deck():
    assert _course_extension().slides_link("03_shuffle") == "../../en/slides/03_shuffle.html"
    assert "<!-- demo paths -->" in (ROOT / "book" / "en" / "instructors.md").read_text()
    table = site.demo_paths(links.lessons(ROOT))
    for lesson in links.lessons(ROOT):
        assert f'href="slides/{lesson.path.stem}.html' in table, f"the instructors' page does not link {lesson.name}'s deck"


INSTRUCTORS = ROOT / "book" / "en" / "instructors.md"
#: Commands the page may give that this repository does not provide, and why the tests cannot run them.
EXTERNAL = {"jupyter-repo2docker": "needs a Docker engine, which the development and CI machines do not run",
            "pip install jupyter-repo2docker": "installs the above"}


def _page_commands() -> list[str]:
    """Every command line of the instructors' page: its ```bash blocks, and the `make ...` named in its text."""
    text = INSTRUCTORS.read_text(encoding="utf-8")
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        lines += [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]
    lines += re.findall(r"`(make [^`]+)`", text)
    return lines


def _make_targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([\w.-]+(?: [\w.-]+)*):(?!=)", makefile, re.M)) | {
        t for line in re.findall(r"^\.PHONY:(.*)$", makefile, re.M) for t in line.split()}


def _recipe(target: str) -> str:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n|.*\\\n)*)", makefile, re.M)
    assert match, f"the Makefile has no {target} target"
    return match.group(0)


def test_every_command_the_instructors_page_gives_exists():
    commands = _page_commands()
    assert any(c.startswith("make classroom") for c in commands) and "make wheelhouse" in commands
    targets = {t for group in _make_targets() for t in group.split()}
    unknown = []
    for command in commands:
        words = command.split()
        if words[0] == "make":
            missing = [w for w in words[1:] if "=" not in w and w not in targets]
            if missing:
                unknown.append(f"{command}: the Makefile has no target {missing}")
        elif words[0] == "python" and words[1:2] == ["-m"]:
            if not (ROOT / (words[2].replace(".", "/") + ".py")).is_file():
                unknown.append(f"{command}: no module {words[2]}")
        elif not any(command.startswith(known) for known in EXTERNAL):
            unknown.append(f"{command}: a command this test does not know (add a check for it)")
    assert not unknown, "\n".join(unknown)


def test_the_binder_files_the_page_names_are_those_the_tests_use():
    text = INSTRUCTORS.read_text(encoding="utf-8")
    named = set(re.findall(r"binder/[\w.-]+", text))
    assert {"binder/requirements.txt", "binder/postBuild", "binder/start"} <= named
    tested = _recipe("binder-env") + _recipe("$(BINDER_VENV)/.installed")
    classroom = _recipe("classroom") + _recipe("$(CLASSROOM_VENV)/.installed")
    for path in named:
        assert (ROOT / path).is_file(), f"the page names {path}, which does not exist"
        assert path in tested, f"the page names {path}, which make binder-env (the tests' Binder) does not use"
        assert path in classroom, f"the page names {path}, which make classroom does not use"
    # Binder's Python (runtime.txt) is the one the tests build the Binder environment with.
    runtime = (ROOT / "binder" / "runtime.txt").read_text().strip()
    assert re.search(rf"BINDER_PYTHON \?= \$\(shell tools/find_python.sh {runtime.removeprefix('python-')}\)",
                     (ROOT / "Makefile").read_text())


def test_the_offline_install_uses_only_the_wheelhouse():
    recipe = _recipe("$(CLASSROOM_VENV)/.installed") + _recipe("classroom")
    makefile = (ROOT / "Makefile").read_text()
    assert "--no-index --find-links" in makefile and "$(FROM_WHEELHOUSE)" in recipe
    assert "PIP_NO_INDEX=1" in recipe, "postBuild's build of tutor must not reach the network either"
    assert "-r binder/requirements.txt" in _recipe("wheelhouse")
    text = INSTRUCTORS.read_text(encoding="utf-8")
    assert "--no-index --find-links" in " ".join(text.split()), "the page says how the offline install works"
