"""Exercises for lesson 11: real sources in production, and a stand-in its demonstrations use.

* :func:`first_waits_for_second`: a map function whose element 0 finishes only after element 1.

>>> from tutor.checks import lesson11 as ex
>>> ex.q1.check([5, 7]).status
'not yet'
"""
from __future__ import annotations

import atexit
import glob
import math
import os
import shutil
import tempfile
import threading

import tensorflow as tf

from ..data import class_folders, weather_csv
from . import _read
from ._core import fail, shorten
from .questions import PredictQuestion, Question

#: The global batch size of the lesson's two-replica examples.
GLOBAL_BATCH = 4


# ----------------------------------------------------------------------- stand-ins for the demonstrations
def first_waits_for_second():
    """A map function (on int64 ids) whose element 0 finishes only after element 1 has finished.

    It stands in for one slow element without depending on timing. Element 0
    waits until element 2 starts; with ``num_parallel_calls=2``, element 2
    starts only once element 1 has finished, so element 1 is always ready
    first. Make a new one for every pipeline.
    """
    third_started = threading.Event()

    def work(x):
        if int(x) == 2:
            third_started.set()
        if int(x) == 0:
            third_started.wait(timeout=10)  # never hangs, even with a single thread
        return x

    return lambda x: tf.py_function(work, [x], tf.int64)


# ----------------------------------------------------------------------- q1, q2: predictions
def resumed_epoch() -> tf.data.Dataset:
    """The lesson's checkpoint demo, run for real: the batches a fresh iterator yields after the restore."""
    train = tf.data.Dataset.range(10).shuffle(10, seed=0).batch(2)
    folder = tempfile.mkdtemp(prefix="tutor-ckpt-")
    try:
        iterator = iter(train)
        next(iterator), next(iterator)
        path = tf.train.Checkpoint(iterator=iterator).save(os.path.join(folder, "ckpt"))
        next(iterator), next(iterator)  # the job went on a little, then stopped
        fresh = iter(train)
        tf.train.Checkpoint(iterator=fresh).restore(path)
        rest = [b.numpy() for b in fresh]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return tf.data.Dataset.from_tensor_slices(tf.ragged.constant(rest)).map(lambda b: b)


def _two_replicas():
    if len(tf.config.list_logical_devices("CPU")) < 2:
        fail("this question runs two replicas on the two logical CPUs that the setup cell creates, and this kernel "
             "has only one. Restart the kernel and run the notebook from the top.")
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def global_batch_mistake() -> tf.data.Dataset:
    """What each replica gets when ``dataset_fn`` batches with the global batch size: step 0, replicas 0 and 1."""
    strategy = _two_replicas()
    dist = strategy.distribute_datasets_from_function(lambda context: tf.data.Dataset.range(12).batch(GLOBAL_BATCH))
    first_step = next(iter(dist))
    return tf.data.Dataset.from_tensor_slices([p.numpy() for p in strategy.experimental_local_results(first_step)])


q1 = PredictQuestion(
    "q1 (predict: resuming from a checkpoint)", resumed_epoch, truth=lambda batches: batches[0],
    ask="the first batch the restored iterator gives, as a list", code="the training loop above",
    hints=["The checkpoint was saved after step 1. What the job did after that is lost.",
           "The shuffle buffer's content is in the checkpoint: the epoch goes on in the same order."],
)

q2 = PredictQuestion(
    "q2 (predict: the global batch in dataset_fn)", global_batch_mistake, truth=lambda parts: parts[1],
    ask="the ids replica 1 gets at step 0, as a list",
    code="strategy.distribute_datasets_from_function(lambda context: tf.data.Dataset.range(12).batch(4))",
    hints=["distribute_datasets_from_function does not split batches: each replica takes whole batches of the "
           "dataset that dataset_fn returns, in turn.", "Here each of those batches holds 4 ids."],
)


# ----------------------------------------------------------------------- q3, q4: the lesson's files
_files: dict = {}


