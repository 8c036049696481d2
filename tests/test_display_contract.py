"""One contract test over every Display, as scikit-learn runs one over its own (see CONTRIBUTING.md).

* ``from_*`` computes and draws nothing; at most two data arguments by position, every option by keyword.
* ``plot(*, ax=None, title=None, ...)`` keeps what the caller drew, sets ``ax_``, ``figure_`` and the
  artist attributes listed below (one name, one type), and returns the Display.
* ``compare`` returns a Display that draws nothing until ``plot``.
* Every Display is exported in ``tutor.__all__`` and has an example here.

A new Display adds one line to EXAMPLES and one to ARTISTS.
"""
import importlib
import inspect
import pkgutil

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
import tensorflow as tf
from matplotlib.axes import Axes
from matplotlib.collections import PatchCollection, PathCollection
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import tutor
from tutor.display import Display
from tutor.timeline import simulate


def _all_display_classes() -> set:
    for info in pkgutil.walk_packages(tutor.__path__, "tutor."):
        importlib.import_module(info.name)
    found, todo = set(), [Display]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


def _images(n=6, size=8):
    return (np.arange(n * size * size) % 251).astype(np.uint8).reshape(n, size, size)


EXAMPLES = {
    "BatchOrderDisplay": lambda: tutor.BatchOrderDisplay.from_dataset(tf.data.Dataset.range(10).repeat(2).batch(3)),
    "ShuffleDisplay": lambda: tutor.ShuffleDisplay.from_dataset(tf.data.Dataset.range(20).shuffle(5, seed=0),
                                                                buffer_size=5),
    "AugmentationGridDisplay": lambda: tutor.AugmentationGridDisplay.from_dataset(
        tf.data.Dataset.from_tensor_slices(_images()).batch(4), n=5, ncols=3),
    "RotationTimingDisplay": lambda: tutor.RotationTimingDisplay.from_images(
        _images(8), paths=("tf", "tf-batched"), repeats=1, warmup=0),
    "TimelineDisplay": lambda: tutor.TimelineDisplay.from_timeline(
        simulate([("read", 0.01), ("decode", 0.02)], step_time=0.01, steps=4, prefetch=1)),
    "StepTimeDisplay": lambda: tutor.StepTimeDisplay({"slow": [0.03, 0.04, 0.03], "fast": [0.01, 0.01, 0.02]}),
    "HistoryDisplay": lambda: tutor.HistoryDisplay.from_history(
        {"loss": [1.0, 0.5], "val_loss": [1.1, 0.7], "accuracy": [0.5, 0.8], "val_accuracy": [0.4, 0.7]}),
    "WorkerOrderDisplay": lambda: tutor.WorkerOrderDisplay([0, 1, 0, 2, 1, 2], [0, 0, 1, 0, 1, 1]),
    "ServiceDiagramDisplay": lambda: tutor.ServiceDiagramDisplay(n_workers=2, n_trainers=1),
    "SourceDisplay": lambda: tutor.SourceDisplay.from_datasets(
        [tf.data.Dataset.range(3), tf.data.Dataset.range(100, 103)],
        tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(100, 103)).batch(2)),
    "MemoryDisplay": lambda: tutor.MemoryDisplay(["a", "b"], [{"shuffle": 2**20}, {"prefetch": 2**19, "cache": 2**18}],
                                                 [2**20, None], [None, 3 * 2**19]),
    "TraceViewerDisplay": lambda: tutor.TraceViewerDisplay.from_trace(tutor.tftrace.TraceEvents.from_json({
        "traceEvents": [{"ph": "M", "pid": 1, "tid": 1, "name": "thread_name", "args": {"name": "python"}},
                        {"ph": "X", "pid": 1, "tid": 1, "name": "train 0", "ts": 0.0, "dur": 9.0, "args": {}},
                        {"ph": "X", "pid": 1, "tid": 1, "name": "IteratorGetNextOp::DoCompute", "ts": 1.0,
                         "dur": 2.0, "args": {}}]}), first_step=0),
    "ComparisonDisplay": lambda: tutor.ShuffleDisplay.compare(
        [tutor.ShuffleDisplay.from_params(n_elements=10, buffer_size=b) for b in (1, 10)], labels=["1", "10"]),
}

