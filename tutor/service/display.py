"""Which worker produced which element: the picture behind the tf.data service's processing modes."""
from __future__ import annotations

import time
from typing import Sequence

import numpy as np
import tensorflow as tf

from .. import style
from .._validate import require_choice, require_dataset, require_positive_int, require_seconds
from ..display import Display, new_axes
from ..i18n import gettext as _
from ..reading import read


def _after_a_pause(element: tf.Tensor, seconds: float) -> tf.Tensor:
    """``element``, after ``seconds`` of sleep on the worker that makes it (local workers only: Python)."""

    def pause(x):
        time.sleep(seconds)
        return x

    return tf.ensure_shape(tf.py_function(pause, [element], element.dtype), element.shape)


class WorkerOrderDisplay(Display):
    """Elements in the order the trainer received them, coloured by the worker that produced them.

    Build it with :meth:`from_service` (runs a real job) or :meth:`from_dataset`
    (reads ``(element, token)`` pairs from :func:`tutor.service.tag_producer`),
    then call :meth:`plot` (arrival order) or ``plot(kind="coverage")`` (worker x element).

    Parameters
    ----------
    elements : list of int
        Element ids in arrival order.
    workers : list of int
        For each arrival, the producer: 0, 1, ... in order of first appearance.
    mode : str, optional
        The processing mode, shown in titles.
    truncated : bool
        True when reading stopped at the bound.

    Examples
    --------
    >>> disp = WorkerOrderDisplay([0, 1, 0, 1], [0, 0, 1, 1], mode="parallel_epochs")
    >>> disp.visits.tolist()
    [2, 2]
    """

    def __init__(self, elements: Sequence[int], workers: Sequence[int], *, mode: str | None = None,
                 truncated: bool = False):
        if len(elements) != len(workers):
            raise ValueError(_("WorkerOrderDisplay: got {elements} elements but {workers} worker labels.")
                             .format(elements=len(elements), workers=len(workers)))
        self.elements = [int(e) for e in elements]
        self.workers = [int(w) for w in workers]
        self.mode = mode
        self.truncated = bool(truncated)

    # ----------------------------------------------------------------- compute
    @classmethod
    def from_dataset(
        cls, dataset: tf.data.Dataset, *, max_elements: int = 500, mode: str | None = None
    ) -> "WorkerOrderDisplay":
        """Read up to ``max_elements`` ``(element id, producer token)`` pairs."""
        require_dataset(dataset, "WorkerOrderDisplay.from_dataset")
        max_elements = require_positive_int(max_elements, "max_elements", "WorkerOrderDisplay.from_dataset")
        spec = dataset.element_spec
        if not (isinstance(spec, tuple) and len(spec) == 2 and all(s.dtype.is_integer for s in spec)):
            raise TypeError(
                _("WorkerOrderDisplay.from_dataset expects (element id, producer token) pairs; build them with "
                  "tutor.service.tag_producer(tf.data.Dataset.range(n)), got element_spec={spec}.").format(spec=spec)
            )
        result = read(dataset, max_elements=max_elements, where="WorkerOrderDisplay.from_dataset")
        pairs, truncated = result.elements, result.more
        first_seen: dict[int, int] = {}
        for _element, token in pairs:
            first_seen.setdefault(int(token), len(first_seen))
        return cls([int(e) for e, _token in pairs], [first_seen[int(t)] for _element, t in pairs], mode=mode,
                   truncated=truncated)

    @classmethod
    def from_service(
        cls, service, *, n_elements: int = 20, processing_mode: str = "parallel_epochs", max_elements: int = 500,
        element_seconds: float = 0.0,
    ) -> "WorkerOrderDisplay":
        """Send ``tf.data.Dataset.range(n_elements)`` through ``service`` (a LocalService) and record who made what.

        ``element_seconds`` makes each element take that long on its worker (a
        sleep, one element at a time, so it needs no CPU): while one worker is
        busy with an element, the other asks the dispatcher for the next split,
        so in ``distributed_epoch`` mode both workers take splits even on one CPU.
        Without it, a worker can finish a small dataset before the other one asks.

        >>> from tutor.service import LocalService
        >>> with LocalService(2) as service:
        ...     WorkerOrderDisplay.from_service(service, n_elements=6, processing_mode="distributed_epoch").at_most_once
        True
        """
        from .local import tag_producer

        n_elements = require_positive_int(n_elements, "n_elements", "WorkerOrderDisplay.from_service")
        element_seconds = require_seconds(element_seconds, "element_seconds", "WorkerOrderDisplay.from_service",
                                          maximum=1.0)
        source = tf.data.Dataset.range(n_elements)
        if element_seconds > 0:
            source = source.map(lambda x: _after_a_pause(x, element_seconds))
        tagged = tag_producer(source)
        ds = service.distribute(tagged, processing_mode)
        name = processing_mode if isinstance(processing_mode, str) else str(processing_mode)
        return cls.from_dataset(ds, max_elements=max_elements, mode=name)

    @property
    def n_workers(self) -> int:
        """How many different producers were seen."""
        return max(self.workers, default=-1) + 1

    @property
    def visits(self) -> np.ndarray:
        """``visits[i]``: how many times element ``i`` arrived."""
        size = max(self.elements, default=-1) + 1
        return np.bincount(np.array(self.elements, dtype=np.int64), minlength=size)

    @property
    def at_most_once(self) -> bool:
        """True when no element arrived more than once (what ``distributed_epoch`` promises)."""
        return bool(np.all(self.visits <= 1))

    @property
    def exactly_once(self) -> bool:
        """True when every element from 0 to the largest id arrived exactly once (in this run).

        ``distributed_epoch`` promises only :attr:`at_most_once`: an element
        whose split was on a worker that failed is lost, not sent again.
        """
        return bool(len(self.elements)) and bool(np.all(self.visits == 1))

    @property
    def per_worker(self) -> list[list[int]]:
        """The element ids each producer sent, in arrival order."""
        return [[e for e, w in zip(self.elements, self.workers) if w == k] for k in range(self.n_workers)]

    def __repr__(self) -> str:
        more = ", truncated" if self.truncated else ""
        workers = f"{self.n_workers} worker" + ("" if self.n_workers == 1 else "s")
        return f"WorkerOrderDisplay({len(self.elements)} elements from {workers}{more})"

    # -------------------------------------------------------------------- draw
    def plot(self, *, ax=None, title: str | None = None, kind: str = "arrivals", width: int = 20) -> "WorkerOrderDisplay":
        """Draw the arrivals and who made them; returns ``self``.

        ``kind="arrivals"``: the arrival order in rows of ``width`` cells, each
        labelled with its element id and coloured by worker.
        ``kind="coverage"``: one row per worker, one column per element id; a
        filled cell means that worker produced that element.

        Sets ``ax_``, ``figure_``, ``cells_`` (a PatchCollection, one box per
        cell drawn) and ``texts_`` (list of Text: the element ids, empty for coverage).
        """
        from matplotlib.collections import PatchCollection
        from matplotlib.patches import Patch, Rectangle

        require_choice(kind, "kind", "WorkerOrderDisplay.plot", ("arrivals", "coverage"))
        width = require_positive_int(width, "width", "WorkerOrderDisplay.plot")
        if kind == "coverage":
            return self._plot_coverage(ax, title)
        rows = max(1, -(-len(self.elements) // width))
        fig, ax = new_axes(ax, (min(1.5 + 0.5 * width, 14), min(1.3 + 0.45 * rows, 9)))
        boxes, colours, texts = [], [], []
        for i, (element, worker) in enumerate(zip(self.elements, self.workers)):
            r, c = divmod(i, width)
            boxes.append(Rectangle((c, r), 0.94, 0.88))
            colours.append(style.color(worker))
            texts.append(ax.text(c + 0.47, r + 0.44, str(element), ha="center", va="center", fontsize=8))
        cells = ax.add_collection(PatchCollection(boxes, facecolors=colours, edgecolors="black", linewidths=0.6))
        ax.set_xlim(-0.1, width + 0.1)
        ax.set_ylim(rows + 0.05, -0.1)
        ax.set_xticks([])
        ax.set_yticks(np.arange(rows) + 0.44, [str(r * width) for r in range(rows)])
        ax.set_xlabel(_("arrival order at the trainer, left to right ({width} per row); number = element id")
                      .format(width=width))
        ax.set_ylabel(_("arrivals so far"))
        for side in ("top", "right", "bottom", "left"):
            ax.spines[side].set_visible(False)
        handles = [Patch(facecolor=style.color(k), edgecolor="black", label=_("worker {k}").format(k=k + 1))
                   for k in range(self.n_workers)]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        ax.set_title(title if title is not None else self._title(), loc="left")
        self.ax_, self.figure_, self.cells_, self.texts_ = ax, fig, cells, texts
        return self

    def _plot_coverage(self, ax, title: str | None) -> "WorkerOrderDisplay":
        from matplotlib.collections import PatchCollection
        from matplotlib.patches import Rectangle

        size = len(self.visits)
        fig, ax = new_axes(ax, (min(1.5 + 0.35 * size, 14), 1.2 + 0.5 * max(self.n_workers, 1)))
        boxes, colours = [], []
        for k, produced in enumerate(self.per_worker):
            for element in sorted(set(produced)):
                boxes.append(Rectangle((element, k), 0.9, 0.8))
                colours.append(style.color(k))
        cells = ax.add_collection(PatchCollection(boxes, facecolors=colours, edgecolors="black", linewidths=0.5))
        ax.set_xlim(-0.2, size + 0.1)
        ax.set_ylim(max(self.n_workers, 1) + 0.1, -0.2)
        ax.set_yticks(np.arange(self.n_workers) + 0.4, [_("worker {k}").format(k=k + 1) for k in range(self.n_workers)])
        step = max(1, size // 20)
        ax.set_xticks(np.arange(0, size, step) + 0.45, [str(i) for i in range(0, size, step)])
        ax.set_xlabel(_("element id"))
        ax.set_ylabel(_("producer"))
        ax.tick_params(length=0)
        if title is None and self.mode:
            # Translators: {mode} is a processing mode of the tf.data service, such as parallel_epochs.
            title = _("{mode}: who produced each element").format(mode=self.mode)
        elif title is None:
            title = _("service: who produced each element")
        ax.set_title(title, loc="left")
        self.ax_, self.figure_, self.cells_, self.texts_ = ax, fig, cells, []
        return self

    def _title(self) -> str:
        head = self.mode or "tf.data service"
        if self.exactly_once:
            # Translators: {head} is a processing mode of the tf.data service (parallel_epochs) or "tf.data service".
            text = _("{head}: {arrivals} arrivals from {workers} worker(s), no element arrived twice")
        else:
            # Translators: {head} is a processing mode of the tf.data service (parallel_epochs) or "tf.data service".
            text = _("{head}: {arrivals} arrivals from {workers} worker(s), elements arrived up to {most} times")
        most = int(self.visits.max()) if len(self.visits) else 0
        return text.format(head=head, arrivals=len(self.elements), workers=self.n_workers, most=most)


class ServiceDiagramDisplay(Display):
    """Boxes and arrows: one dispatcher, CPU worker hosts, accelerator trainer hosts.

    A diagram computes nothing, so it is built directly:
    ``ServiceDiagramDisplay(n_workers=4, n_trainers=2).plot()``.

    Attributes (after :meth:`plot`)
    ----------
    boxes_ : dict, box name -> FancyBboxPatch ("storage", "dispatcher", "worker 1", "trainer 1", ...)
    arrows_ : list of FancyArrowPatch
    ax_, figure_ : the Axes and Figure

    >>> sorted(ServiceDiagramDisplay(n_workers=3, n_trainers=2).plot().boxes_)[:2]   # doctest: +SKIP
    ['dispatcher', 'storage']
    """

    def __init__(self, *, n_workers: int = 4, n_trainers: int = 2):
        self.n_workers = require_positive_int(n_workers, "n_workers", "ServiceDiagramDisplay")
        self.n_trainers = require_positive_int(n_trainers, "n_trainers", "ServiceDiagramDisplay")

    def __repr__(self) -> str:
        return f"ServiceDiagramDisplay(n_workers={self.n_workers}, n_trainers={self.n_trainers})"

    def plot(self, *, ax=None, title: str | None = None) -> "ServiceDiagramDisplay":
        """Draw the diagram; returns ``self``."""
        from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

        fig, ax = new_axes(ax, (9, 4.2))
        boxes, arrows = {}, []

        def box(name, x, y, text, colour, w=1.7, h=0.7):
            patch = FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.05", facecolor=colour,
                                   edgecolor="black")
            ax.add_patch(patch)
            ax.text(x, y, text, ha="center", va="center", fontsize=9)
            boxes[name] = patch

        def arrow(a, b, colour="black", dashed=False):
            patch = FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=12, color=colour, lw=1.2,
                                    linestyle="--" if dashed else "-")
            ax.add_patch(patch)
            arrows.append(patch)

        worker_y = np.linspace(3.6, 0.4, self.n_workers)
        trainer_y = np.linspace(3.0, 1.0, self.n_trainers)
        box("storage", 0.0, 2.0, _("storage\n(files, TFRecords)"), style.OKABE_ITO[7], w=1.9, h=1.0)
        box("dispatcher", 6.2, 4.7, _("dispatcher\n(splits, jobs, tasks)"), style.OKABE_ITO[3], w=2.4)
        for k, y in enumerate(worker_y):
            box(f"worker {k + 1}", 4.0, y, _("CPU host {k}\ntf.data worker").format(k=k + 1), style.OKABE_ITO[1])
            arrow((0.95, 2.0), (3.15, y), colour="#555555")
            arrow((5.4, 4.35), (4.9, y + 0.2), colour=style.OKABE_ITO[5], dashed=True)
        for j, y in enumerate(trainer_y):
            box(f"trainer {j + 1}", 8.0, y, _("accelerator host {j}\ntrainer (GPU/TPU)").format(j=j + 1),
                style.OKABE_ITO[2], w=2.0)
            arrow((7.0, 4.35), (7.6, y + 0.4), colour=style.OKABE_ITO[5], dashed=True)
            for wy in worker_y:
                arrow((4.85, wy), (7.0, y), colour=style.OKABE_ITO[4])
        ax.set_xlim(-1.2, 9.3)
        ax.set_ylim(-0.2, 5.2)
        ax.set_axis_off()
        ax.set_title(
            title if title is not None else
            _("Scaling out: workers on CPU hosts preprocess, trainers on accelerator hosts only consume\n"
              "grey: workers read raw data; dashed: the dispatcher assigns work and tells trainers where to read;\n"
              "blue: preprocessed batches travel over the network"),
            loc="left", fontsize=10,
        )
        self.boxes_, self.arrows_, self.ax_, self.figure_ = boxes, arrows, ax, fig
        return self


def plot_service_diagram(*, ax=None, n_workers: int = 4, n_trainers: int = 2) -> ServiceDiagramDisplay:
    """Draw a :class:`ServiceDiagramDisplay` and return it (``.boxes_``, ``.arrows_``, ``.ax_``)."""
    return ServiceDiagramDisplay(n_workers=n_workers, n_trainers=n_trainers).plot(ax=ax)