def lesson_files() -> dict:
    """What the lesson's setup cell makes, for running q3's and q4's solutions outside the notebook.

    ``{"os", "csv_path", "image_root", "class_names"}``, in a folder of its own that is removed when Python exits.
    """
    if not _files or not os.path.isdir(_files["image_root"]):
        workdir = tempfile.mkdtemp(prefix="tutor-lesson11-")
        atexit.register(shutil.rmtree, workdir, ignore_errors=True)
        image_root = class_folders(os.path.join(workdir, "digits"), n=60, classes=(0, 1, 2))
        _files.update(os=os, csv_path=weather_csv(os.path.join(workdir, "weather.csv")), image_root=image_root,
                      class_names=sorted(os.listdir(image_root)))
    return dict(_files)


# ----------------------------------------------------------------------- q3: CSV
def _weather_rows() -> list[dict]:
    import csv

    folder = tempfile.mkdtemp(prefix="tutor-csv-")
    try:
        with open(weather_csv(os.path.join(folder, "weather.csv"))) as handle:
            return list(csv.DictReader(handle))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _check_csv(answer) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    if isinstance(spec, dict):
        fail("each element is a dict of columns with no separate label. Pass label_name='rain', so that every "
             "element is (features, label).")
    if not (isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], dict)):
        fail(f"each element should be (features, label): a dict of columns and the rain labels; element_spec is "
             f"{shorten(spec, 120)}. Pass label_name='rain'.")
    features = set(spec[0])
    if features != {"day", "station", "temperature", "humidity"}:
        extra = "; 'rain' is still a feature: pass label_name='rain'" if "rain" in features else ""
        fail(f"the features should be day, station, temperature and humidity; yours are {sorted(features)}{extra}.")
    for column in ("temperature", "humidity"):
        dtype = spec[0][column].dtype
        if not dtype.is_floating:
            kind = "text (strings)" if dtype == tf.string else f"{dtype.name} numbers"
            fail(f"'{column}' comes out as {kind}: its column default sets the column's type. Give float('nan') for "
                 "temperature and humidity, so that they are float numbers and a missing value is NaN.")
    if int(ds.cardinality()) == int(tf.data.INFINITE_CARDINALITY):
        fail("your dataset never ends: make_csv_dataset repeats the file forever unless you pass num_epochs=1.")
    try:
        batches = _read.elements(ds, 40)
    except tf.errors.InvalidArgumentError as error:
        if "required but missing" not in str(error):
            raise
        fail("reading stopped at an empty field: a column default that is only a type (tf.string, tf.float32) makes "
             "the column required. Give a value instead, e.g. \"\" for station and float('nan') for the numbers.")
    rows = _weather_rows()
    sizes = [len(b[1]) for b in batches]
    days = [int(d) for f, _ in batches for d in f["day"]]
    if len(days) > len(rows):
        fail(f"{len(days)} rows came out of a file of {len(rows)}: the file was read more than once. "
             "make_csv_dataset repeats forever unless you pass num_epochs=1.")
    if sizes[:-1] != [4] * (len(sizes) - 1) or sizes[-1] > 4:
        fail(f"use batches of 4; your batch sizes are {sizes}.")
    if sorted(days) != list(range(1, len(rows) + 1)):
        fail(f"some rows are missing: days {sorted(set(range(1, len(rows) + 1)) - set(days))} never came out.")
    if days != sorted(days):
        fail(f"the rows came out in the order {days[:6]}…: make_csv_dataset shuffles unless you pass shuffle=False.")
    for column in ("temperature", "humidity"):
        values = [float(v) for f, _ in batches for v in f[column]]
        for day, (value, row) in enumerate(zip(values, rows), start=1):
            if row[column] == "" and not math.isnan(value):
                fail(f"day {day} has no {column} in the file, and yours says {value:g}. A missing number becomes 0 "
                     "by default; give column_defaults with float('nan') for temperature and humidity.")
            if row[column] != "" and not math.isclose(value, float(row[column]), rel_tol=1e-5):
                fail(f"day {day}: {column} should be {row[column]}, yours is {value:g}.")
    labels = [int(v) for _, y in batches for v in y]
    if labels != [int(r["rain"]) for r in rows]:
        fail("the rain labels do not match the file's rain column.")
    return "one pass in file order, batches of 4, and the missing numbers are NaN, not a misleading 0."


