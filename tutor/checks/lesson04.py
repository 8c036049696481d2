"""Lesson 04 exercises: map returning (image, label) pairs, py_function with its shape restored, counting calls.

>>> from tutor.checks import lesson04 as ex
>>> ex.q1.check(...).status
'unattempted'
"""
from __future__ import annotations

from numbers import Real

import numpy as np
import tensorflow as tf

from ..doctor import PY_FUNCTION_OPS
from ..i18n import N_
from ..i18n import gettext as _
from ..reading import read
from . import _read, _stages
from ._core import fail, sentences, shorten
from .questions import Question


__all__ = ["smooth", "count_calls", "q1", "q2", "q3"]

IMAGE_SHAPE = (28, 28)


def smooth(image) -> np.ndarray:
    """Blur one grey image ``[H, W]`` with NumPy: each pixel becomes the mean of its 3x3 neighbourhood.

    Edge pixels repeat outwards. Plain NumPy, so inside ``map`` it needs
    ``tf.py_function`` (which hands it real values).

    >>> np.round(smooth(np.eye(3, dtype=np.float32)).astype(float), 2).tolist()
    [[0.56, 0.33, 0.11], [0.33, 0.33, 0.33], [0.11, 0.33, 0.56]]
    """
    x = np.asarray(image, np.float32)
    if x.ndim != 2:
        raise ValueError(_("smooth expects one grey image [H, W], got shape {shape}.").format(shape=x.shape))
    h, w = x.shape
    padded = np.pad(x, 1, mode="edge")
    total = sum(padded[i:i + h, j:j + w] for i in range(3) for j in range(3))
    return (total / 9.0).astype(np.float32)


def _refuse_stages(stages, kinds: dict[str, str]) -> None:
    for s in stages:
        if s.kind in kinds:
            fail(_(kinds[s.kind]))


def _source(stages, what: str, ok) -> tf.data.Dataset:
    """The pipeline's source; fail unless ``ok(its spec)``, saying to start from ``what`` (translated)."""
    source = stages[0].dataset
    spec = None if source is None else source.element_spec
    if source is None or not ok(spec):
        # Translators: {what} is the lesson's dataset to start from, described; {spec} an element_spec as code.
        fail(_("start from {what}; your pipeline starts from a dataset with element_spec {spec}.").format(
            what=what, spec=_spec_text(spec)))
    return source


def _spec_text(spec) -> str:
    return shorten(spec, 160)


# --------------------------------------------------------------------------- q1
_Q1_STAGES = {
    "batch": N_("leave batch() out: each element should be one (image, label) pair, not a batch of them."),
    "shuffle": N_("leave shuffle() out: keep the elements in the order of records."),
    "repeat": N_("leave repeat() out: one pass over records is what the checker reads."),
}


def _is_records(spec) -> bool:
    return isinstance(spec, dict) and {"pixels", "digit"} <= set(spec)


