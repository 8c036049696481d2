"""Badges, Colab install cells, "Next:" links and the README's lesson table, all derived from the lessons.

``[project.urls] Repository`` in ``pyproject.toml`` names the repository and
``[tool.tutor] ref`` the branch, tag or commit. Each lesson's H1 (``# 07: Performance``)
gives its number and title, and its notebook metadata ``tutor.covers`` a one-line
summary for the README. Run from the repository root::

    python -m tools.links                                   # make links
    python -m tools.links --repo you/your-fork --ref main   # make links REPO=you/your-fork REF=main
    python -m tools.links --check                           # lists what disagrees; exit 1 if anything does

Rewriting sets, in every notebook, the Colab and Binder badges under the H1 and
the Colab install cell (the first code cell), and points the last line
``Next: [...](...)`` at the following lesson. In the README it rewrites the
badges and the lesson table between ``<!-- lessons -->`` and ``<!-- /lessons -->``.
After renaming, adding or reordering lessons, run it once and commit.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

PACKAGE = "tfdata-tutor"
_REPO = r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+"
COLAB_RE = re.compile(rf"https://colab\.research\.google\.com/github/({_REPO})/blob/([^/\s)]+)/notebooks/([\w.-]+\.ipynb)")
BINDER_RE = re.compile(rf"https://mybinder\.org/v2/gh/({_REPO})/([^?\s)]+)\?labpath=notebooks%2F([\w.-]+\.ipynb)")
INSTALL_RE = re.compile(rf"git\+https://github\.com/({_REPO})@([^\s\"']+)")
REPO_URL_RE = re.compile(r'^Repository = "https://github\.com/([^"]+)"', re.M)
REF_RE = re.compile(r'^ref = "([^"]+)"', re.M)
BADGE_LINE_RE = re.compile(r"^\[!\[Open In Colab\].*$|^BADGES$", re.M)
NEXT_RE = re.compile(r"Next: \[[^\]]*\]\([\w.-]+\.ipynb\)\.?")
H1_RE = re.compile(r"^# (\d\d): (.+)$", re.M)
TABLE_RE = re.compile(r"(<!-- lessons -->\n)(.*?)(<!-- /lessons -->)", re.S)


def find_root(start: str | Path = ".") -> Path:
    """The checkout that holds ``pyproject.toml`` and ``notebooks/``."""
    here = Path(start).resolve()
    for folder in (here, *here.parents):
        if (folder / "pyproject.toml").is_file() and (folder / "notebooks").is_dir():
            return folder
    raise FileNotFoundError(f"No course checkout (pyproject.toml + notebooks/) found at or above {here}.")


def read_config(root: Path) -> tuple[str, str]:
    """``(owner/name, ref)`` from pyproject.toml."""
    text = (root / "pyproject.toml").read_text()
    repo, ref = REPO_URL_RE.search(text), REF_RE.search(text)
    if not repo or not ref:
        raise ValueError("pyproject.toml must have [project.urls] Repository = \"https://github.com/OWNER/NAME\" and [tool.tutor] ref = \"...\".")
    return repo.group(1), ref.group(1)


#: The course website's address on GitHub Pages, derived from the repository (README.md names it).
SITE_RE = re.compile(r"https://([\w.-]+)\.github\.io/([\w.-]+)/")


def site_url(repo: str) -> str:
    """Where GitHub Pages publishes the course website of ``repo`` (.github/workflows/pages.yml builds it)."""
    owner, name = repo.split("/")
    return f"https://{owner.lower()}.github.io/{name}/"


def colab_url(repo: str, ref: str, notebook: str) -> str:
    return f"https://colab.research.google.com/github/{repo}/blob/{ref}/notebooks/{notebook}"


def binder_url(repo: str, ref: str, notebook: str) -> str:
    return f"https://mybinder.org/v2/gh/{repo}/{ref}?labpath=notebooks%2F{notebook}"


def badges(repo: str, ref: str, notebook: str) -> str:
    """Markdown for the "Open in Colab" and "Launch Binder" badges of one notebook."""
    return (
        f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({colab_url(repo, ref, notebook)}) "
        f"[![Launch Binder](https://mybinder.org/badge_logo.svg)]({binder_url(repo, ref, notebook)})"
    )


def colab_cell(repo: str, ref: str) -> str:
    """Source of every notebook's first code cell: installs tutor on Colab only, silently elsewhere."""
    return (
        "# On Colab, install this course's `tutor` package; TensorFlow and ipywidgets stay as Colab has them.\n"
        "# Anywhere else this cell does nothing.\n"
        "import sys\n"
        "\n"
        'if "google.colab" in sys.modules:\n'
        f'    %pip install -q "{PACKAGE} @ git+https://github.com/{repo}@{ref}"'
    )