q3 = Question(
    "q3 (reading a CSV)",
    _check_csv,
    hints=["make_csv_dataset(csv_path, batch_size=4, label_name='rain', num_epochs=1, shuffle=False, "
           "column_defaults=[...]).", "column_defaults needs one entry per column: day, station, temperature, "
           "humidity, rain: a type (tf.int32) for a column that is never empty, a value (\"\", float('nan')) for "
           "one that may be."],
    solution="""
    # csv_path: the file written at the top of the lesson
    answer = tf.data.experimental.make_csv_dataset(
        csv_path, batch_size=4, label_name="rain", num_epochs=1, shuffle=False,
        column_defaults=[tf.int32, "", float("nan"), float("nan"), tf.int32])
    """,
    context=lesson_files,
)


# ----------------------------------------------------------------------- q4: image folders
def _check_image_pairs(answer) -> str:
    ds = _read.dataset(answer)
    spec = ds.element_spec
    if not (isinstance(spec, tuple) and len(spec) == 2 and all(isinstance(s, tf.TensorSpec) for s in spec)):
        fail(f"each element should be a pair (path, label); element_spec is {shorten(spec, 120)}.")
    path_spec, label_spec = spec
    if path_spec.shape.rank == 1:
        fail("your elements are batches: give one (path, label) pair per element.")
    if path_spec.dtype != tf.string or path_spec.shape.rank != 0:
        fail(f"the first part of each pair should be the file's path (a string), got {path_spec}.")
    if label_spec.dtype == tf.string:
        fail("your labels are text (the folder's name). The label is the folder's index in class_names, a number.")
    if not label_spec.dtype.is_integer or label_spec.shape.rank != 0:
        fail(f"the label should be one integer (the folder's index in class_names), got {label_spec}.")
    epochs = [[(os.path.normpath(p.decode()), int(y)) for p, y in _read.elements(ds, 500)] for _ in range(2)]
    roots = {os.path.dirname(os.path.dirname(p)) for epoch in epochs for p, _ in epoch}
    if len(roots) != 1:
        fail("your paths lie in different places; read the class folders under image_root only." if roots else
             "your dataset is empty: does the file pattern match the images (image_root, then a folder, then *.jpg)?")
    root = roots.pop()
    class_names = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    files = sorted(os.path.normpath(p) for p in glob.glob(os.path.join(root, "*", "*.jpg")))
    for k, epoch in enumerate(epochs, start=1):
        paths = [p for p, _ in epoch]
        if len(paths) > len(files):
            fail(f"epoch {k} gave {len(paths)} pairs for {len(files)} files: each file should come once per epoch "
                 "(no repeat).")
        missing = sorted(set(files) - set(paths))
        if missing:
            fail(f"in epoch {k}, {len(missing)} of the {len(files)} files never came out, for example "
                 f"{os.path.relpath(missing[0], root)!r}. Use a pattern that covers every class folder.")
        for path, label in epoch:
            folder = os.path.basename(os.path.dirname(path))
            if label != class_names.index(folder):
                fail(f"{os.path.relpath(path, root)!r} has label {label}; its folder {folder!r} is number "
                     f"{class_names.index(folder)} in class_names {class_names}.")
    orders = [[p for p, _ in epoch] for epoch in epochs]
    if orders[0] == files:
        fail("the files come out in sorted order: nothing is shuffled. list_files shuffles them unless you pass "
             "shuffle=False.")
    if orders[0] == orders[1]:
        fail("both epochs came out in the same order. Keep reshuffling on (list_files does it by default), so "
             "that every epoch gets a new order.")
    return f"all {len(files)} files once per epoch, labels from their folders, a new order every epoch."