def _check_q1(answer) -> str:
    ds = _read.dataset(answer, _("a tf.data.Dataset built with records.map(...)"))
    stages = _stages.stages(ds)
    source = _source(stages, _("`records` (dicts with 'pixels' and 'digit') and call records.map(...)"), _is_records)
    _refuse_stages(stages, _Q1_STAGES)
    spec = ds.element_spec
    if isinstance(spec, dict):
        fail(_("the elements are still dicts (keys {keys}). Your function must return a tuple: "
               "return (image, label).").format(keys=sorted(spec)))
    if not (isinstance(spec, tuple) and len(spec) == 2 and all(isinstance(s, tf.TensorSpec) for s in spec)):
        fail(_("each element should be a pair (image, label); its element_spec is {spec}.").format(
            spec=_spec_text(spec)))
    image, label = spec
    if image.shape.rank == 0 and (label.shape.rank or 0) >= 2:
        fail(_("the pair is the wrong way round: the image comes first, then the label: return (image, label)."))
    _check_image_spec(image)
    if label.dtype != tf.int64 or label.shape.rank != 0:
        # Translators: {dtype} is a TensorFlow dtype's name; {shape} a TensorShape as TensorFlow prints it.
        fail(_("the label should be the digit unchanged, an int64 number; it is {dtype} with shape "
               "{shape}. Return d['digit'] as it is.").format(dtype=label.dtype.name, shape=label.shape))
    got = _read.elements(ds, 1000)
    originals = _read.elements(source, 1000)
    if not got:
        fail(_("your dataset produced no elements: is there a filter() or take(0) in it?"))
    if len(got) != len(originals):
        fail(_("your dataset has {n} elements, records has {records}: keep every element once "
               "(no filter, take or skip).").format(n=len(got), records=len(originals)))
    labels = [int(lab) for _unused, lab in got]
    digits = [int(d["digit"]) for d in originals]
    if labels != digits:
        if sorted(labels) == sorted(digits):
            fail(_("the labels come out in a different order than in records: keep the order (no shuffle)."))
        k = next(i for i, (a, b) in enumerate(zip(labels, digits)) if a != b)
        fail(_("element {k} has label {label}, but records says {digit}: keep d['digit'] as it is.").format(
            k=k, label=labels[k], digit=digits[k]))
    for k, ((img, _unused), d) in enumerate(zip(got, originals)):
        expected = np.asarray(d["pixels"], np.float32)[..., None] / 255.0
        if not np.allclose(img, expected, atol=1e-5):
            if np.allclose(img, expected * 255.0, atol=1e-3):
                fail(_("element {k}: the pixels go up to {largest:g}. Divide by 255 so they lie between 0 and "
                       "1.").format(k=k, largest=float(np.max(img))))
            fail(_("element {k}: the image differs from d['pixels'] / 255 (largest difference "
                   "{difference:.3g}). Scale the pixels, nothing else.").format(
                k=k, difference=float(np.max(np.abs(img - expected)))))
    # Translators: {shape} is a shape as Python writes it: (28, 28, 1).
    return _("{n} pairs (image float32 {shape} in [0, 1], label int64), in the order of "
             "records: ready for a Keras model.").format(n=len(got), shape=tuple(image.shape.as_list()))


def _check_image_spec(image: tf.TensorSpec) -> None:
    if image.dtype == tf.uint8 or image.dtype.is_integer:
        fail(_("the image is still {dtype}: convert it to float32 and scale it, for example "
               "tf.cast(d['pixels'], tf.float32) / 255.").format(dtype=image.dtype.name))
    if image.dtype != tf.float32:
        fail(_("the image is {dtype}; the exercise asks for float32: tf.cast(..., tf.float32).").format(
            dtype=image.dtype.name))
    shape = image.shape
    if shape.rank is None:
        fail(_("the image's static shape is unknown; its element_spec should say shape (28, 28, 1)."))
    if shape.rank == 4 or (shape.rank == 3 and shape[0] is None):
        fail(_("the image has shape {shape}: that looks like a batch. Keep one image per element.").format(shape=shape))
    if shape.as_list() == list(IMAGE_SHAPE):
        fail(_("the image has shape (28, 28): add a channel axis at the end, image[..., None] or "
               "tf.expand_dims(image, -1), to get (28, 28, 1)."))
    if shape.as_list() != [*IMAGE_SHAPE, 1]:
        fail(_("the image has shape {shape}; the exercise asks for (28, 28, 1).").format(shape=shape))


q1 = Question(
    N_("Exercise 1: from dicts to (image, label) pairs"),
    _check_q1,
    hints=[
        N_("records.map(f) calls f with ONE argument, the whole dict: d['pixels'] and d['digit'] are its parts."),
        N_("Return a tuple from f: return (image, label). The image needs three changes: float32, divided by 255, "
           "and a channel axis at the end."),
        N_("tf.cast(d['pixels'], tf.float32) / 255 scales it; image[..., None] adds the channel axis."),
    ],
    solution="""
images, labels = tutor.data.digits(100, seed=4)
records = tf.data.Dataset.from_tensor_slices({"pixels": images, "digit": labels})

def to_pair(d):
    image = tf.cast(d["pixels"], tf.float32) / 255.0   # float32 in [0, 1]
    return image[..., None], d["digit"]                 # (28, 28, 1) and the label as it is

answer = records.map(to_pair)
""",
)


# --------------------------------------------------------------------------- q2
_Q2_STAGES = {
    "batch": N_("leave batch() out: each element should be one smoothed image [28, 28]."),
    "shuffle": N_("leave shuffle() out: keep the images in the order of floats."),
    "repeat": N_("leave repeat() out: one pass over floats is what the checker reads."),
}


