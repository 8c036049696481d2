"""The one reading loop: a helper thread pulls the elements, the caller's thread keeps the deadline.

:func:`pull` is every read of a dataset, whatever its library: a *source*
(:class:`~tutor.reading.tfdata.TfSource`, :class:`~tutor.reading.grain.GrainSource`)
makes the iterator and hands out elements in the helper thread, and knows how
to stop that thread when the caller gives up. The loop itself knows nothing of
TensorFlow or Grain. :func:`gave_up` writes the one sentence every reader that
gives up says.

>>> gave_up(0, 10.0)[:62]
'the dataset produced no element in 10 s, so reading stopped. T'
"""
from __future__ import annotations

import contextlib
import threading
import time
from typing import Any, Callable

from ..i18n import N_, join_sentences, ngettext
from ..i18n import gettext as _

#: The usual reasons a dataset yields nothing for a long time, and what to try; every "gave up" sentence ends so
#: (shown through ``_()``).
NEVER_YIELDS_CAUSES = N_(
    "The usual causes: a map() whose function never returns (a py_function stuck on a lock, a file or a network "
    "call), a filter() that matches nothing on an endless or very long input, a shuffle buffer still filling (a "
    "large buffer_size), or a source that waits forever. Test the function on one element outside the pipeline, "
    "check the filter's condition, use a smaller buffer_size, or give repeat() a count."
)


class ReadTimeout(TimeoutError):
    """A dataset did not finish producing the elements asked for before the deadline.

    ``elements`` holds what it produced in time (NumPy values).
    """

    def __init__(self, message: str, elements: list):
        super().__init__(message)
        self.elements = elements


class Read:
    """What a read got: ``elements`` (NumPy values), and ``more``: True when the dataset had more."""

    def __init__(self, elements: list, more: bool):
        self.elements = elements
        self.more = bool(more)

    def __repr__(self) -> str:  # a developer's view: English, as the doctests show it
        return f"Read({len(self.elements)} elements{', more left' if self.more else ''})"


class Pulled:
    """What :func:`run` got: ``values``, and ``seconds`` from making the iterator to the last ``next``.

    The seconds are measured in the reading thread and stop before the
    iterator is let go (see :func:`tutor.reading.time_pass`).
    """

    def __init__(self, values: list, seconds: float):
        self.values = values
        self.seconds = seconds


def gave_up(got: int, seconds: float, *, of: int | None = None, unit: str = "element", quiet: float | None = None,
            subject: str = "the dataset", stopped: str = "reading stopped", limit: float | None = None) -> str:
    """The one sentence a reader says when it gives up: what came, in how long, why that happens, what to try.

    ``of``: how many were asked for; ``quiet``: the seconds without a new
    element that ended the read (a deadline for each wait, not for the whole read);
    ``limit``: the deadline, said after ``stopped`` (the reading loop's own words).
    ``subject``, ``stopped`` and ``unit`` are English words that pick the
    whole sentence, translated (:func:`_said`): the reading loop's, a check's
    (``subject="your dataset", stopped="the check stopped reading"``) and a
    profiled run's (``of=steps, unit="step", stopped="the run was stopped"``).
    Other words get the English sentence made from them.

    >>> gave_up(2, 0.5, of=5, unit="step", stopped="the run was stopped")[:57]
    'the dataset produced 2 of the 5 steps in 0.5 s, so the ru'
    """
    said = _said(got, of=of, unit=unit, quiet=quiet, subject=subject, stopped=stopped, limit=limit)
    if said is not None:
        return join_sentences(said.format(n=got, of=of, seconds=round(seconds, 1), quiet=round(quiet or 0, 1),
                                          limit=limit), _(NEVER_YIELDS_CAUSES))
    if limit is not None:
        stopped += f" (the limit is {limit:g} s{' per element' if quiet is not None else ''})"
    if of is not None:
        what = f"{got} of the {of} {unit}s"
    elif got == 0:
        what = f"no {unit}"
    else:
        what = f"only {got} {unit}{'s' if got != 1 else ''}"
    what += f" in {round(seconds, 1):g} s"
    if quiet is not None and got:
        what += f", then none for {round(quiet, 1):g} s"
    return f"{subject} produced {what}, so {stopped}. {_(NEVER_YIELDS_CAUSES)}"