q4 = Question(
    "q4 (image folders: paths and labels)",
    _check_image_pairs,
    hints=["tf.data.Dataset.list_files(os.path.join(image_root, '*', '*.jpg')) finds every image and shuffles "
           "them anew every epoch.", "The folder is the second-to-last part of the path: "
           "tf.strings.split(path, os.sep)[-2]; its index: tf.argmax(tf.cast(folder == class_names, tf.int32))."],
    solution="""
    # image_root and class_names: from the image section of the lesson
    def with_label(path):
        folder = tf.strings.split(path, os.sep)[-2]
        return path, tf.argmax(tf.cast(folder == class_names, tf.int32))

    answer = tf.data.Dataset.list_files(os.path.join(image_root, "*", "*.jpg")).map(with_label)
    """,
    context=lesson_files,
)


# ----------------------------------------------------------------------- q5: dataset_fn
def _check_dataset_fn(answer) -> str:
    if isinstance(answer, tf.data.Dataset):
        fail("pass the function itself (dataset_fn, without calling it): TensorFlow calls it once per input "
             "pipeline, with that pipeline's input_context.")
    if not callable(answer):
        fail(f"expected a function dataset_fn(input_context), got {type(answer).__name__}.")
    _read.one_argument(answer, "dataset_fn", "input_context", "what TensorFlow passes to each input pipeline")
    for pipelines, replicas in ((2, 4), (1, 2)):
        per_replica = 16 // replicas
        read = []
        for pipeline_id in range(pipelines):
            context = tf.distribute.InputContext(num_input_pipelines=pipelines, input_pipeline_id=pipeline_id,
                                                 num_replicas_in_sync=replicas)
            returned = answer(context)
            if returned is None:
                fail("dataset_fn returned None: did you forget the `return`?")
            ds = _read.dataset(returned, "dataset_fn to return a tf.data.Dataset")
            spec = ds.element_spec
            size = spec.shape[0] if isinstance(spec, tf.TensorSpec) and spec.dtype.is_integer and \
                spec.shape.rank == 1 else -1
            where = f"With {pipelines} input pipeline(s) and {replicas} replicas"
            if size == -1:
                fail(f"dataset_fn should return batches of ids from tf.data.Dataset.range(64); its element_spec is "
                     f"{ds.element_spec}.")
            if size is None:
                fail("the batch dimension is None: pass drop_remainder=True, so that every replica gets a full batch "
                     "of a static shape.")
            if size == 16:
                fail(f"your batches hold 16 ids, the global batch. {where}, each replica takes its own batch, so "
                     f"batch with input_context.get_per_replica_batch_size(16) = {per_replica}.")
            if size != per_replica:
                fail(f"{where}, batches should hold 16 / {replicas} = {per_replica} ids; yours hold {size}. Use "
                     "input_context.get_per_replica_batch_size(16).")
            read.append([i for batch in _read.id_batches(ds, 100) for i in batch])
        everything = [i for ids in read for i in ids]
        if pipelines == 2 and set(read[0]) & set(read[1]):
            fail("both input pipelines read the same ids, so every example is used twice per epoch. Shard with "
                 "ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id).")
        if sorted(everything) != list(range(64)):
            lost = sorted(set(range(64)) - set(everything))
            fail(f"with {pipelines} input pipeline(s), ids {shorten(lost[:8], 40)} are read by none of them. Shard by "
                 "num_input_pipelines (the number of pipelines), not by the number of replicas.")
    return "each input pipeline reads its own shard, in batches of the per-replica size, with a static shape."


q5 = Question(
    "q5 (dataset_fn for distribute_datasets_from_function)",
    _check_dataset_fn,
    hints=["input_context.get_per_replica_batch_size(16) divides the global batch by the number of replicas.",
           "ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id), then "
           "batch(..., drop_remainder=True)."],
    solution="""
    def dataset_fn(input_context):
        ds = tf.data.Dataset.range(64)
        ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
        return ds.batch(input_context.get_per_replica_batch_size(16), drop_remainder=True)

    answer = dataset_fn
    """,
    takes_function=True,
)

__all__ = ["q1", "q2", "q3", "q4", "q5"]