class Lesson:
    """One notebook: its file name, number and title (from its H1) and its one-line summary."""

    def __init__(self, path: Path, nb):
        self.path, self.nb = path, nb
        match = H1_RE.search(nb.cells[0].source) if nb.cells and nb.cells[0].cell_type == "markdown" else None
        self.number, self.title = (match.group(1), match.group(2).strip()) if match else (path.name[:2], path.stem)
        self.covers = nb.metadata.get("tutor", {}).get("covers", "")

    @property
    def name(self) -> str:
        return self.path.name

    def next_line(self) -> str:
        return f"Next: [{self.number}: {self.title}]({self.name})."


def lessons(root: Path) -> list[Lesson]:
    """Every notebook in ``notebooks/``, in file-name order."""
    return [Lesson(p, nbformat.read(p, as_version=4)) for p in sorted((root / "notebooks").glob("*.ipynb"))]


def readme_table(repo: str, ref: str, all_lessons: list[Lesson]) -> str:
    """The README's lesson table: number, linked title, what it covers, badges."""
    rows = ["| # | lesson | what it covers | open it |", "|---|---|---|---|"]
    for lesson in all_lessons:
        rows.append(f"| {lesson.number} | [{lesson.title}](notebooks/{lesson.name}) | {lesson.covers} | "
                    f"{badges(repo, ref, lesson.name)} |")
    return "\n".join(rows) + "\n"


def _rewrite_text(text: str, repo: str, ref: str, notebook: str | None) -> str:
    text = COLAB_RE.sub(lambda m: colab_url(repo, ref, notebook or m.group(3)), text)
    text = BINDER_RE.sub(lambda m: binder_url(repo, ref, notebook or m.group(3)), text)
    return INSTALL_RE.sub(f"git+https://github.com/{repo}@{ref}", text)


def _fix_lesson(lesson: Lesson, following: Lesson | None, repo: str, ref: str) -> None:
    cells = lesson.nb.cells
    head = cells[0]
    if BADGE_LINE_RE.search(head.source):
        head.source = BADGE_LINE_RE.sub(badges(repo, ref, lesson.name), head.source, count=1)
    else:  # no badges yet: put them right under the H1
        first, _, rest = head.source.partition("\n")
        head.source = f"{first}\n\n{badges(repo, ref, lesson.name)}\n{rest}"
    for cell in cells:
        cell.source = _rewrite_text(cell.source, repo, ref, lesson.name)
    code = [c for c in cells if c.cell_type == "code"]
    if code and "google.colab" in code[0].source:
        code[0].source = colab_cell(repo, ref)
    if following is not None:
        if cells[-1].cell_type != "markdown":
            cells.append(nbformat.v4.new_markdown_cell(""))
        last = cells[-1]
        if NEXT_RE.search(last.source):
            last.source = NEXT_RE.sub(following.next_line(), last.source)
        else:
            last.source = (last.source.rstrip() + "\n\n" + following.next_line()).lstrip()


