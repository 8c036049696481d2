"""The website's static slides: a reveal.js deck of every lesson from its committed outputs (``make site``).

nbconvert's slides exporter turns a lesson into a deck with the same slides as JupyterLab's slideshow (numbered
as :mod:`tools.slides` numbers them). The deck loads nothing from outside the site, so it works offline:

* reveal.js comes from the npm registry (downloaded without npm, the version and its checksum pinned in :data:`REVEAL`),
  unpacked under the site's ``_static/revealjs/``; no jQuery, RequireJS, MathJax or widget scripts are loaded
  (nbconvert's template loads them from CDNs; :data:`TEMPLATE` leaves them out);
* an explorer shows the picture it was saved with and its sentence, as on the lesson pages
  (``tutor/widgets/_static.py``): the live widget's view is dropped from the outputs, so its HTML is shown.

    python -m tools.decks notebooks/03_shuffle.ipynb --out build/decks   # one deck, outside the site
"""
from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import io
import os
import re
import shutil
import sys
import tarfile
import urllib.request
from pathlib import Path

#: reveal.js from the npm registry: version and the tarball's SHA-512 (``npm view reveal.js@5.2.1 dist.integrity``).
REVEAL = ("5.2.1", "sha512-r7//6mIM5p34hFiDMvYfXgyjXqGRta+/psd9YtytsgRlrpRzFv4RbH76TXd2qD+7ZPZEbpBDhdRhJaFgfQ7zNQ==")

#: The files of the tarball a deck uses (a folder: everything under it).
REVEAL_FILES = ("LICENSE", "dist/reveal.js", "dist/reveal.css", "dist/theme/white.css",
                "dist/theme/fonts/source-sans-pro/", "plugin/notes/notes.js")

#: The size the decks are laid out at (reveal.js scales them to the window): a projector's 1280x720.
WIDTH, HEIGHT = 1280, 720

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

#: nbconvert's reveal template without anything from outside: reveal.js and its notes plugin from the site.
TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block footer_js -%}
<script src="{{ resources.reveal.url_prefix }}/dist/reveal.js"></script>
<script src="{{ resources.reveal.url_prefix }}/plugin/notes/notes.js"></script>
<script>
Reveal.initialize({controls: true, progress: true, hash: true, history: true, slideNumber: "h.v",
                   transition: "none", width: WIDTH, height: HEIGHT, plugins: [RevealNotes]});
/* A slide taller than the screen scrolls, as in JupyterLab's slideshow (its "scroll" setting). */
function scrollTallSlides() {
  document.querySelectorAll(".reveal .slides section > section").forEach(function (slide) {
    if (slide.scrollHeight > HEIGHT) { slide.style.height = HEIGHT + "px"; slide.style.overflowY = "auto"; }
  });
}
Reveal.on("ready", scrollTallSlides);
Reveal.on("slidechanged", scrollTallSlides);
</script>
{%- endblock footer_js -%}
""".replace("WIDTH", str(WIDTH)).replace("HEIGHT", str(HEIGHT))


def reveal_tarball(folder: Path) -> Path:
    """``reveal.js-<version>.tgz`` in ``folder``, fetched once from the npm registry and checked against :data:`REVEAL`.

    The tarball is downloaded as npm would (``$npm_config_registry``, default registry.npmjs.org), so neither Node.js
    nor npm is needed; a tarball already in ``folder`` (an offline machine) is used as it is.
    """
    version, integrity = REVEAL
    path = Path(folder) / f"reveal.js-{version}.tgz"
    if not path.is_file():
        registry = os.environ.get("npm_config_registry", "https://registry.npmjs.org/").rstrip("/")
        url = f"{registry}/reveal.js/-/reveal.js-{version}.tgz"
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with urllib.request.urlopen(url, timeout=120) as response:
                data = response.read()
        except OSError as error:
            raise SystemExit(f"The static slides need reveal.js {version} from the npm registry ({url}), which could "
                             f"not be read ({error}): put reveal.js-{version}.tgz in {folder} and run again.")
        path.write_bytes(data)
    digest = "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode("ascii")
    if digest != integrity:
        raise SystemExit(f"{path} is not reveal.js {version} as published ({digest} != {integrity}): delete it and "
                         "run again.")
    return path


def unpack_reveal(tarball: Path, target: Path) -> Path:
    """Unpack the files of :data:`REVEAL_FILES` into ``target`` (which is replaced)."""
    if target.exists():
        shutil.rmtree(target)
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            name = member.name.removeprefix("package/")
            if not member.isfile() or not any(name == f or (f.endswith("/") and name.startswith(f))
                                              for f in REVEAL_FILES):
                continue
            out = target / name
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(archive.extractfile(member).read())
    return target


def external_loads(page: str) -> list[str]:
    """What an HTML page would load from outside its site: the addresses of its scripts, style sheets, images and
    frames, and of the ``url()`` and ``@import`` of its inline styles (links a reader clicks are not loads)."""
    from bs4 import BeautifulSoup

    outside = re.compile(r"(https?:)?//")
    soup = BeautifulSoup(page, "html.parser")
    found = [tag["src"] for tag in soup.find_all(["script", "img", "iframe", "source"], src=True)
             if outside.match(tag["src"])]
    found += [tag["href"] for tag in soup.find_all("link", href=True) if outside.match(tag["href"])]
    for style in soup.find_all("style"):
        css = re.sub(r"/\*.*?\*/", "", style.get_text(), flags=re.S)
        found += re.findall(r"""(?:url\(|@import)\s*["']?((?:https?:)?//[^"')\s]+)""", css)
    return found


def static_outputs(nb):
    """A copy of ``nb`` whose explorers show their saved picture and sentence: no widget view, no widget state."""
    nb = copy.deepcopy(nb)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data and len(data) > 1:
                del data[WIDGET_VIEW]
    return nb


def deck_html(nb, reveal_prefix: str) -> str:
    """The lesson ``nb`` as one reveal.js deck (an HTML page), reveal.js loaded from ``reveal_prefix``."""
    from jinja2 import DictLoader
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(extra_loaders=[DictLoader({"tutor_deck.html.j2": TEMPLATE})],
                              template_file="tutor_deck.html.j2", reveal_url_prefix=reveal_prefix.rstrip("/"),
                              reveal_theme="white")
    exporter.exclude_anchor_links = True  # no "¶" links: reveal.js would read "#heading" as a slide's address
    body, _ = exporter.from_notebook_node(static_outputs(nb))
    return body


def write_deck(text: str, target: Path, reveal_prefix: str) -> Path:
    """Write the deck of the notebook ``text`` (its JSON) to ``target``."""
    import nbformat

    nb = nbformat.read(io.StringIO(text), as_version=4)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(deck_html(nb, reveal_prefix), encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=Path("build/decks"))
    args = parser.parse_args(argv)
    unpack_reveal(reveal_tarball(Path("build")), args.out / "reveal.js")
    for path in args.notebooks:
        print(write_deck(path.read_text(encoding="utf-8"), args.out / f"{path.stem}.html", "reveal.js"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
