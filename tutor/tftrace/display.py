"""TraceViewerDisplay: a few steps of TensorFlow's own trace, drawn thread by thread as XProf's trace viewer does.

Each thread of the host is a row; an event that ran inside another on the
same thread is drawn one lane lower, so a ``DoCompute`` holds ``Iterator::Root``
which holds the first stage, as in the trace viewer. Only the events that tell
the input pipeline's story are drawn: the step markers, the step's requests
for a batch, the iterators' calls, tf.data's function runs, and the busy spells
of TensorFlow's compute threads (the model's ops).
"""
from __future__ import annotations

from .. import style
from .._validate import require_positive_int
from ..display import Display, new_axes
from ..i18n import N_
from ..i18n import gettext as _
from .events import GET_NEXT, STEP_RE, TraceEvents, thread_kind

#: What is drawn, in legend order: (kind, colour index in tutor.style). The kinds are English keys; the legend
#: translates them.
KINDS = ((N_("step marker"), 7), (N_("IteratorGetNext (waiting)"), 5), (N_("tf.data iterator"), 1),
         (N_("tf.data function"), 2), (N_("compute thread"), 6))
FUNCTIONS = ("InstantiatedCapturedFunction::Run", "InstantiatedCapturedFunction::RunAsync", "EagerPyFunc")
COMPUTE_THREADS = ("tf_Compute", "tf_numa")
#: The kinds whose long bars carry their name.
LABELLED = ("step marker", "IteratorGetNext (waiting)", "tf.data iterator")
#: Thread kinds in the order the rows are drawn (others after them, by name).
ROW_ORDER = ("python", "tf_data_iterator_get_next", "tf_data_iterator_get_next_as_optional")
MAX_LANES = 5
WHERE = "TraceViewerDisplay"


def kind_of(event) -> str | None:
    """Which of :data:`KINDS` an event is drawn as, or None (not drawn)."""
    if STEP_RE.match(event.name):
        return "step marker"
    if event.name in GET_NEXT:
        return "IteratorGetNext (waiting)"
    if event.name.startswith("Iterator::"):
        return "tf.data iterator"
    if event.name in FUNCTIONS:
        return "tf.data function"
    if thread_kind(event.thread).startswith(COMPUTE_THREADS):
        return "compute thread"
    return None


def _short(name: str) -> str:
    return name.replace("Op::DoCompute", "").replace("Iterator::", "")


def _row_key(thread: str) -> tuple:
    kind = thread_kind(thread)
    return (ROW_ORDER.index(kind) if kind in ROW_ORDER else len(ROW_ORDER), kind.startswith(COMPUTE_THREADS), kind)


