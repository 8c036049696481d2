"""The language tutor speaks: English, Japanese or Simplified Chinese, through gettext catalogs.

Everything ``tutor`` says or draws goes through :func:`gettext` (imported as ``_``) or :func:`ngettext`, which
looks the English sentence up in the catalog of the current language
(``tutor/locale/<language>/LC_MESSAGES/tutor.mo``) and falls back to the English
itself where there is no translation yet: a missing translation is never an error.

>>> set_language("en")
>>> gettext("local")
'local'

The language is English unless the ``TUTOR_LANG`` environment variable names
another one when tutor is imported, or :func:`set_language` is called (each
edition's first code cell does: ``tutor.set_language("ja")``). Japanese and
Chinese also switch matplotlib to a font with their glyphs (:mod:`tutor.fonts`).

Marking a message (CONTRIBUTING.md, "Editions"): ``from .i18n import gettext as _``, then
``_("{n} elements in {seconds:.1f} s").format(n=n, seconds=s)``: the English
sentence whole, with named placeholders, formatted after the lookup. Never an
f-string, ``%`` or ``+`` inside ``_()``; a module-level constant is marked with
:func:`N_` and translated where it is used, ``_(LABEL)``.
"""
from __future__ import annotations

import gettext as gnu_gettext
import os
import unicodedata
from pathlib import Path

from . import fonts

#: Languages tutor speaks: code -> the language's own name.
LANGUAGES = {"en": "English", "ja": "日本語", "zh": "简体中文"}
#: The gettext domain and where its compiled catalogs are shipped (inside the package, for pip installs).
DOMAIN = "tutor"
LOCALE_DIR = Path(__file__).resolve().with_name("locale")
#: The environment variable that sets the language at import.
ENV_VAR = "TUTOR_LANG"

#: Other spellings people use for the same languages (BCP 47 and POSIX locale names).
_ALIASES = {"ja-jp": "ja", "zh-cn": "zh", "zh-hans": "zh", "zh-hans-cn": "zh", "zh-sg": "zh", "en-us": "en",
            "en-gb": "en"}

_current = "en"
_catalogs: dict[str, gnu_gettext.NullTranslations] = {}


def normalize(language: object) -> str | None:
    """The language code (``'en'``, ``'ja'``, ``'zh'``) that ``language`` names, or None.

    >>> normalize("ja_JP.UTF-8"), normalize("zh-Hans"), normalize("fr")
    ('ja', 'zh', None)
    """
    if not isinstance(language, str):
        return None
    code = language.strip().split(".")[0].replace("_", "-").lower()
    code = _ALIASES.get(code, code)
    return code if code in LANGUAGES else None


def set_language(language: str) -> None:
    """Speak ``language`` from now on: ``"en"``, ``"ja"`` or ``"zh"`` (:func:`get_language` tells which).

    Feedback, hints, reports, verdicts and what figures draw follow it;
    sentences not translated yet stay in English. Japanese and Chinese also
    switch matplotlib's font for figures drawn afterwards.

    >>> set_language("en"); get_language()
    'en'
    """
    code = normalize(language)
    if code is None:
        choices = ", ".join(f'"{c}" ({name})' for c, name in LANGUAGES.items())
        raise ValueError(f"set_language expects one of {choices}, got {language!r}.")
    global _current
    _current = code
    fonts.use_language(code)


def get_language() -> str:
    """The code of the language tutor speaks now.

    >>> get_language() in LANGUAGES
    True
    """
    return _current


def catalog(language: str | None = None) -> gnu_gettext.NullTranslations:
    """The compiled catalog of ``language`` (default: the current one); English is an empty catalog."""
    code = normalize(language) if language is not None else _current
    code = code or "en"
    if code not in _catalogs:
        _catalogs[code] = gnu_gettext.translation(DOMAIN, LOCALE_DIR, languages=[code], fallback=True)
    return _catalogs[code]


def gettext(message: str) -> str:
    """``message`` in the current language, or as it is where no translation exists."""
    return catalog().gettext(message) if _current != "en" else message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for the whole number ``n``, in the current language.

    >>> ngettext("{n} element", "{n} elements", 2).format(n=2)
    '2 elements'
    """
    n = int(n)
    if _current == "en":
        return singular if n == 1 else plural
    return catalog().ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Mark ``message`` for translation without translating it (module-level constants; translate at use)."""
    return message


def width(text: str) -> int:
    """Columns ``text`` takes in a monospace font: Japanese and Chinese characters take two.

    >>> width("CPU"), width("実行環境")
    (3, 8)
    """
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in str(text))


def ljust(text: str, columns: int) -> str:
    """``text`` padded with spaces to ``columns`` monospace columns (``str.ljust`` counts characters).

    >>> ljust("実行", 6) + "|"
    '実行  |'
    """
    return str(text) + " " * max(0, columns - width(text))


#: Where a Japanese or Chinese sentence ends: no space follows these when sentences are put together.
_CJK_ENDS = ("。", "！", "？", "）", "」", "”")


def join_sentences(*parts: str) -> str:
    """Whole sentences, each already translated, one after the other: a space between English ones, none after a
    Japanese or Chinese stop. Empty parts are left out.

    >>> join_sentences("One.", "", "Two.")
    'One. Two.'
    >>> join_sentences("一つ。", "二つ。")
    '一つ。二つ。'
    """
    out = ""
    for part in (p.strip() for p in parts if p and p.strip()):
        out += part if not out or out.endswith(_CJK_ENDS) else " " + part
    return out


def fill(text: str, columns: int, *, initial_indent: str = "", subsequent_indent: str = "") -> str:
    """``textwrap.fill`` that also breaks Japanese and Chinese text, which has no spaces, and counts its characters
    as two columns each.

    >>> print(fill("aaa bbb ccc", 7))
    aaa bbb
    ccc
    """
    import textwrap

    if all(unicodedata.east_asian_width(ch) not in "WF" for ch in text):
        return textwrap.fill(text, columns, initial_indent=initial_indent, subsequent_indent=subsequent_indent)
    import re

    lines, line = [], initial_indent
    # Latin words and code stay whole; no line starts with a closing mark (Japanese and Chinese typesetting).
    for token in re.findall(r"[!-~]+|\s|.", text):
        if token.isspace() and line == subsequent_indent:
            continue
        if (width(line) + width(token) > columns and line.strip() and token[0] not in "、。，．：；）」』！？,.:;)"):
            lines.append(line.rstrip())
            line = subsequent_indent + ("" if token.isspace() else token)
        else:
            line += token
    lines.append(line.rstrip())
    return "\n".join(lines)


def _from_environment() -> str:
    """The language ``TUTOR_LANG`` names; English when it is unset or names a language tutor does not speak."""
    return normalize(os.environ.get(ENV_VAR, "")) or "en"


if _from_environment() != "en":
    set_language(_from_environment())
