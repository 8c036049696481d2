"""Pipeline: a tf.data pipeline written with named stages, so that it can be recorded.

A finished ``tf.data.Dataset`` does not say where one stage ends and the next
begins, so :func:`tutor.timeline.record` needs the pipeline as a list of
steps. :class:`Pipeline` reads like tf.data::

    pipe = (Pipeline(tf.data.Dataset.range(20))
            .map(decode, name="decode", num_parallel_calls=2)
            .batch(4)
            .prefetch(1))
    ds = pipe.build()                 # the plain tf.data.Dataset
    tl = record(pipe, steps=5, step_time=0.01)

When recorded, every element carries a small dict of timestamps (its *trace*)
next to its value: each named ``map`` takes ``tf.timestamp()`` right before and
right after the user function, inside the same ``map``. The trace is removed
before the consumer sees the element.

``tf.timestamp`` is a stateful op, so TensorFlow's automatic
``map_parallelization`` (which only touches stateless functions) leaves a
recorded ``map`` sequential. :func:`naive_options` switches that rewrite off
anyway; with default options, give ``num_parallel_calls`` explicitly.
"""
from __future__ import annotations

import time
from typing import Any, Callable

import tensorflow as tf

from ..i18n import gettext as _

#: Element ids of an interleaved inner dataset: outer id * ID_STRIDE + position.
ID_STRIDE = 1 << 20


def naive_options() -> tf.data.Options:
    """tf.data options for a fair "naive" baseline: no automatic speed-ups.

    Current TensorFlow quietly improves pipelines: it autotunes buffer sizes and
    parallelism, injects a ``prefetch`` at the end (``inject_prefetch``), makes
    plain ``map`` calls parallel (``map_parallelization``) and batches in
    parallel (``parallel_batch``). To see what ``prefetch`` or a parallel
    ``map`` really buys, the baseline must have none of that.

    >>> ds = tf.data.Dataset.range(3).with_options(naive_options())
    >>> ds.options().experimental_optimization.inject_prefetch
    False
    """
    options = tf.data.Options()
    options.autotune.enabled = False
    opt = options.experimental_optimization
    for name in ("inject_prefetch", "map_parallelization", "parallel_batch", "map_and_batch_fusion",
                 "seq_interleave_prefetch", "filter_parallelization"):
        if hasattr(opt, name):  # not every TensorFlow version has every switch
            setattr(opt, name, False)
    return options


def call_like_map(fn: Callable, value: Any) -> Any:
    """Call ``fn`` the way tf.data's map does: a tuple is spread over the arguments."""
    return fn(*value) if isinstance(value, tuple) else fn(value)