class TraceViewerDisplay(Display):
    """A window of steps of a profile, one row per thread, as XProf's trace viewer draws them.

    Build it with :meth:`from_trace`; ``rows`` holds ``(thread label, [(kind, lane, start_ms, length_ms, name)])``.

    Attributes (after :meth:`plot`)
    -------------------------------
    bars_ : dict of kind -> PolyCollection
    rows_ : list of str, the row labels from top to bottom
    texts_ : list of Text, the names written on long bars
    ax_, figure_
    """

    def __init__(self, rows: list, *, window_ms: float, first_step: int, steps: int):
        self.rows, self.window_ms, self.first_step, self.steps = rows, float(window_ms), first_step, steps

    @classmethod
    def from_trace(cls, trace: TraceEvents, *, steps: int = 3, first_step: int = 1) -> "TraceViewerDisplay":
        """The steps ``first_step`` to ``first_step + steps - 1`` (by their order in the profile, from 0) of ``trace``."""
        if not isinstance(trace, TraceEvents):
            raise TypeError(_("{where}.from_trace expects tutor.tftrace.read(logdir)'s result, got {type}.")
                            .format(where=WHERE, type=type(trace).__name__))
        steps = require_positive_int(steps, "steps", f"{WHERE}.from_trace")
        first_step = require_positive_int(first_step, "first_step", f"{WHERE}.from_trace", minimum=0)
        markers = trace.steps()
        if len(markers) < first_step + 1:
            raise ValueError(_("{where}.from_trace: the profile has {n} step markers, so there is no step {step}; "
                               "record more steps, or use tutor.tftrace.StepMarkers in fit.")
                             .format(where=WHERE, n=len(markers), step=first_step))
        window = [m for _number, m in markers[first_step:first_step + steps]]
        start, end = window[0].start, max(m.end for m in window)
        by_thread: dict = {}
        for e in trace.events:
            kind = kind_of(e)
            if kind is not None and e.start < end and e.end > start:
                by_thread.setdefault(e.thread, []).append((kind, e))
        rows = []
        for thread in sorted(by_thread, key=_row_key):
            stack, bars = [], []
            for kind, e in by_thread[thread]:  # sorted by start, the longer first: nesting as a call stack
                while stack and not (stack[-1].start <= e.start and e.end <= stack[-1].end):
                    stack.pop()
                lane = len(stack)
                stack.append(e)
                if lane < MAX_LANES and (lane == 0 or kind != "compute thread"):  # a compute thread: busy or not
                    s, f = max(e.start, start), min(e.end, end)
                    bars.append((kind, lane, (s - start) / 1e3, (f - s) / 1e3, _short(e.name)))
            rows.append((thread, bars))
        kinds = {}
        labels = []
        for thread, _bars in rows:
            k = thread_kind(thread)
            kinds[k] = kinds.get(k, 0) + 1
            labels.append(k if kinds[k] == 1 else f"{k} #{kinds[k]}")
        return cls([(label, bars) for label, (_thread, bars) in zip(labels, rows)], window_ms=(end - start) / 1e3,
                   first_step=first_step, steps=len(window))

    def plot(self, *, ax=None, title: str | None = None) -> "TraceViewerDisplay":
        """Draw the rows; returns ``self``."""
        from matplotlib.collections import PolyCollection
        from matplotlib.patches import Patch

        heights = [1 + max((b[1] for b in bars), default=0) for _label, bars in self.rows]
        fig, ax = new_axes(ax, (10, 1.2 + 0.22 * sum(heights)))
        self.ax_, self.figure_ = ax, fig
        boxes = {kind: [] for kind, _colour in KINDS}
        self.texts_, self.rows_ = [], [label for label, _bars in self.rows]
        lane_h, y, ticks = 0.8, 0.0, []
        for (label, bars), height in zip(self.rows, heights):
            ticks.append(y + 0.5 * lane_h)
            for kind, lane, x, w, name in bars:
                top = y + lane * lane_h
                boxes[kind].append([(x, top), (x + w, top), (x + w, top + lane_h * 0.9), (x, top + lane_h * 0.9)])
                if w > 0.07 * self.window_ms and kind in LABELLED:
                    self.texts_.append(ax.text(x + 0.01 * self.window_ms, top + 0.45 * lane_h, name, fontsize=7,
                                               va="center", clip_on=True))
            y += height * lane_h + 0.35
        self.bars_ = {}
        for kind, colour in KINDS:
            bars = PolyCollection(boxes[kind], facecolors=style.color(colour), edgecolors="white", linewidths=0.2,
                                  label=_(kind))
            ax.add_collection(bars, autolim=False)
            self.bars_[kind] = bars
        ax.set_xlim(0, self.window_ms * 1.01 or 1.0)
        ax.set_ylim(y, -0.2)
        ax.set_yticks(ticks, self.rows_, fontsize=8)
        ax.set_xlabel(_("milliseconds from the start of step {step}").format(step=self.first_step))
        ax.legend(handles=[Patch(color=style.color(c), label=_(k)) for k, c in KINDS], fontsize=7, loc="upper center",
                  bbox_to_anchor=(0.5, -0.13), ncols=len(KINDS), frameon=False)
        ax.set_title(title if title is not None else
                     _("TensorFlow's trace: {steps} steps, thread by thread").format(steps=self.steps))
        return self