def rewrite(root: Path, repo: str, ref: str) -> list[Path]:
    """Point pyproject.toml, every notebook and the README at ``repo``/``ref``; returns changed files."""
    if not re.fullmatch(_REPO, repo):
        raise ValueError(f"--repo must look like OWNER/NAME, got {repo!r}.")
    old_repo, _ = read_config(root)
    changed = []
    py = root / "pyproject.toml"
    text = py.read_text()
    new = REF_RE.sub(f'ref = "{ref}"', REPO_URL_RE.sub(f'Repository = "https://github.com/{repo}"', text))
    if new != text:
        py.write_text(new)
        changed.append(py)
    all_lessons = lessons(root)
    for k, lesson in enumerate(all_lessons):
        before = nbformat.writes(lesson.nb)
        following = all_lessons[k + 1] if k + 1 < len(all_lessons) else None
        _fix_lesson(lesson, following, repo, ref)
        if nbformat.writes(lesson.nb) != before:
            nbformat.write(lesson.nb, lesson.path)
            changed.append(lesson.path)
    readme = root / "README.md"
    if readme.exists():
        text = readme.read_text()
        new = _rewrite_text(text, repo, ref, None).replace(f"github.com/{old_repo}", f"github.com/{repo}")
        new = SITE_RE.sub(site_url(repo), new)
        new = TABLE_RE.sub(lambda m: m.group(1) + readme_table(repo, ref, all_lessons) + m.group(3), new)
        if new != text:
            readme.write_text(new)
            changed.append(readme)
    return changed


def check(root: Path) -> list[str]:
    """Every place where a link disagrees with pyproject.toml or the lessons, as sentences (empty when all agree)."""
    repo, ref = read_config(root)
    problems = []
    all_lessons = lessons(root)
    for k, lesson in enumerate(all_lessons):
        name, nb = lesson.name, lesson.nb
        text = "\n".join(c.source for c in nb.cells)
        if not H1_RE.search(nb.cells[0].source if nb.cells else ""):
            problems.append(f"{name}: the first cell does not start with an H1 like '# 07: Performance'")
        elif lesson.number != name[:2]:
            problems.append(f"{name}: its H1 says lesson {lesson.number}")
        if not lesson.covers:
            problems.append(f"{name}: no one-line summary in the notebook metadata (tutor.covers) for the README")
        for regex, what in ((COLAB_RE, "Colab badge"), (BINDER_RE, "Binder badge")):
            found = regex.findall(text)
            if not found:
                problems.append(f"{name}: no {what}")
            for r, f, target in found:
                if (r, f, target) != (repo, ref, name):
                    problems.append(f"{name}: {what} points at {r}@{f}/{target}, expected {repo}@{ref}/{name}")
        code = [c for c in nb.cells if c.cell_type == "code"]
        if not code or code[0].source.strip() != colab_cell(repo, ref).strip():
            problems.append(f"{name}: the first code cell is not the Colab install cell for {repo}@{ref}")
        if k + 1 < len(all_lessons):
            wanted = all_lessons[k + 1].next_line()
            if wanted not in nb.cells[-1].source:
                problems.append(f"{name}: its last cell should end with '{wanted}'")
    readme = root / "README.md"
    if readme.exists():
        text = readme.read_text()
        for regex, what in ((COLAB_RE, "Colab badge"), (BINDER_RE, "Binder badge"), (INSTALL_RE, "install link")):
            for m in regex.finditer(text):
                if (m.group(1), m.group(2)) != (repo, ref):
                    problems.append(f"README.md: {what} points at {m.group(1)}@{m.group(2)}, expected {repo}@{ref}")
        for m in SITE_RE.finditer(text):
            if m.group(0) != site_url(repo):
                problems.append(f"README.md: the website's address is {m.group(0)}, expected {site_url(repo)}")
        table = TABLE_RE.search(text)
        if table is None:
            problems.append("README.md: no lesson table between <!-- lessons --> and <!-- /lessons -->")
        elif table.group(2) != readme_table(repo, ref, all_lessons):
            problems.append("README.md: the lesson table does not list the lessons as they are; run make links")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Rewrite or check every badge, Colab install cell, Next link and "
                                                 "the README's lesson table.")
    parser.add_argument("--repo", help="OWNER/NAME of your fork (default: the one in pyproject.toml)")
    parser.add_argument("--ref", help="branch, tag or commit (default: the one in pyproject.toml)")
    parser.add_argument("--check", action="store_true", help="only list what disagrees; exit 1 if anything does")
    args = parser.parse_args(argv)
    root = find_root()
    if args.check:
        problems = check(root)
        print("\n".join(problems) if problems else "All links agree with pyproject.toml and the lessons.")
        return 1 if problems else 0
    repo, ref = read_config(root)
    changed = rewrite(root, args.repo or repo, args.ref or ref)
    print(f"Links now point at {args.repo or repo}@{args.ref or ref}; {len(changed)} file(s) changed.")
    for path in changed:
        print(f"  {path.relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