def _said(got: int, *, of, unit: str, quiet, subject: str, stopped: str, limit) -> str | None:
    """The whole sentence :func:`gave_up` says for these words, marked for translation, or None for other words."""
    words = (subject, stopped, unit)
    if words == ("the dataset", "reading stopped", "element") and of is None and limit is not None:
        if quiet is None:  # a deadline for the whole read
            if got == 0:
                return _("the dataset produced no element in {seconds:g} s, so reading stopped (the limit is "
                         "{limit:g} s).")
            return ngettext("the dataset produced only {n} element in {seconds:g} s, so reading stopped (the "
                            "limit is {limit:g} s).",
                            "the dataset produced only {n} elements in {seconds:g} s, so reading stopped (the "
                            "limit is {limit:g} s).", got)
        if got == 0:
            return _("the dataset produced no element in {seconds:g} s, so reading stopped (the limit is {limit:g} s "
                     "per element).")
        return ngettext("the dataset produced only {n} element in {seconds:g} s, then none for {quiet:g} s, so "
                        "reading stopped (the limit is {limit:g} s per element).",
                        "the dataset produced only {n} elements in {seconds:g} s, then none for {quiet:g} s, so "
                        "reading stopped (the limit is {limit:g} s per element).", got)
    if words == ("your dataset", "the check stopped reading", "element") and of is None and quiet is None \
            and limit is None:
        if got == 0:
            return _("your dataset produced no element in {seconds:g} s, so the check stopped reading.")
        return ngettext("your dataset produced only {n} element in {seconds:g} s, so the check stopped reading.",
                        "your dataset produced only {n} elements in {seconds:g} s, so the check stopped reading.",
                        got)
    if words == ("the dataset", "the run was stopped", "step") and of is not None and limit is None:
        # Translators: a profiled run that gave up: "{n} of the {of} steps", whatever the numbers.
        return _("the dataset produced {n} of the {of} steps in {seconds:g} s, so the run was stopped.")
    return None


def pull(source, *, timeout: float, where: str, convert: Callable = lambda value: value,
         on_element: Callable | None = None, limit: int | None = None, around: Callable | None = None,
         idle: bool = False) -> list:
    """Every element of ``source`` (at most ``limit``), each through ``convert``, pulled within the deadline.

    The values of :func:`run`; see there.
    """
    return run(source, timeout=timeout, where=where, convert=convert, on_element=on_element, limit=limit,
               around=around, idle=idle).values


def run(source, *, timeout: float, where: str, convert: Callable = lambda value: value,
        on_element: Callable | None = None, limit: int | None = None, around: Callable | None = None,
        idle: bool = False) -> Pulled:
    """Pull ``source``'s elements in a helper thread while this thread keeps the deadline.

    ``source`` has ``open()`` and ``next() -> (more, value)``, run in the
    helper thread, and ``stop(worker, finished)``, run here when the caller
    gives up. The deadline is ``timeout`` seconds for the whole read, or with
    ``idle=True`` for each wait: for the next element, and for
    ``on_element``, so a long pass that keeps yielding is fine. At the deadline
    the source stops its thread and :class:`ReadTimeout` says why, so this
    thread never waits much longer than ``timeout``. ``on_element(i, value)``
    runs in the helper thread after element ``i`` arrived. ``around(what, i)``,
    if given, returns a context manager wrapped around making the iterator
    (``what="iterator"``, ``i=None``) and around each ``next`` (``"next"``, ``i``),
    as ``tutor.profile`` marks them for TensorFlow's profiler.
    """
    around = around or (lambda what, i: contextlib.nullcontext())
    values: list = []
    state: dict[str, Any] = {"error": None, "seconds": 0.0, "progress": time.monotonic()}
    finished = threading.Event()

    def work() -> None:
        try:
            start = time.perf_counter()
            with around("iterator", None):
                source.open()
            while limit is None or len(values) < limit:
                with around("next", len(values)):
                    more, value = source.next()
                if not more:
                    break
                state["progress"] = time.monotonic()
                values.append(convert(value))
                if on_element is not None:
                    on_element(len(values) - 1, value)
                    state["progress"] = time.monotonic()
            state["seconds"] = time.perf_counter() - start
        except BaseException as exc:  # handed to the caller's thread below (a stop request ends here too)
            state["error"] = exc
        finally:
            finished.set()

    worker = threading.Thread(target=work, name=source.thread_name, daemon=True)
    start = time.monotonic()
    worker.start()
    try:
        while not finished.is_set():
            left = (state["progress"] if idle else start) + timeout - time.monotonic()
            if left <= 0:
                break
            finished.wait(left)
    except BaseException:  # the learner interrupted the kernel: stop the helper thread too
        source.stop(worker, finished)
        raise
    if not finished.is_set():
        source.stop(worker, finished)
        got = list(values)
        said = gave_up(len(got), time.monotonic() - start, quiet=timeout if idle else None, limit=timeout)
        # Translators: {where} names the function that read (e.g. "take_elements"); {said} is the sentences above.
        raise ReadTimeout(_("{where}: {said} Other pipelines keep working.").format(where=where, said=said), got)
    if state["error"] is not None:
        raise state["error"]
    return Pulled(values, state["seconds"])
