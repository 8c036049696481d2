"""Fonts for figures in Japanese and Chinese: Noto Sans CJK from the package registry, never from the system.

matplotlib's own font (DejaVu Sans) has no Japanese or Chinese glyphs, and a
machine may have no font that does (Colab and Binder have none). The
``noto-cjk-sans-otc`` package (SIL Open Font License 1.1; a requirement of
tutor) ships Noto Sans CJK as one collection with a face per region: the
Japanese face draws kanji as Japanese readers expect them, the Simplified
Chinese face as Chinese readers do. :func:`use_language` adds the face to
matplotlib's font list after the family already set, so Latin text keeps its
look and only the characters DejaVu Sans lacks come from Noto Sans CJK
(matplotlib's per-glyph fallback, matplotlib >= 3.6).

matplotlib 3.11 reads every face of a collection; older versions read only the
first, so for them the face is copied once into matplotlib's cache folder as a
font file of its own (fontTools, a matplotlib requirement; about 2 s).
"""
from __future__ import annotations

import os
import warnings
from pathlib import Path

#: The face of Noto Sans CJK each language draws with: (family name, index in the collection).
FACES = {"ja": ("Noto Sans CJK JP", 0), "zh": ("Noto Sans CJK SC", 2)}
#: The font collection's file inside the ``noto_cjk_sans_otc`` package.
COLLECTION = "NotoSansCJK-Regular.ttc"

_saved_family: list | None = None
_registered: set[str] = set()


def collection_path() -> Path | None:
    """Where the installed ``noto-cjk-sans-otc`` keeps Noto Sans CJK, or None when it is not installed."""
    try:
        import noto_cjk_sans_otc
    except ImportError:
        return None
    path = Path(noto_cjk_sans_otc.__file__).with_name(COLLECTION)
    return path if path.is_file() else None


def use_language(language: str) -> str | None:
    """Draw ``language``'s characters in later figures; returns the family added, or None for English.

    English puts matplotlib's family back as it was before the first switch.
    Without the font package a warning says how to install it, and figures
    keep drawing (with empty boxes for the missing characters).
    """
    global _saved_family
    face = FACES.get(language)
    if face is None:
        if _saved_family is not None:
            import matplotlib as mpl

            mpl.rcParams["font.family"] = _saved_family
            _saved_family = None
        return None
    family = face[0]
    if not register(language):
        return None
    import matplotlib as mpl

    if _saved_family is None:
        _saved_family = list(mpl.rcParams["font.family"])
    mpl.rcParams["font.family"] = [*_saved_family, family]
    return family


def register(language: str) -> bool:
    """Make ``language``'s face of Noto Sans CJK known to matplotlib; False (with a warning) when it cannot be."""
    family, index = FACES[language]
    if family in _registered:
        return True
    path = collection_path()
    if path is None:
        warnings.warn("Figures need the font package noto-cjk-sans-otc to draw Japanese and Chinese text: "
                      "pip install noto-cjk-sans-otc, then restart the kernel.", stacklevel=3)
        return False
    from matplotlib import font_manager

    if _reads_collections(font_manager):
        font_manager.fontManager.addfont(str(path))
    else:
        font_manager.fontManager.addfont(str(_single_face(path, index, family)))
    _registered.add(family)
    return True


def _reads_collections(font_manager) -> bool:
    """True where matplotlib registers every face of a .ttc (3.11 and later: ``FontPath``)."""
    return hasattr(font_manager, "FontPath")


def _single_face(path: Path, index: int, family: str) -> Path:
    """One face of the collection as a font file of its own, made once in matplotlib's cache folder."""
    import matplotlib as mpl

    target = Path(mpl.get_cachedir()) / "tutor-fonts" / (family.replace(" ", "") + "-Regular.otf")
    if not target.is_file():
        from fontTools.ttLib import TTCollection

        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{os.getpid()}.part")
        TTCollection(str(path), lazy=True).fonts[index].save(str(partial))
        os.replace(partial, target)
    return target