def _is_floats(spec) -> bool:
    return isinstance(spec, tf.TensorSpec) and spec.dtype == tf.float32 and spec.shape.as_list() == list(IMAGE_SHAPE)


def _check_q2(answer) -> str:
    ds = _read.dataset(answer, _("a tf.data.Dataset built with floats.map(...)"))
    stages = _stages.stages(ds)
    source = _source(stages, _("`floats` (float32 images [28, 28]) and call floats.map(...)"), _is_floats)
    _refuse_stages(stages, _Q2_STAGES)
    spec = ds.element_spec
    if not isinstance(spec, tf.TensorSpec):
        fail(_("each element should be one image tensor; its element_spec is {spec}. Return only the "
               "smoothed image from your function.").format(spec=_spec_text(spec)))
    if not any(s.fn_ops & PY_FUNCTION_OPS for s in stages if s.kind == "map"):
        fail(_("there is no tf.py_function in your pipeline. ex.smooth is NumPy code, so inside map it needs real "
               "values: call it as tf.py_function(ex.smooth, [image], Tout=tf.float32). (Rewriting it with "
               "TensorFlow ops is a fine idea in real code, but this exercise practises py_function.)"))
    if spec.shape.rank is None:
        fail(_("the static shape is lost: answer.element_spec says shape=<unknown>, because py_function cannot know "
               "what shape the Python code returns. Put it back after the py_function with "
               "tf.ensure_shape(image, [28, 28])."))
    if not spec.shape.is_fully_defined():
        fail(_("the static shape is only partly known ({shape}): promise the whole shape, [28, 28].").format(
            shape=spec.shape))
    if spec.shape.as_list() != list(IMAGE_SHAPE):
        fail(_("element_spec promises shape {shape}, but ex.smooth returns images of shape (28, 28): promise "
               "[28, 28] (a wrong promise fails as soon as the elements are read).").format(shape=spec.shape))
    if spec.dtype != tf.float32:
        fail(_("the elements are {dtype}, but ex.smooth returns float32: use Tout=tf.float32.").format(
            dtype=spec.dtype.name))
    got = _read.elements(ds, 1000)
    originals = _read.elements(source, 1000)
    if len(got) != len(originals):
        fail(_("your dataset has {n} images, floats has {floats}: keep every image once.").format(
            n=len(got), floats=len(originals)))
    for k, (img, original) in enumerate(zip(got, originals)):
        expected = smooth(original)
        if not np.allclose(img, expected, atol=1e-5):
            if np.allclose(img, original, atol=1e-6):
                fail(_("image {k} is not smoothed: it is the image of floats unchanged. Call ex.smooth inside "
                       "the py_function.").format(k=k))
            if np.allclose(img, smooth(expected), atol=1e-5):
                fail(_("image {k} is smoothed twice: call ex.smooth once per image.").format(k=k))
            fail(_("image {k} differs from ex.smooth(image) (largest difference "
                   "{difference:.3g}): apply ex.smooth and nothing else.").format(
                k=k, difference=float(np.max(np.abs(img - expected)))))
    # Translators: {shape} is a shape as a Python list: [28, 28].
    return _("{n} smoothed images, and element_spec knows their shape again {shape}: "
             "py_function ran your NumPy code, and the static shape it could not know is promised again.").format(
        n=len(got), shape=spec.shape.as_list())


q2 = Question(
    N_("Exercise 2: NumPy inside map, shape restored"),
    _check_q2,
    hints=[
        N_("Inside map the image is a symbolic tensor with no values, so ex.smooth cannot run on it directly. "
           "tf.py_function(ex.smooth, [image], Tout=tf.float32) runs it with real values, once per element."),
        N_("After the py_function, answer.element_spec shows shape=<unknown>: py_function cannot know what your "
           "Python code returns."),
        N_("Wrap the result: tf.ensure_shape(tf.py_function(...), [28, 28])."),
    ],
    solution="""
images = tutor.data.digits(64, seed=5)[0]
floats = tf.data.Dataset.from_tensor_slices(images.astype("float32") / 255)
from tutor.checks.lesson04 import smooth

def smooth_in_map(image):
    blurred = tf.py_function(smooth, [image], Tout=tf.float32)   # NumPy, once per element
    return tf.ensure_shape(blurred, [28, 28])                     # the static shape, back again

answer = floats.map(smooth_in_map)
""",
)