#: The artist attributes each Display documents, with their one type (after any kind of plot).
ARTISTS = {
    "BatchOrderDisplay": {"cells_": PatchCollection, "texts_": list},
    "ShuffleDisplay": {"points_": PathCollection, "limit_": Line2D},
    "AugmentationGridDisplay": {"ims_": list, "axes_": list},
    "RotationTimingDisplay": {"bars_": BarContainer, "labels_": list},
    "TimelineDisplay": {"bars_": dict, "idle_": list, "rows_": list},
    "StepTimeDisplay": {"bars_": dict, "median_lines_": dict},
    "HistoryDisplay": {"lines_": dict, "acc_ax_": Axes},
    "WorkerOrderDisplay": {"cells_": PatchCollection, "texts_": list},
    "ServiceDiagramDisplay": {"boxes_": dict, "arrows_": list},
    "SourceDisplay": {"cells_": PatchCollection, "texts_": list},
    "MemoryDisplay": {"bars_": dict, "tensors_": Line2D, "rss_": Line2D},
    "TraceViewerDisplay": {"bars_": dict, "rows_": list, "texts_": list},
    "ComparisonDisplay": {"axes_": list},
}

#: Second kinds of picture, drawn with plot(kind=...).
KINDS = {"WorkerOrderDisplay": ["arrivals", "coverage"], "SourceDisplay": ["outputs", "inputs"]}

NAMES = sorted(EXAMPLES)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_every_display_is_exported_and_has_an_example_here():
    classes = {cls.__name__: cls for cls in _all_display_classes()}
    assert set(classes) == set(EXAMPLES) == set(ARTISTS), "add new Displays to EXAMPLES and ARTISTS"
    for name, cls in classes.items():
        assert name in tutor.__all__ and getattr(tutor, name) is cls, f"{name} is missing from tutor.__all__"


@pytest.mark.parametrize("name", NAMES)
def test_from_methods_take_at_most_two_data_arguments_by_position(name):
    cls = getattr(tutor, name)
    builders = [m for m in dir(cls) if m.startswith("from_")]
    for builder in builders:
        params = list(inspect.signature(getattr(cls, builder)).parameters.values())
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        assert len(positional) <= 2, f"{name}.{builder}: options must be keyword-only"
        assert all(p.default is p.empty for p in positional), f"{name}.{builder}: an option is positional"


@pytest.mark.parametrize("name", NAMES)
def test_plot_takes_only_keywords_with_ax_and_title(name):
    params = inspect.signature(getattr(tutor, name).plot).parameters
    rest = [p for p in params.values() if p.name != "self"]
    assert all(p.kind == p.KEYWORD_ONLY for p in rest), f"{name}.plot: every argument is keyword-only"
    assert params["ax"].default is None and params["title"].default is None


@pytest.mark.parametrize("name", NAMES)
def test_computing_draws_nothing(name):
    before = plt.get_fignums()
    disp = EXAMPLES[name]()
    assert plt.get_fignums() == before, f"{name}: from_* must not draw"
    assert not hasattr(disp, "figure_") and not hasattr(disp, "ax_")


@pytest.mark.parametrize("name", NAMES)
def test_plot_draws_into_the_callers_axes_without_clearing_them(name):
    fig, ax = plt.subplots()
    (line,) = ax.plot([0, 1], [0, 1], color="red")
    note = ax.text(0.5, 0.5, "the caller's note")
    disp = EXAMPLES[name]()
    if name in ("AugmentationGridDisplay",):
        target = ax
    elif name == "ComparisonDisplay":
        target = [ax, fig.add_subplot(2, 2, 4)]
    else:
        target = ax
    result = disp.plot(ax=target)
    assert result is disp
    assert line in ax.lines and note in ax.texts, f"{name}.plot cleared the caller's axes"
    assert disp.figure_ is fig and isinstance(disp.ax_, Axes)


@pytest.mark.parametrize("name", NAMES)
def test_plot_with_no_axes_makes_one_new_figure_and_sets_documented_artists(name):
    for kind in KINDS.get(name, [None]):
        before = set(plt.get_fignums())
        disp = EXAMPLES[name]()
        disp.plot() if kind is None else disp.plot(kind=kind)
        assert len(set(plt.get_fignums()) - before) == 1
        assert isinstance(disp.figure_, Figure) and isinstance(disp.ax_, Axes)
        for attribute, kind_of in ARTISTS[name].items():
            assert isinstance(getattr(disp, attribute), kind_of), f"{name}.{attribute} after plot(kind={kind})"


@pytest.mark.parametrize("name", NAMES)
def test_compare_holds_displays_and_draws_nothing_until_plot(name):
    cls = getattr(tutor, name)
    displays = [EXAMPLES[name](), EXAMPLES[name]()]
    before = plt.get_fignums()
    both = cls.compare(displays, labels=["first", "second"])
    assert plt.get_fignums() == before and not hasattr(both, "figure_")
    assert isinstance(both, Display)
    assert both.plot() is both and isinstance(both.figure_, Figure)


