"""Small text sources for the lesson on production sources: text files of reviews and a CSV with gaps.

Everything is generated offline and deterministically (same ``seed``, same
bytes), into a folder the caller chooses, typically ``tempfile.mkdtemp()``.

>>> import tempfile
>>> paths = text_files(tempfile.mkdtemp(), n_files=2, lines=3)
>>> [open(p).readline().strip() for p in paths]
['review', 'review']
"""
from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np

from .._validate import require_folder, require_positive_int
from ..i18n import gettext as _

__all__ = ["text_files", "weather_csv", "WEATHER_COLUMNS"]

_ADJECTIVES = ("bright", "quiet", "heavy", "cheap", "solid", "tiny", "sharp", "warm", "slow", "clear")
_NOUNS = ("screen", "battery", "case", "lens", "strap", "cable", "button", "speaker", "charger", "box")
_VERBS = ("works", "broke", "shines", "fits", "lasts", "rattles", "feels", "hums")
_ENDINGS = ("today", "again", "at night", "in the rain", "as promised", "after a week")

#: The columns of :func:`weather_csv`, in order; ``rain`` (0 or 1) is the label.
WEATHER_COLUMNS = ("day", "station", "temperature", "humidity", "rain")

#: (row, column) of the fields :func:`weather_csv` leaves empty.
MISSING = ((2, "temperature"), (5, "humidity"), (7, "temperature"), (9, "station"))


def text_files(directory, *, n_files: int = 3, lines: int = 5, seed: int = 0) -> list[str]:
    """Write ``n_files`` text files of short product reviews, each starting with the header line ``review``.

    Every review line is different from every other one, in all files.
    Returns the paths, sorted.

    >>> import tempfile
    >>> len(open(text_files(tempfile.mkdtemp(), n_files=1, lines=4)[0]).readlines())
    5
    """
    where = "tutor.data.text_files"
    folder = require_folder(directory, where)
    n_files = require_positive_int(n_files, "n_files", where, maximum=20)
    lines = require_positive_int(lines, "lines", where, maximum=100)
    rng = np.random.default_rng([seed, 11])
    used: set[str] = set()
    paths = []
    for k in range(n_files):
        reviews = []
        while len(reviews) < lines:
            words = (rng.choice(_ADJECTIVES), rng.choice(_NOUNS), rng.choice(_VERBS), rng.choice(_ENDINGS))
            line = "the {} {} {} {}".format(*words)
            if line not in used:
                used.add(line)
                reviews.append(line)
        path = folder / f"reviews-{k}.txt"
        path.write_text("review\n" + "\n".join(reviews) + "\n")
        paths.append(str(path))
    return sorted(paths)


def weather_csv(path, *, rows: int = 12, seed: int = 0) -> str:
    """Write a CSV of daily weather with a header and a few empty fields (see :data:`MISSING`).

    Columns: ``day`` (1, 2, ...), ``station`` (text), ``temperature`` and
    ``humidity`` (decimals) and ``rain`` (0 or 1, the label). Returns the path.

    >>> import tempfile, os
    >>> open(weather_csv(os.path.join(tempfile.mkdtemp(), "w.csv"))).readline().strip()
    'day,station,temperature,humidity,rain'
    """
    where = "tutor.data.weather_csv"
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(_("{where}: path must be a str or pathlib.Path, got {type}.").format(where=where,
                                                                                           type=type(path).__name__))
    rows = require_positive_int(rows, "rows", where, minimum=10, maximum=1000)
    require_folder(Path(path).parent, where)
    rng = np.random.default_rng([seed, 12])
    stations = ("north", "south", "harbour")
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(WEATHER_COLUMNS)
        for r in range(rows):
            humidity = round(float(rng.uniform(40, 95)), 1)
            row = {"day": r + 1, "station": stations[r % 3], "temperature": round(float(rng.uniform(2, 24)), 1),
                   "humidity": humidity, "rain": int(humidity > 75)}
            for missing_row, column in MISSING:
                if missing_row == r:
                    row[column] = ""
            writer.writerow([row[c] for c in WEATHER_COLUMNS])
    return str(path)