# --------------------------------------------------------------------------- q3
N_ELEMENTS, N_PASSES = 5, 3


def count_calls(n_elements: int = N_ELEMENTS, passes: int = N_PASSES) -> tuple[int, int]:
    """Run q3's experiment for real: ``(times outer ran, times inner ran)``.

    ``outer`` is the function given to ``map``; ``inner`` runs inside its
    ``tf.py_function``. The dataset ``range(n_elements).map(outer)`` is read to
    the end ``passes`` times.

    >>> count_calls(2, 2)
    (1, 4)
    """
    counts = {"outer": 0, "inner": 0}

    def inner(x):
        counts["inner"] += 1
        return x + 1

    def outer(x):
        counts["outer"] += 1
        return tf.py_function(inner, [x], Tout=tf.int64)

    ds = tf.data.Dataset.range(n_elements).map(outer)
    for _unused in range(passes):
        read(ds, max_elements=n_elements, where="lesson04.count_calls")
    return counts["outer"], counts["inner"]


def _pair(answer) -> tuple[int, int]:
    if isinstance(answer, tf.data.Dataset) or callable(answer):
        fail(_("write down your prediction as two numbers, answer = (outer_calls, inner_calls); no need to build "
               "anything."))
    if isinstance(answer, str):
        fail(_("answer with two whole numbers in a tuple, e.g. answer = (2, 7), not the text {answer}.").format(
            answer=shorten(answer, 40)))
    values = list(answer) if isinstance(answer, (tuple, list, np.ndarray)) else None
    if values is None or len(values) != 2:
        fail(_("answer with a pair of whole numbers, answer = (outer_calls, inner_calls); got {answer}.").format(
            answer=shorten(answer, 60)))
    out = []
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (Real, np.number)) or not np.isfinite(float(v)) \
                or float(v) != int(v):
            fail(_("both counts are whole numbers, like (2, 7); got {answer}.").format(answer=shorten(answer, 60)))
        if v < 0:
            fail(_("a count cannot be negative."))
        out.append(int(v))
    return out[0], out[1]


def _check_q3(answer) -> str:
    outer, inner = _pair(answer)
    true_outer, true_inner = count_calls()
    problems = []
    if outer != true_outer:
        problems.append(_("outer is plain Python given to map: map() calls it when the dataset is built, to trace "
                          "it into a graph, and reading elements runs that graph without calling outer again."))
    if inner != true_inner:
        if inner == N_ELEMENTS:
            problems.append(_("inner runs for every element, yes, but the loop reads ds {passes} times: every pass "
                              "is a new iterator (lesson 01) that runs the map again for each element.").format(
                passes=N_PASSES))
        elif inner in (0, 1):
            problems.append(_("inner runs inside tf.py_function, which calls Python for every element it produces, "
                              "in every pass, not just once."))
        else:
            problems.append(_("inner runs once per element in every pass: count the elements ({elements}) and "
                              "the passes ({passes}).").format(elements=N_ELEMENTS, passes=N_PASSES))
    if problems:
        fail(sentences(*problems, _("Try it: add a counter to each function and run the cell.")))
    return _("outer ran {outer} time (the trace, when map() was called); inner ran {inner} times "
             "({elements} elements x {passes} passes).").format(outer=true_outer, inner=true_inner,
                                                                 elements=N_ELEMENTS, passes=N_PASSES)


q3 = Question(
    N_("Exercise 3: how often does Python run?"),
    _check_q3,
    hints=[
        N_("Section 2 counted the calls of a function given to map: when did they happen?"),
        N_("py_function is the exception: its Python function runs at read time, for each element."),
        N_("Each `for element in ds` loop is one pass over all the elements."),
    ],
    solution=f"""
answer = ({1}, {N_ELEMENTS * N_PASSES})   # outer: once, when map() traces it; inner: {N_ELEMENTS} elements x {N_PASSES} passes
""",
    takes_function=True,  # _pair refuses a function with its own sentence: predict, do not build
)