def test_compare_refuses_what_is_not_a_list_of_displays():
    with pytest.raises(TypeError, match="list of ShuffleDisplay"):
        tutor.ShuffleDisplay.compare(tutor.ShuffleDisplay.from_params(n_elements=5, buffer_size=1))
    with pytest.raises(TypeError, match="ShuffleDisplay objects"):
        tutor.ShuffleDisplay.compare([EXAMPLES["BatchOrderDisplay"]()])


def test_matplotlib_backend_is_headless_here():
    assert matplotlib.get_backend().lower() == "agg"


#: A second Display of each kind for replot: same kind and layout as EXAMPLES' (updated in place where the class can).
SECONDS = {
    **EXAMPLES,
    "BatchOrderDisplay": lambda: tutor.BatchOrderDisplay.from_dataset(tf.data.Dataset.range(10).batch(4)),
    "ShuffleDisplay": lambda: tutor.ShuffleDisplay.from_dataset(tf.data.Dataset.range(20).shuffle(5, seed=1),
                                                                buffer_size=5),
    "TimelineDisplay": lambda: tutor.TimelineDisplay.from_timeline(
        simulate([("read", 0.01), ("decode", 0.03)], step_time=0.01, steps=4, prefetch=1)),
    "ComparisonDisplay": lambda: tutor.ShuffleDisplay.compare(
        [tutor.ShuffleDisplay.from_params(n_elements=10, buffer_size=b) for b in (2, 5)], labels=["2", "5"]),
}


def _target(name, fig, ax):
    return [ax, fig.add_subplot(2, 2, 4)] if name == "ComparisonDisplay" else ax


def _inside(artist, fig) -> bool:
    """True when ``artist`` is drawn in ``fig``: one of its axes, or an artist inside one of them or the figure."""
    return artist.figure is fig and any(artist is a for a in fig.findobj())


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("second", ["same kind", "other numbers"])
def test_replot_draws_over_the_previous_display_and_keeps_the_callers_artists(name, second):
    fig, ax = plt.subplots()
    (line,) = ax.plot([0, 1], [0, 1], color="red")
    note = ax.text(0.5, 0.5, "the caller's note")
    previous = EXAMPLES[name]()
    previous.plot(ax=_target(name, fig, ax))
    disp = (EXAMPLES if second == "same kind" else SECONDS)[name]()
    changed = disp.replot(previous)
    assert disp.ax_ is previous.ax_ and disp.figure_ is fig
    assert line in ax.lines and note in ax.texts, f"{name}.replot removed the caller's artists"
    assert isinstance(changed, list) and changed, f"{name}.replot returns the artists that changed"
    assert all(_inside(a, fig) for a in changed), f"{name}.replot returned artists that are not in the figure"
    for attribute, kind_of in ARTISTS[name].items():
        assert isinstance(getattr(disp, attribute), kind_of), f"{name}.{attribute} after replot"


@pytest.mark.parametrize("name", NAMES)
def test_replot_leaves_nothing_of_the_previous_display_behind(name):
    from tutor.display import drawn_artists

    fig, ax = plt.subplots()
    previous = EXAMPLES[name]()
    previous.plot(ax=_target(name, fig, ax))
    counts = []
    for _ in range(4):  # redraws of two kinds, in turn: the figure must not fill up with old artists
        for make in (SECONDS[name], EXAMPLES[name]):
            disp = make()
            disp.replot(previous)
            previous = disp
        counts.append(len(drawn_artists(fig)))
    assert counts == counts[:1] * len(counts), f"{name}.replot left artists of earlier Displays behind: {counts}"


def test_replot_updates_in_place_where_it_can():
    fig, ax = plt.subplots()
    old = tutor.ShuffleDisplay.from_params(n_elements=20, buffer_size=2)
    old.plot(ax=ax, title="fixed")
    new = tutor.ShuffleDisplay.from_params(n_elements=20, buffer_size=9)
    changed = new.replot(old, title="fixed")
    assert new.points_ is old.points_ and new.points_ in changed and ax not in changed  # only data changed
    assert np.array_equal(new.points_.get_offsets()[:, 1], new.order)
    other = tutor.ShuffleDisplay.from_params(n_elements=30, buffer_size=9)
    assert other.replot(new, title="fixed") == [ax]  # another layout: the axes drawn anew
    assert other.points_ is not new.points_ and new.points_ not in ax.collections


def test_replot_refuses_what_was_never_drawn():
    disp = tutor.ShuffleDisplay.from_params(n_elements=5, buffer_size=1)
    with pytest.raises(ValueError, match="has not been drawn yet"):
        disp.replot(tutor.ShuffleDisplay.from_params(n_elements=5, buffer_size=2))
    with pytest.raises(TypeError, match="replot expects the Display drawn before"):
        disp.replot("not a display")