class Pipeline:
    """A tf.data pipeline built from named stages, which :func:`record` can instrument.

    Parameters
    ----------
    source : tf.data.Dataset
        Where elements come from (file names, ids, arrays ...).
    name : str
        Name of the source stage.
    options : tf.data.Options, optional
        Applied to the finished dataset, for example :func:`naive_options`.

    Examples
    --------
    >>> pipe = Pipeline(tf.data.Dataset.range(6)).map(lambda x: x * 2, name="double").batch(3)
    >>> [b.tolist() for b in pipe.build().as_numpy_iterator()]
    [[0, 2, 4], [6, 8, 10]]
    >>> pipe.stages
    ['double', 'batch']
    """

    def __init__(self, source: tf.data.Dataset, *, name: str = "source", options: tf.data.Options | None = None):
        if not isinstance(source, tf.data.Dataset):
            raise TypeError(
                _("Pipeline expects a tf.data.Dataset as its source, got {type}; for example "
                  "Pipeline(tf.data.Dataset.range(20)) or Pipeline.from_generator(gen, output_signature).")
                .format(type=type(source).__name__)
            )
        self._source = source
        self._generator = None
        self.source_name = str(name)
        self._ops: list[tuple] = []
        self._options = options

    @classmethod
    def from_generator(cls, generator: Callable[[], Any], output_signature: Any, *, name: str = "generator",
                       options: tf.data.Options | None = None) -> "Pipeline":
        """Start from a Python generator, like ``tf.data.Dataset.from_generator``.

        When recorded, the time each ``next()`` of the generator takes is the
        work of the ``name`` stage.

        >>> pipe = Pipeline.from_generator(lambda: iter(range(3)), tf.TensorSpec((), tf.int64))
        >>> [int(v) for v in pipe.build().as_numpy_iterator()]
        [0, 1, 2]
        """
        if not callable(generator):
            raise TypeError(_("Pipeline.from_generator expects a callable that returns a new generator, "
                              "such as `lambda: iter(range(10))`, got {type}.").format(type=type(generator).__name__))
        self = cls(tf.data.Dataset.range(0), name=name, options=options)
        self._generator = (generator, output_signature)
        return self

    # ------------------------------------------------------------- the stages
    def _add(self, *op) -> "Pipeline":
        new = Pipeline.__new__(Pipeline)
        new.__dict__.update(self.__dict__)
        new._ops = self._ops + [op]
        return new

    def map(self, fn: Callable, *, name: str | None = None, num_parallel_calls: int | None = None,
            deterministic: bool | None = None) -> "Pipeline":
        """``Dataset.map``; its work is recorded as stage ``name``."""
        if not callable(fn):
            raise TypeError(_("Pipeline.map expects a function, got {type}.").format(type=type(fn).__name__))
        if name is None:  # a free name from the function's own name: decode, decode_2, ...
            base = getattr(fn, "__name__", "map").strip("<>") or "map"
            name, k = base, 2
            while name in self.stages or name == self.source_name or name == "consumer":
                name, k = f"{base}_{k}", k + 1
        return self._add("map", fn, self._unique(name), num_parallel_calls, deterministic)

    def interleave(self, fn: Callable, *, cycle_length: int | None = None, block_length: int | None = None,
                   num_parallel_calls: int | None = None, deterministic: bool | None = None,
                   name: str = "interleave") -> "Pipeline":
        """``Dataset.interleave``: ``fn`` turns one element into a dataset.

        Recorded as stage ``name``: a bar runs from the moment an inner dataset
        was asked for its next element to the moment that element came out.
        """
        if not callable(fn):
            raise TypeError(_("Pipeline.interleave expects a function returning a tf.data.Dataset, got {type}.")
                            .format(type=type(fn).__name__))
        return self._add("interleave", fn, self._unique(name), cycle_length, block_length, num_parallel_calls,
                         deterministic)

    def batch(self, batch_size: int, *, drop_remainder: bool = False, name: str = "batch") -> "Pipeline":
        """``Dataset.batch``; recorded as the time from a batch's first to its last element arriving."""
        return self._add("batch", int(batch_size), bool(drop_remainder), self._unique(name))

    def prefetch(self, buffer_size: int) -> "Pipeline":
        """``Dataset.prefetch`` (a buffer, so it has no row of its own)."""
        return self._add("prefetch", buffer_size)

    def cache(self, filename: str = "") -> "Pipeline":
        """``Dataset.cache``; stages before it show no work once the cache is complete."""
        return self._add("cache", filename)

    def shuffle(self, buffer_size: int, seed: int | None = None, reshuffle_each_iteration: bool = True) -> "Pipeline":
        """``Dataset.shuffle``."""
        return self._add("shuffle", buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count: int | None = None) -> "Pipeline":
        """``Dataset.repeat``."""
        return self._add("repeat", count)

    def take(self, count: int) -> "Pipeline":
        """``Dataset.take``."""
        return self._add("take", count)

    def with_options(self, options: tf.data.Options) -> "Pipeline":
        """Apply ``options`` (for example :func:`naive_options`) to the finished dataset."""
        new = Pipeline.__new__(Pipeline)
        new.__dict__.update(self.__dict__)
        new._options = options
        return new

    def _unique(self, name: str) -> str:
        name = str(name)
        if name == "consumer" or name in self.stages or name == self.source_name:
            raise ValueError(_("Stage name {name!r} is already used in this pipeline; give each stage its own name=.")
                             .format(name=name))
        return name

    @property
    def stages(self) -> list[str]:
        """Names of the stages that get a row in a recorded timeline."""
        names = [self.source_name] if self._generator else []
        return names + [op[2] if op[0] != "batch" else op[3] for op in self._ops if op[0] in ("map", "interleave", "batch")]

    def __repr__(self) -> str:
        parts = [f"Pipeline({self.source_name})"]
        for op in self._ops:
            parts.append(f"{op[0]}({op[2]!r})" if op[0] in ("map", "interleave") else op[0])
        return ".".join(parts)

    # ---------------------------------------------------------------- building
    def build(self, *, instrument: bool = False) -> tf.data.Dataset:
        """The tf.data.Dataset. With ``instrument=True`` each element is ``(value, trace)``."""
        ds = self._build_source(instrument)
        for op in self._ops:
            ds = _APPLY[op[0]](ds, op, instrument)
        if self._options is not None:
            ds = ds.with_options(self._options)
        return ds

    def _build_source(self, instrument: bool) -> tf.data.Dataset:
        if self._generator is None:
            ds = self._source
            if instrument:
                ds = ds.enumerate().map(lambda i, v: (v, {"id": i}))
            return ds
        generator, signature = self._generator
        if not instrument:
            return tf.data.Dataset.from_generator(generator, output_signature=signature)
        clock = tf.TensorSpec((), tf.float64)

        def timed():
            iterator = iter(generator())
            while True:
                t0 = time.time()
                try:
                    value = next(iterator)
                except StopIteration:
                    return
                yield value, (t0, time.time())

        name = self.source_name
        ds = tf.data.Dataset.from_generator(timed, output_signature=(signature, (clock, clock)))
        return ds.enumerate().map(lambda i, v: (v[0], {"id": i, f"{name}:start": v[1][0], f"{name}:end": v[1][1]}))

    def batch_inputs(self) -> dict[str, str | None]:
        """For each batch stage, the stamped stage just before it (None when a cache sits between)."""
        result, last = {}, (self.source_name if self._generator else None)
        for op in self._ops:
            if op[0] in ("map", "interleave"):
                last = op[2]
            elif op[0] == "cache":
                last = None
            elif op[0] == "batch":
                result[op[3]] = last
                last = None
        return result


