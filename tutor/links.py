"""Badges and Colab install cells, all derived from one place: ``pyproject.toml``.

``[project.urls] Repository`` names the repository and ``[tool.tutor] ref``
the branch, tag or commit. After forking::

    python -m tutor.links --repo you/your-fork --ref main

rewrites pyproject.toml, every notebook's badges and Colab install cell, and
the README. ``python -m tutor.links --check`` lists every link that disagrees.
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


def _rewrite_text(text: str, repo: str, ref: str, notebook: str | None) -> str:
    text = COLAB_RE.sub(lambda m: colab_url(repo, ref, notebook or m.group(3)), text)
    text = BINDER_RE.sub(lambda m: binder_url(repo, ref, notebook or m.group(3)), text)
    return INSTALL_RE.sub(f"git+https://github.com/{repo}@{ref}", text)


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
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        before = nbformat.writes(nb)
        for cell in nb.cells:
            cell.source = _rewrite_text(cell.source, repo, ref, path.name)
        if nbformat.writes(nb) != before:
            nbformat.write(nb, path)
            changed.append(path)
    readme = root / "README.md"
    if readme.exists():
        text = readme.read_text()
        new = _rewrite_text(text, repo, ref, None).replace(f"github.com/{old_repo}", f"github.com/{repo}")
        if new != text:
            readme.write_text(new)
            changed.append(readme)
    return changed


def check(root: Path) -> list[str]:
    """Every place where a link disagrees with pyproject.toml, as sentences (empty when all agree)."""
    repo, ref = read_config(root)
    problems = []
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        text = "\n".join(c.source for c in nb.cells)
        for regex, what in ((COLAB_RE, "Colab badge"), (BINDER_RE, "Binder badge")):
            found = regex.findall(text)
            if not found:
                problems.append(f"{path.name}: no {what}")
            for r, f, name in found:
                if (r, f, name) != (repo, ref, path.name):
                    problems.append(f"{path.name}: {what} points at {r}@{f}/{name}, expected {repo}@{ref}/{path.name}")
        code = [c for c in nb.cells if c.cell_type == "code"]
        if not code or code[0].source.strip() != colab_cell(repo, ref).strip():
            problems.append(f"{path.name}: the first code cell is not the Colab install cell for {repo}@{ref}")
    readme = root / "README.md"
    if readme.exists():
        text = readme.read_text()
        for regex, what in ((COLAB_RE, "Colab badge"), (BINDER_RE, "Binder badge"), (INSTALL_RE, "install link")):
            for m in regex.finditer(text):
                if (m.group(1), m.group(2)) != (repo, ref):
                    problems.append(f"README.md: {what} points at {m.group(1)}@{m.group(2)}, expected {repo}@{ref}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Rewrite or check every badge and Colab install link.")
    parser.add_argument("--repo", help="OWNER/NAME of your fork (default: the one in pyproject.toml)")
    parser.add_argument("--ref", help="branch, tag or commit (default: the one in pyproject.toml)")
    parser.add_argument("--check", action="store_true", help="only list links that disagree; exit 1 if any")
    args = parser.parse_args(argv)
    root = find_root()
    if args.check:
        problems = check(root)
        print("\n".join(problems) if problems else "All links agree with pyproject.toml.")
        return 1 if problems else 0
    repo, ref = read_config(root)
    changed = rewrite(root, args.repo or repo, args.ref or ref)
    print(f"Links now point at {args.repo or repo}@{args.ref or ref}; {len(changed)} file(s) changed.")
    for path in changed:
        print(f"  {path.relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
