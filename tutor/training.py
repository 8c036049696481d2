"""Training with a tf.data pipeline: device report, a small CNN, step times and their bars.

Works with Keras 3 (TF >= 2.16) and Keras 2 (TF 2.15): only ``import keras``
and APIs both share.

>>> detect_device().cpu_cores >= 1
True
"""
from __future__ import annotations

import time
from typing import Callable, Mapping, Sequence

import numpy as np
import tensorflow as tf

from . import style
from ._validate import is_infinite, require_dataset, require_positive_int
from .display import Display, new_axes
from .i18n import N_, ngettext
from .i18n import gettext as _

__all__ = ["DeviceReport", "StepTimer", "StepTimeDisplay", "HistoryDisplay",
           "compare_step_times", "detect_device", "without_auto_speedups", "small_cnn", "time_steps"]


# -------------------------------------------------------------------- device
class DeviceReport:
    """What TensorFlow can compute on: ``gpus`` (names) and ``cpus``, the CPU time per second this process may use.

    ``cpus`` is :func:`tutor.env.cpus_available`: under a CPU quota (Binder gives
    about 1.0) it is less than the cores the machine shows; ``cpu`` is the
    one-line CPU report when there is one.

    >>> print(DeviceReport([], 1.0))
    TensorFlow sees no GPU: the model trains on the CPU, sharing with the input pipeline the 1.0 CPU of time this process may use.
    """

    def __init__(self, gpus: Sequence[str], cpus: float, *, cpu: str | None = None):
        self.gpus = list(gpus)
        self.cpus = float(cpus)
        self.cpu = cpu

    @property
    def cpu_cores(self) -> int:
        """Whole CPUs of time (at least 1): ``cpus`` rounded down."""
        return max(1, int(self.cpus))

    @property
    def has_gpu(self) -> bool:
        return bool(self.gpus)

    def __str__(self) -> str:
        one = 1 if self.cpus == 1 else 2  # "1.0 CPU of time", "2.0 CPUs of time"
        if self.has_gpu:
            # Translators: {gpus} lists the GPUs' names; {cpus} is a number such as "1.0".
            text = ngettext("TensorFlow sees {n} GPU(s): {gpus}. Keras places the model on the GPU; the input "
                            "pipeline runs on the CPU, with the {cpus} CPU of time this process may use.",
                            "TensorFlow sees {n} GPU(s): {gpus}. Keras places the model on the GPU; the input "
                            "pipeline runs on the CPU, with the {cpus} CPUs of time this process may use.", one)
        else:
            text = ngettext("TensorFlow sees no GPU: the model trains on the CPU, sharing with the input pipeline "
                            "the {cpus} CPU of time this process may use.",
                            "TensorFlow sees no GPU: the model trains on the CPU, sharing with the input pipeline "
                            "the {cpus} CPUs of time this process may use.", one)
        text = text.format(n=len(self.gpus), gpus=", ".join(self.gpus), cpus=f"{self.cpus:.1f}")
        return text + (f"\n{self.cpu}" if self.cpu else "")

    __repr__ = __str__


def detect_device() -> DeviceReport:
    """Which GPUs TensorFlow sees, and how much CPU time this process may use (quota, affinity, cores)."""
    from .env import cpu_report

    gpus = [d.name for d in tf.config.list_physical_devices("GPU")]
    report = cpu_report()
    return DeviceReport(gpus, report.available, cpu=str(report))