# ---------------------------------------------------------------- the operations
def _map(ds, op, instrument):
    _unused, fn, name, npc, det = op
    if not instrument:
        return ds.map(fn, num_parallel_calls=npc, deterministic=det)

    def timed(value, trace):
        t0 = tf.timestamp()
        with tf.control_dependencies([t0]):  # every op of fn runs after t0
            out = call_like_map(fn, value)
        with tf.control_dependencies(tf.nest.flatten(out, expand_composites=True)):
            t1 = tf.timestamp()
        trace = dict(trace)
        trace[f"{name}:start"], trace[f"{name}:end"] = t0, t1
        return out, trace

    return ds.map(timed, num_parallel_calls=npc, deterministic=det)


def _interleave(ds, op, instrument):
    _unused, fn, name, cycle, block, npc, det = op
    if not instrument:
        return ds.interleave(fn, cycle_length=cycle, block_length=block, num_parallel_calls=npc, deterministic=det)

    def opened(value, trace):
        inner = call_like_map(fn, value)
        if not isinstance(inner, tf.data.Dataset):
            raise TypeError(_("The function given to interleave ({name!r}) must return a tf.data.Dataset.")
                            .format(name=name))
        # zip asks its inputs in order: first the clock (the moment the element is requested), then the inner
        # dataset, which does the work. A map after zip stamps the moment the element came out.
        clock = tf.data.Dataset.from_tensors(tf.constant(0, tf.int64)).repeat().map(lambda _unused: tf.timestamp())

        def stamp(t0, numbered):
            k, v = numbered
            tr = dict(trace)
            tr["id"] = trace["id"] * ID_STRIDE + k
            tr[f"{name}:start"], tr[f"{name}:end"] = t0, tf.timestamp()
            return v, tr

        return tf.data.Dataset.zip((clock, inner.enumerate())).map(stamp)

    return ds.interleave(opened, cycle_length=cycle, block_length=block, num_parallel_calls=npc, deterministic=det)


_APPLY = {
    "map": _map,
    "interleave": _interleave,
    "batch": lambda ds, op, ins: ds.batch(op[1], drop_remainder=op[2]),
    "prefetch": lambda ds, op, ins: ds.prefetch(op[1]),
    "cache": lambda ds, op, ins: ds.cache(op[1]),
    "shuffle": lambda ds, op, ins: ds.shuffle(op[1], seed=op[2], reshuffle_each_iteration=op[3]),
    "repeat": lambda ds, op, ins: ds.repeat(op[1]),
    "take": lambda ds, op, ins: ds.take(op[1]),
}
