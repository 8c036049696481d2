"""SourceDisplay: where each output element of a real pipeline came from."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .._validate import require_choice, require_dataset, require_positive_int
from ..display import Display
from ..i18n import gettext as _
from ..reading import read
from .lookup import SourceIndex, read_sources
from .words import key_word, plural_of, row_word

class SourceDisplay(Display):
    """Rows of output cells, each coloured by its source and labelled with its position there.

    Build it with :meth:`from_datasets` (runs the real pipeline) or
    :meth:`from_replicas` (what each replica received), then call :meth:`plot`.
    Rows are the output's batches or windows; a stream of single elements is
    drawn left to right, ``wrap`` cells per row.

    Parameters
    ----------
    rows : list of list of (int, int)
        ``(source, position)`` of every cell, row by row.
    names : list of str
        One name per source.
    batched : bool
        True when every output element is a row (a batch, a window, a tuple).
    row_name : str
        What a row is, for the axis labels ("batch", "window", "step").
    groups : list of list of int, optional
        Colour group of every cell (shaped like ``rows``); default: its source.
    group_names : list of str, optional
        One name per group; default: ``names``.
    source_sizes : list of int, optional
        Elements read from each source (needed for ``plot(kind="inputs")``).
    source_groups : list of list of int, optional
        Colour group of every source element; default: its source.
    key_name : str, optional
        What the groups are (the legend's title) when they are not the sources.
    truncated : bool
        True when reading stopped at the bound before the output ended.
    code : str, optional
        The pipeline as a line of code, shown in the title.

    Attributes (after :meth:`plot`)
    ----------
    cells_ : PatchCollection, one box per cell drawn
    texts_ : list of Text, the labels in the boxes
    ax_, figure_ : the Axes and Figure

    Examples
    --------
    >>> a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(100, 102)
    >>> SourceDisplay.from_datasets([a, b], a.concatenate(b)).labels
    [['A0', 'A1', 'A2', 'B0', 'B1']]
    """

    def __init__(self, rows: Sequence[Sequence[tuple[int, int]]], *, names: Sequence[str], batched: bool = True,
                 row_name: str = "batch", groups: Sequence[Sequence[int]] | None = None,
                 group_names: Sequence[str] | None = None, source_sizes: Sequence[int] | None = None,
                 source_groups: Sequence[Sequence[int]] | None = None, key_name: str | None = None,
                 truncated: bool = False, code: str | None = None):
        self.rows = [[(int(s), int(p)) for s, p in row] for row in rows]
        self.names = [str(n) for n in names]
        self.batched = bool(batched)
        self.row_name = str(row_name)
        self.groups = [[int(g) for g in row] for row in groups] if groups is not None else \
            [[s for s, _p in row] for row in self.rows]
        self.group_names = [str(g) for g in group_names] if group_names is not None else list(self.names)
        self.source_sizes = None if source_sizes is None else [int(n) for n in source_sizes]
        self.source_groups = None if source_groups is None else [[int(g) for g in gs] for gs in source_groups]
        self.key_name = key_name
        self.truncated = bool(truncated)
        self.code = code

    # ----------------------------------------------------------------- compute
    @classmethod
    def from_datasets(cls, sources: Any, output: Any, *, names: Sequence[str] | None = None,
                      key: Callable[[Any], Any] | None = None, row_name: str | None = None, max_rows: int = 40,
                      max_source_elements: int = 1000, padding_value: Any = 0,
                      code: str | None = None) -> "SourceDisplay":
        """Read the sources, then the real pipeline ``output``, and find every output element in a source.

        Parameters
        ----------
        sources : tf.data.Dataset or list of tf.data.Dataset
            The datasets the pipeline reads. No two of their elements may be equal.
        output : tf.data.Dataset
            The pipeline built from them, run exactly as it is.
        names : list of str, optional
            Source names; default "A", "B", ... (or "input" for a single source).
        key : callable, optional
            ``key(element) -> label``: colour cells by this label of their source
            element (a class, a length) instead of by source.
        row_name : str, optional
            What an output element is ("batch", "window"); default "batch".
        max_rows : int
            Output elements to read at most (an endless pipeline stops there).
        max_source_elements : int
            Elements to read from each source at most.
        padding_value : number
            Padding that ``padded_batch`` added, ignored when rows are looked up.

        >>> ds = tf.data.Dataset.range(6)
        >>> SourceDisplay.from_datasets(ds, ds.filter(lambda x: x % 2 == 0)).positions
        [[0, 2, 4]]
        """
        where = "SourceDisplay.from_datasets"
        sources = _as_list(sources, where)
        # Translators: names a function's argument in a message, e.g. "SourceDisplay.from_datasets (the output)".
        require_dataset(output, _("{where} (the output)").format(where=where))
        max_rows = require_positive_int(max_rows, "max_rows", where)
        names = _names(names, len(sources), where)
        values, _more = read_sources(sources, max_elements=max_source_elements, where=where)
        index = SourceIndex(values, padding_value=padding_value, names=names, where=where)
        _refuse_nested(output, where)
        result = read(output, max_elements=max_rows, where=where)
        found = [index.cells(element) for element in result.elements]
        batched = any(not single for _cells, single in found)
        # A stream of single elements is one row, drawn wrapped; batches and windows are a row each.
        rows = [cells for cells, _single in found] if batched else [[cells[0] for cells, _single in found]]
        group_names, source_groups = None, None
        if key is not None:
            group_names, source_groups = _groups_by_key(key, values, where)
        disp = cls(rows, names=names, batched=batched, row_name=row_name or "batch",
                   source_sizes=[len(v) for v in values], source_groups=source_groups, group_names=group_names,
                   groups=None if source_groups is None else [[source_groups[s][p] for s, p in r] for r in rows],
                   key_name=None if key is None else _key_name(key), truncated=result.more, code=code)
        return disp

    @classmethod
    def from_replicas(cls, steps: Sequence[Sequence[Any]], *, names: Sequence[str] | None = None,
                      code: str | None = None) -> "SourceDisplay":
        """One row per training step: the element ids each replica received, coloured by replica.

        ``steps`` holds, per step, one array of ids per replica, as
        ``strategy.experimental_local_results(batch)`` returns them. The label
        of a cell is the element id itself.

        >>> SourceDisplay.from_replicas([([0, 1], [2, 3]), ([4, 5], [6, 7])]).positions
        [[0, 1, 2, 3], [4, 5, 6, 7]]
        """
        where = "SourceDisplay.from_replicas"
        if isinstance(steps, (str, bytes)) or not hasattr(steps, "__iter__"):
            raise TypeError(_("{where} expects a list with, per step, one array of ids per replica (what "
                              "strategy.experimental_local_results(batch) returns), got {kind}.").format(
                where=where, kind=type(steps).__name__))
        rows, n_replicas = [], 0
        for step in steps:
            parts = [np.atleast_1d(np.asarray(getattr(p, "numpy", lambda p=p: p)())) for p in step]
            if any(p.ndim != 1 or not np.issubdtype(p.dtype, np.integer) for p in parts):
                raise TypeError(_("{where}: each replica's part must be a 1-D batch of integer ids, got {shapes} "
                                  "of {dtypes}.").format(where=where, shapes=[p.shape for p in parts],
                                                         dtypes=[str(p.dtype) for p in parts]))
            n_replicas = max(n_replicas, len(parts))
            rows.append([(r, int(i)) for r, part in enumerate(parts) for i in part])
        # Translators: the name of a replica (a copy of the model on one device), e.g. "replica 0".
        names = list(names) if names is not None else [_("replica {r}").format(r=r) for r in range(n_replicas)]
        if len(names) < n_replicas:
            raise ValueError(_("{where}: got {names} names for {replicas} replicas.").format(
                where=where, names=len(names), replicas=n_replicas))
        return cls(rows, names=names, batched=True, row_name="step", key_name="replica", code=code)

    # --------------------------------------------------------------- numbers
    @property
    def sources(self) -> list[list[int]]:
        """The source of every cell, shaped like :attr:`rows`."""
        return [[s for s, _p in row] for row in self.rows]

    @property
    def positions(self) -> list[list[int]]:
        """The position in its source of every cell, shaped like :attr:`rows`."""
        return [[p for _s, p in row] for row in self.rows]

    @property
    def labels(self) -> list[list[str]]:
        """What each cell says: its position, after the source name when names are short ("A3")."""
        prefix = len(self.names) > 1 and all(len(n) <= 3 for n in self.names)
        return [[f"{self.names[s]}{p}" if prefix else str(p) for s, p in row] for row in self.rows]

    @property
    def counts(self) -> dict[str, int]:
        """How many output cells came from each source."""
        flat = [s for row in self.rows for s, _p in row]
        return {name: flat.count(k) for k, name in enumerate(self.names)}

    @property
    def group_counts(self) -> dict[str, int]:
        """How many output cells fell in each colour group (the sources, unless ``key`` was given)."""
        flat = [g for row in self.groups for g in row]
        return {name: flat.count(k) for k, name in enumerate(self.group_names)}

    @property
    def uses(self) -> list[list[int]]:
        """For every source element: how many times it came out (0 = dropped). Needs ``source_sizes``."""
        if self.source_sizes is None:
            raise ValueError(_("This SourceDisplay does not know its sources' sizes; build it with from_datasets."))
        out = [[0] * n for n in self.source_sizes]
        for row in self.rows:
            for s, p in row:
                out[s][p] += 1
        return out

    def __repr__(self) -> str:
        rows = f"{len(self.rows)} {plural_of(self.row_name)}" if self.batched \
            else f"{sum(len(r) for r in self.rows)} elements"
        counts = ", ".join(f"{k}: {v}" for k, v in self.counts.items())
        return f"SourceDisplay({rows} from {counts}{', truncated' if self.truncated else ''})"

    # -------------------------------------------------------------------- draw
    def plot(self, *, ax=None, title: str | None = None, kind: str = "outputs", wrap: int = 12) -> "SourceDisplay":
        """Draw and return ``self``.

        ``kind="outputs"``: one row per output batch or window (single elements
        in rows of ``wrap``), each cell coloured by its source (or ``key``)
        and labelled with its position there.
        ``kind="inputs"``: one row per source, one cell per source element;
        grey cells never came out, "×2" marks one that came out twice.
        """
        require_choice(kind, "kind", "SourceDisplay.plot", ("outputs", "inputs"))
        wrap = require_positive_int(wrap, "wrap", "SourceDisplay.plot")
        from . import drawing

        return drawing.draw(self, ax=ax, title=title, kind=kind, wrap=wrap)

    def default_title(self, kind: str = "outputs") -> str:
        """The code line, then what the picture shows."""
        if kind == "inputs":
            head = self.code or _("which source elements came out")
            dropped = sum(u.count(0) for u in self.uses)
            # Translators: how to read the inputs picture; "×n" is written in the cells, n stays a letter.
            return head + "\n" + _("grey: never came out ({dropped}); ×n: came out n times").format(dropped=dropped)
        # Translators: {rows} is what a row is, in the plural: batches, windows, pairs, steps.
        head = self.code or (_("rows are {rows}").format(rows=row_word(self.row_name, plural=True)) if self.batched
                             else _("elements in output order"))
        if not self.rows:
            return head + "\n" + _("the pipeline emitted nothing")
        if self.key_name is not None:
            counts = ", ".join(f"{k}: {v}" for k, v in self.group_counts.items())
            # Translators: {key} is what the colours are (a function's name, "colour", "replica"), then counts.
            line = _("cells per {key}: {counts}").format(key=key_word(self.key_name), counts=counts)
        elif len(self.names) == 1:
            cells = sum(len(r) for r in self.rows)
            if self.source_sizes:
                line = _("{cells} cells from {inputs} input elements").format(cells=cells, inputs=self.source_sizes[0])
            else:
                line = _("{cells} cells").format(cells=cells)
        else:
            counts = ", ".join(f"{k} {v}" for k, v in self.counts.items())
            line = _("cells per source: {counts}").format(counts=counts)
        if self.truncated:
            # Translators: how far reading went, then what the cells are ("...; cells per source: A 3, B 2").
            line = _("{stopped}; {cells}").format(stopped=self._truncation(), cells=line)
        return f"{head}\n{line}"

    def _truncation(self) -> str:
        """How far reading went when it stopped at ``max_rows`` (the start of the title's second line)."""
        if self.batched:
            # Translators: {rows} is what a row is, in the plural: batches, windows, pairs, steps.
            return _("reading stopped at max_rows={count}: the first {count} {rows} of a longer stream").format(
                count=len(self.rows), rows=row_word(self.row_name, plural=True))
        return _("reading stopped at max_rows={count}: the first {count} elements of a longer stream").format(
            count=len(self.rows[0]))


def _as_list(sources: Any, where: str) -> list:
    import tensorflow as tf

    if isinstance(sources, tf.data.Dataset):
        return [sources]
    if isinstance(sources, (list, tuple)) and sources and all(isinstance(s, tf.data.Dataset) for s in sources):
        return list(sources)
    raise TypeError(_("{where} expects a tf.data.Dataset or a list of them as its sources, got {kind}; for example "
                      "[tf.data.Dataset.range(5), tf.data.Dataset.range(100, 105)].").format(
        where=where, kind=type(sources).__name__))


def _names(names: Sequence[str] | None, n: int, where: str) -> list[str]:
    if names is None:
        # Translators: the name of the one source of a pipeline, in the picture's key and row labels.
        return [_("input")] if n == 1 else [chr(ord("A") + k) if k < 26 else f"S{k}" for k in range(n)]
    names = [str(x) for x in names]
    if len(names) != n:
        raise ValueError(_("{where}: got {names} names for {n} sources; give one name per source.").format(
            where=where, names=len(names), n=n))
    return names


def _refuse_nested(output, where: str) -> None:
    import tensorflow as tf

    if any(isinstance(s, tf.data.DatasetSpec) for s in tf.nest.flatten(output.element_spec)):
        raise TypeError(_("{where}: the output yields datasets, not tensors: window() does that. Turn each window "
                          "into a tensor first, for example .flat_map(lambda w: w.batch(size)).").format(where=where))


def _groups_by_key(key: Callable, values: list[list], where: str) -> tuple[list[str], list[list[int]]]:
    if not callable(key):
        raise TypeError(_("{where}: key must be a function of one source element, e.g. key=len, got {kind}.").format(
            where=where, kind=type(key).__name__))
    from ..reading import plain

    labels = [[key(plain(v)) for v in elements] for elements in values]
    distinct = []
    for label in (x for row in labels for x in row):
        if label not in distinct:
            distinct.append(label)
    if all(isinstance(d, (int, float, np.integer, np.floating)) for d in distinct):
        distinct = sorted(distinct)  # numbers in order; names (a class, a length range) as they first appear
    numbers = {label: k for k, label in enumerate(distinct)}
    return [str(d) for d in distinct], [[numbers[x] for x in row] for row in labels]


def _key_name(key: Callable) -> str:
    name = getattr(key, "__name__", "")
    return "colour" if not name or name == "<lambda>" else name
