"""What a SourceDisplay calls its rows and colour groups, in the current language (:mod:`tutor.i18n`)."""
from __future__ import annotations

from ..i18n import N_
from ..i18n import gettext as _

#: What a row can be, as the axis labels and titles say it: singular and plural (other names are shown as given).
ROW_WORDS = {
    # Translators: a row of the picture is one output element: a batch, a window, a pair or a training step.
    "batch": (N_("batch"), N_("batches")),
    "window": (N_("window"), N_("windows")),
    "pair": (N_("pair"), N_("pairs")),
    "step": (N_("step"), N_("steps")),
}
#: What the colour groups can be, as the legend's title says it (a key function's own name is shown as it is).
KEY_WORDS = {
    # Translators: the title of the key when cells are coloured by what a function of the element returns.
    "colour": N_("colour"),
    # Translators: the title of the key when cells are coloured by the replica (device) that received them.
    "replica": N_("replica"),
}


def row_word(name: str, *, plural: bool = False) -> str:
    """What a row is (``row_name``), in the current language: ``'batch'``, or ``'batches'`` with ``plural=True``.

    Names :data:`ROW_WORDS` does not know are shown as given (an English ``s`` or ``es`` makes their plural).

    >>> row_word("window", plural=True), row_word("sequence", plural=True)
    ('windows', 'sequences')
    """
    if name in ROW_WORDS:
        return _(ROW_WORDS[name][1 if plural else 0])
    return plural_of(name) if plural else name


def plural_of(word: str) -> str:
    """``'batch'`` -> ``'batches'``, ``'window'`` -> ``'windows'``."""
    return word + ("es" if word.endswith(("ch", "sh", "s", "x")) else "s")


def key_word(name: str) -> str:
    """What the colour groups are (``key_name``), in the current language; a function's own name as it is."""
    return _(KEY_WORDS[name]) if name in KEY_WORDS else name