# --------------------------------------------------------------------- model
def small_cnn(input_shape: tuple[int, int, int] = (28, 28, 1), num_classes: int = 10, *,
              seed: int = 0, learning_rate: float = 1e-3, filters: tuple[int, int] = (16, 32)):
    """A small compiled CNN that takes uint8 or float images in 0..255.

    Two convolution blocks, then a dense layer; about 30k weights for 28x28
    digits, so a CPU trains it in seconds. Seeds Keras first, so that the same
    ``seed`` gives the same initial weights.
    """
    import keras

    keras.utils.set_random_seed(seed)
    model = keras.Sequential([
        keras.Input(shape=input_shape),
        keras.layers.Rescaling(1.0 / 255),
        keras.layers.Conv2D(filters[0], 3, activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(filters[1], 3, activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(num_classes),
    ])
    model.compile(optimizer=keras.optimizers.Adam(learning_rate),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


# ---------------------------------------------------------------- step times
def _step_timer_class():
    import keras

    class StepTimer(keras.callbacks.Callback):
        """A Keras callback that records the wall time of every training step.

        A step's time runs from the end of the previous step to the end of this
        one, so it includes waiting for the input pipeline. ``step_seconds`` is a
        NumPy array; the first step also holds tracing and is usually dropped.
        """

        def __init__(self):
            super().__init__()
            self._ends: list[float] = []
            self._start = None

        def on_train_begin(self, logs=None):
            self._ends, self._start = [], None

        def on_train_batch_begin(self, batch, logs=None):
            if self._start is None:
                self._start = time.perf_counter()

        def on_train_batch_end(self, batch, logs=None):
            self._ends.append(time.perf_counter())

        @property
        def step_seconds(self) -> np.ndarray:
            if not self._ends:
                return np.zeros(0)
            return np.diff(np.array([self._start] + self._ends))

    return StepTimer


_STEP_TIMER = None


def __getattr__(name):  # StepTimer is built on first use, so importing tutor does not import Keras
    global _STEP_TIMER
    if name == "StepTimer":
        if _STEP_TIMER is None:
            _STEP_TIMER = _step_timer_class()
        return _STEP_TIMER
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def time_steps(model, dataset: tf.data.Dataset, *, steps: int = 20, warmup: int = 6) -> np.ndarray:
    """Train ``model`` for ``warmup + steps`` steps on ``dataset``; the last ``steps`` step times (s).

    A finite dataset is repeated, so it never runs out. The warm-up steps are
    dropped: the first one traces the model, and while it does, the pipeline
    fills the buffers ahead of the model, so the next few steps find their
    batch ready even when the pipeline is slow. Keras runs the loop, so the
    read is bounded in steps but not in time: a pipeline that never yields
    stops ``model.fit`` here as it would in training (``tutor.take_elements``
    reads one with a deadline first).
    """
    require_dataset(dataset, "time_steps")
    steps = require_positive_int(steps, "steps", "time_steps")
    warmup = require_positive_int(warmup, "warmup", "time_steps", minimum=0)
    if not is_infinite(dataset):
        dataset = dataset.repeat()
    timer = __getattr__("StepTimer")()
    model.fit(dataset, epochs=1, steps_per_epoch=warmup + steps, verbose=0, callbacks=[timer], shuffle=False)
    return timer.step_seconds[warmup:]


def compare_step_times(model_fn: Callable[[], object], datasets: Mapping[str, tf.data.Dataset], *,
                       steps: int = 20, warmup: int = 6, rounds: int = 1) -> dict[str, np.ndarray]:
    """Step times of one fresh ``model_fn()`` on each dataset, measured side by side.

    With ``rounds > 1`` the pipelines take turns, and each keeps its round with
    the lowest median: on a busy machine that filters out bursts of load. One
    model serves all pipelines (traced once), so only the input differs.
    """
    rounds = require_positive_int(rounds, "rounds", "compare_step_times")
    model = model_fn()
    models = {name: model for name in datasets}
    best: dict[str, np.ndarray] = {}
    for _unused in range(rounds):
        for name, ds in datasets.items():
            t = time_steps(models[name], ds, steps=steps, warmup=warmup)
            if name not in best or np.median(t) < np.median(best[name]):
                best[name] = t
    return best


class StepTimeDisplay(Display):
    """Bars of the time of each training step, one colour per pipeline.

    ``times`` maps a pipeline name to its step times in seconds; ``medians``
    and ``ratio(a, b)`` summarize them.

    Attributes (after :meth:`plot`)
    ----------
    bars_ : dict, pipeline name -> BarContainer
    median_lines_ : dict, pipeline name -> Line2D (dashed)
    ax_, figure_ : the Axes and Figure
    """

    def __init__(self, times: Mapping[str, Sequence[float]]):
        self.times = {str(k): np.asarray(v, dtype=float) for k, v in times.items()}

    @classmethod
    def from_pipelines(cls, model_fn: Callable[[], object], datasets: Mapping[str, tf.data.Dataset], *,
                       steps: int = 20, warmup: int = 6, rounds: int = 1) -> "StepTimeDisplay":
        """Time ``steps`` steps of a fresh ``model_fn()`` on each dataset, in the same run."""
        return cls(compare_step_times(model_fn, datasets, steps=steps, warmup=warmup, rounds=rounds))

    @property
    def medians(self) -> dict[str, float]:
        return {k: float(np.median(v)) for k, v in self.times.items()}

    def ratio(self, slow: str, fast: str) -> float:
        """How many times slower the median step of ``slow`` is than that of ``fast``."""
        return self.medians[slow] / self.medians[fast]

    def verdict(self, reference: str, name: str):
        """The course's verdict helper on the steps of ``name`` against those of ``reference``.

        A :class:`tutor.verdict.Comparison`: ``.verdict`` is "faster", "slower" or
        "no clear difference" (decided from the medians and the spread of the
        steps), and printing it gives one sentence with the numbers.

        >>> d = StepTimeDisplay({"compute only": [0.010, 0.011, 0.010], "slow": [0.030, 0.031, 0.029]})
        >>> d.verdict("compute only", "slow").verdict
        'slower'
        """
        from .verdict import Comparison

        for key in (reference, name):
            if key not in self.times:
                raise KeyError(_("StepTimeDisplay.verdict: no pipeline named {key!r}; the names are "
                                 "{names}.").format(key=key, names=list(self.times)))
        # Translators: a pipeline's name in a verdict, e.g. "prefetch steps took 12.0 ms against ...".
        steps = _("{name} steps")
        return Comparison(self.times[reference], self.times[name],
                          labels=(steps.format(name=reference), steps.format(name=name)))

    def __str__(self) -> str:
        return "\n".join(_("{name}: median {ms:.1f} ms per step").format(name=k, ms=m * 1000)
                         for k, m in self.medians.items())

    __repr__ = __str__

    def plot(self, *, ax=None, title: str | None = None, figsize=(8, 3.5)) -> "StepTimeDisplay":
        """Draw grouped bars (x: step, y: milliseconds) and dashed median lines; returns ``self``."""
        self.figure_, self.ax_ = new_axes(ax, figsize)
        n = len(self.times)
        width = 0.8 / max(n, 1)
        self.bars_, self.median_lines_ = {}, {}
        for i, (name, t) in enumerate(self.times.items()):
            x = np.arange(len(t)) + (i - (n - 1) / 2) * width
            self.bars_[name] = self.ax_.bar(x, t * 1000, width=width, color=style.color(i), label=name)
            self.median_lines_[name] = self.ax_.axhline(np.median(t) * 1000, color=style.color(i), ls="--", lw=1)
        from matplotlib.ticker import MaxNLocator

        self.ax_.xaxis.set_major_locator(MaxNLocator(integer=True))
        self.ax_.set_xlabel(_("training step (after warm-up)"))
        self.ax_.set_ylabel(_("step time (ms)"))
        self.ax_.set_title(title if title is not None else
                           _("Time per training step: lower is better (dashed: median)"))
        self.ax_.legend(loc="upper right", fontsize="small")
        return self


# Translators: the axes of a training curve; the legend keeps Keras's metric names (loss, val_loss, accuracy).
_AXIS_NAMES = {"loss": N_("loss"), "accuracy": N_("accuracy")}


class HistoryDisplay(Display):
    """The training curve: loss (and accuracy) per epoch from ``model.fit``'s History.

    Attributes (after :meth:`plot`)
    ----------
    lines_ : dict, metric name ("loss", "val_loss", "accuracy", ...) -> Line2D
    acc_ax_ : the twin Axes that holds the accuracy curves (None without accuracy)
    ax_, figure_ : the Axes (loss) and Figure
    """

    def __init__(self, history: Mapping[str, Sequence[float]]):
        self.history = {k: [float(v) for v in vals] for k, vals in history.items()}

    @classmethod
    def from_history(cls, history) -> "HistoryDisplay":
        """Accept the ``History`` object that ``model.fit`` returns, or its ``.history`` dict."""
        return cls(getattr(history, "history", history))

    def plot(self, *, ax=None, title: str | None = None, figsize=(8, 3.2)) -> "HistoryDisplay":
        """Loss on the left axis, accuracy on a twin axis; validation dashed; returns ``self``."""
        self.figure_, self.ax_ = new_axes(ax, figsize)
        self.lines_ = {}
        self.acc_ax_ = None
        epochs = None
        for i, base in enumerate(["loss", "accuracy"]):
            target = self.ax_ if base == "loss" else self.ax_.twinx()
            for prefix, ls in (("", "-"), ("val_", "--")):
                key = prefix + base
                if key in self.history:
                    epochs = np.arange(1, len(self.history[key]) + 1)
                    (self.lines_[key],) = target.plot(epochs, self.history[key], ls=ls, marker="o",
                                                      color=style.color(4 if i == 0 else 0), label=key)
            target.set_ylabel(_(_AXIS_NAMES[base]))
            if base == "accuracy":
                self.acc_ax_ = target
        self.ax_.set_xlabel(_("epoch"))
        if epochs is not None:
            self.ax_.set_xticks(epochs)
        handles = list(self.lines_.values())
        self.ax_.legend(handles, [h.get_label() for h in handles], loc="center right", fontsize="small")
        self.ax_.set_title(title if title is not None else
                           _("Training curve: loss falls, accuracy rises (dashed: validation)"))
        return self


# ------------------------------------------------------------- baselines
def without_auto_speedups(dataset: tf.data.Dataset) -> tf.data.Dataset:
    """Turn off what TensorFlow speeds up on its own, for an honest slow baseline.

    Current TensorFlow injects a ``prefetch``, makes plain ``map`` calls
    parallel and autotunes buffers; this applies
    :func:`tutor.timeline.naive_options`, which switches all of that off.
    """
    from .timeline import naive_options

    return dataset.with_options(naive_options())
