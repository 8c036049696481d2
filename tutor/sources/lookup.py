"""Finding each output element in the sources it came from, by its value.

The pipeline runs exactly as written; nothing is added to its elements. The
sources are read first (bounded), every element gets a key, and each output
element is looked up by the same key. So the real transformation decides
where every element goes, and the only requirement is that no two source
elements are equal (give each source its own ids: ``range(0, 5)``,
``range(100, 105)``, ...).

An output element is matched as a whole first (a filtered element, a pair
from ``zip`` of a source of pairs, a whole sequence). If it is not a source
element itself, it is split into parts that are: the items of a batch or a
window, the parts of a ``zip``, the rows of a padded batch of sequences
(trailing padding is ignored), or the rows of a batched ``(features, label)``
pair.

>>> index = SourceIndex([[0, 1, 2], [100, 101]])
>>> index.cells(np.array([2, 100]))
([(0, 2), (1, 0)], False)
"""
from __future__ import annotations

from typing import Any, Hashable, Sequence

import numpy as np

from .._validate import require_dataset, require_positive_int
from ..i18n import gettext as _
from ..reading import read


def element_key(value: Any) -> Hashable:
    """A hashable key for one element as :func:`tutor.reading.read` returns it.

    >>> element_key(np.int64(3)), element_key(np.array([1, 2]))
    (3, ('array', (2,), (1, 2)))
    """
    if isinstance(value, dict):
        return ("dict",) + tuple((str(k), element_key(v)) for k, v in sorted(value.items(), key=lambda kv: str(kv[0])))
    if isinstance(value, (tuple, list)):
        return ("tuple",) + tuple(element_key(v) for v in value)
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return ("array", value.shape, tuple(value.ravel().tolist()))
    if isinstance(value, (np.ndarray, np.generic)):
        return value.item()
    return value


def short(value: Any, limit: int = 60) -> str:
    """``repr`` of an element, NumPy noise removed, cut to ``limit`` characters."""
    if isinstance(value, np.ndarray):
        text = repr(value.tolist())
    elif isinstance(value, np.generic):
        text = repr(value.item())
    elif isinstance(value, tuple):
        text = "(" + ", ".join(short(v, limit) for v in value) + ")"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def read_sources(sources: Sequence[Any], *, max_elements: int, where: str) -> tuple[list[list], list[bool]]:
    """Read every source (at most ``max_elements`` each): ``(values per source, more left per source)``."""
    import tensorflow as tf

    max_elements = require_positive_int(max_elements, "max_source_elements", where)
    values, more = [], []
    for k, source in enumerate(sources):
        # Translators: names a function's argument in a message, e.g. "SourceDisplay.from_datasets (source 1)".
        require_dataset(source, _("{where} (source {k})").format(where=where, k=k))
        if any(isinstance(s, tf.data.DatasetSpec) for s in tf.nest.flatten(source.element_spec)):
            raise TypeError(_("{where}: source {k} yields datasets (window() does that); give the display datasets "
                              "of tensors.").format(where=where, k=k))
        result = read(source, max_elements=max_elements, where=where)
        values.append(result.elements)
        more.append(result.more)
    return values, more


class SourceIndex:
    """Every source element by key: ``(source, position)``.

    Parameters
    ----------
    values : list of lists
        The elements of each source, in order (NumPy values or Python numbers).
    padding_value : number
        Trailing items equal to it are ignored when a row of a padded batch is looked up.
    names : list of str, optional
        Source names, used in messages.
    """

    def __init__(self, values: Sequence[Sequence[Any]], *, padding_value: Any = 0,
                 names: Sequence[str] | None = None, where: str = "SourceDisplay"):
        self.where = where
        self.names = list(names) if names is not None else [str(k) for k in range(len(values))]
        self.padding_value = padding_value
        self.table: dict[Hashable, tuple[int, int]] = {}
        for s, elements in enumerate(values):
            for p, value in enumerate(elements):
                key = element_key(value)
                if key in self.table:
                    s0, p0 = self.table[key]
                    raise ValueError(_(
                        "{where}: the element {value} is both element {p0} of {first} and element {p} of {second}, "
                        "so the display cannot tell where an output came from. Give every source its own ids, for "
                        "example tf.data.Dataset.range(100, 110) for the second one."
                    ).format(where=where, value=short(value), p0=p0, first=self._name(s0), p=p, second=self._name(s)))
                self.table[key] = (s, p)

    def _name(self, s: int) -> str:
        # Translators: a source named in a message, e.g. "source 'A'".
        return _("source {name}").format(name=repr(self.names[s]))

    def find(self, value: Any) -> tuple[int, int] | None:
        """``(source, position)`` of ``value``, or None. Trailing padding of a 1-D value is ignored."""
        found = self.table.get(element_key(value))
        if found is None and isinstance(value, np.ndarray) and value.ndim == 1 and value.size:
            items = value.tolist()
            while items and items[-1] == self.padding_value:
                items.pop()
                found = self.table.get(element_key(np.array(items, dtype=value.dtype)))
                if found is not None:
                    break
        return found

    def cells(self, element: Any) -> tuple[list[tuple[int, int]], bool]:
        """``(cells, single)``: the ``(source, position)`` of each part of ``element``.

        ``single`` is True when the element is one source element, False when it
        is a row of several (a batch, a window, a zip, a padded batch).
        """
        found = self.find(element)
        if found is not None:
            return [found], True
        if isinstance(element, dict):
            element = tuple(element[k] for k in sorted(element, key=str))
        if isinstance(element, tuple):
            rows = _unstack(element)
            if rows is not None:
                cells = [self.find(r) for r in rows]
                if all(c is not None for c in cells):
                    return cells, False
            out = []
            for part in element:
                out.extend(self.cells(part)[0])
            return out, False
        if isinstance(element, np.ndarray) and element.ndim >= 1:
            out = []
            for item in element:
                found = self.find(item)
                if found is None:
                    raise self._missing(item, whole=element)
                out.append(found)
            return out, False
        raise self._missing(element)

    def _missing(self, value: Any, whole: Any = None) -> ValueError:
        if whole is None:
            text = _("{where}: the output value {value} is not an element of any source. The display follows "
                     "elements that pass through unchanged: a map() that changes values (or a source read only in "
                     "part) hides where they came from. Pass the sources the pipeline really reads, and keep "
                     "value-changing maps out of the pipeline you draw.")
        else:
            text = _("{where}: the output value {value} (inside the output element {whole}) is not an element of "
                     "any source. The display follows elements that pass through unchanged: a map() that changes "
                     "values (or a source read only in part) hides where they came from. Pass the sources the "
                     "pipeline really reads, and keep value-changing maps out of the pipeline you draw.")
        return ValueError(text.format(where=self.where, value=short(value), whole=short(whole)))


def _unstack(parts: tuple) -> list | None:
    """Rows of a batched tuple ``(xs, ys)``: ``[(xs[0], ys[0]), ...]``, or None if it is not one."""
    arrays = [p for p in parts if isinstance(p, np.ndarray) and p.ndim >= 1]
    if len(arrays) != len(parts) or not arrays:
        return None
    n = len(arrays[0])
    if any(len(a) != n for a in arrays):
        return None
    return [tuple(a[i] for a in arrays) for i in range(n)]
