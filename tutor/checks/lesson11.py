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
from ..i18n import N_
from ..i18n import gettext as _
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
        fail(_("this question runs two replicas on the two logical CPUs that the setup cell creates, and this kernel "
               "has only one. Restart the kernel and run the notebook from the top."))
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def global_batch_mistake() -> tf.data.Dataset:
    """What each replica gets when ``dataset_fn`` batches with the global batch size: step 0, replicas 0 and 1."""
    strategy = _two_replicas()
    dist = strategy.distribute_datasets_from_function(lambda context: tf.data.Dataset.range(12).batch(GLOBAL_BATCH))
    first_step = next(iter(dist))
    return tf.data.Dataset.from_tensor_slices([p.numpy() for p in strategy.experimental_local_results(first_step)])


q1 = PredictQuestion(
    N_("q1 (predict: resuming from a checkpoint)"), resumed_epoch, truth=lambda batches: batches[0],
    ask=N_("the first batch the restored iterator gives, as a list"), code=N_("the training loop above"),
    hints=[N_("The checkpoint was saved after step 1. What the job did after that is lost."),
           N_("The shuffle buffer's content is in the checkpoint: the epoch goes on in the same order.")],
)

q2 = PredictQuestion(
    N_("q2 (predict: the global batch in dataset_fn)"), global_batch_mistake, truth=lambda parts: parts[1],
    ask=N_("the ids replica 1 gets at step 0, as a list"),
    code="strategy.distribute_datasets_from_function(lambda context: tf.data.Dataset.range(12).batch(4))",
    hints=[N_("distribute_datasets_from_function does not split batches: each replica takes whole batches of the "
              "dataset that dataset_fn returns, in turn."), N_("Here each of those batches holds 4 ids.")],
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
        fail(_("each element is a dict of columns with no separate label. Pass label_name='rain', so that every "
               "element is (features, label)."))
    if not (isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], dict)):
        fail(_("each element should be (features, label): a dict of columns and the rain labels; element_spec is "
               "{spec}. Pass label_name='rain'.").format(spec=shorten(spec, 120)))
    features = set(spec[0])
    if features != {"day", "station", "temperature", "humidity"}:
        # Translators: {features} is a Python list of column names.
        if "rain" in features:
            fail(_("the features should be day, station, temperature and humidity; yours are {features}; 'rain' is "
                   "still a feature: pass label_name='rain'.").format(features=sorted(features)))
        fail(_("the features should be day, station, temperature and humidity; yours are {features}.").format(
            features=sorted(features)))
    for column in ("temperature", "humidity"):
        dtype = spec[0][column].dtype
        if not dtype.is_floating:
            if dtype == tf.string:
                fail(_("'{column}' comes out as text (strings): its column default sets the column's type. Give "
                       "float('nan') for temperature and humidity, so that they are float numbers and a missing value "
                       "is NaN.").format(column=column))
            # Translators: {dtype} is a TensorFlow dtype's name: int32.
            fail(_("'{column}' comes out as {dtype} numbers: its column default sets the column's type. Give "
                   "float('nan') for temperature and humidity, so that they are float numbers and a missing value "
                   "is NaN.").format(column=column, dtype=dtype.name))
    if int(ds.cardinality()) == int(tf.data.INFINITE_CARDINALITY):
        fail(_("your dataset never ends: make_csv_dataset repeats the file forever unless you pass num_epochs=1."))
    try:
        batches = _read.elements(ds, 40)
    except tf.errors.InvalidArgumentError as error:
        if "required but missing" not in str(error):
            raise
        fail(_("reading stopped at an empty field: a column default that is only a type (tf.string, tf.float32) makes "
               "the column required. Give a value instead, e.g. \"\" for station and float('nan') for the numbers."))
    rows = _weather_rows()
    sizes = [len(b[1]) for b in batches]
    days = [int(d) for f, _unused in batches for d in f["day"]]
    if len(days) > len(rows):
        fail(_("{n} rows came out of a file of {rows}: the file was read more than once. "
               "make_csv_dataset repeats forever unless you pass num_epochs=1.").format(n=len(days), rows=len(rows)))
    if sizes[:-1] != [4] * (len(sizes) - 1) or sizes[-1] > 4:
        fail(_("use batches of 4; your batch sizes are {sizes}.").format(sizes=sizes))
    if sorted(days) != list(range(1, len(rows) + 1)):
        # Translators: {days} is a Python list of day numbers.
        fail(_("some rows are missing: days {days} never came out.").format(
            days=sorted(set(range(1, len(rows) + 1)) - set(days))))
    if days != sorted(days):
        fail(_("the rows came out in the order {days}…: make_csv_dataset shuffles unless you pass "
               "shuffle=False.").format(days=days[:6]))
    for column in ("temperature", "humidity"):
        values = [float(v) for f, _unused in batches for v in f[column]]
        for day, (value, row) in enumerate(zip(values, rows), start=1):
            if row[column] == "" and not math.isnan(value):
                # Translators: {column} is a column's name: temperature, humidity.
                fail(_("day {day} has no {column} in the file, and yours says {value:g}. A missing number becomes 0 "
                       "by default; give column_defaults with float('nan') for temperature and humidity.").format(
                    day=day, column=column, value=value))
            if row[column] != "" and not math.isclose(value, float(row[column]), rel_tol=1e-5):
                fail(_("day {day}: {column} should be {want}, yours is {value:g}.").format(
                    day=day, column=column, want=row[column], value=value))
    labels = [int(v) for _unused, y in batches for v in y]
    if labels != [int(r["rain"]) for r in rows]:
        fail(_("the rain labels do not match the file's rain column."))
    return _("one pass in file order, batches of 4, and the missing numbers are NaN, not a misleading 0.")


q3 = Question(
    N_("q3 (reading a CSV)"),
    _check_csv,
    hints=[N_("make_csv_dataset(csv_path, batch_size=4, label_name='rain', num_epochs=1, shuffle=False, "
              "column_defaults=[...])."), N_("column_defaults needs one entry per column: day, station, temperature, "
              "humidity, rain: a type (tf.int32) for a column that is never empty, a value (\"\", float('nan')) for "
              "one that may be.")],
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
        fail(_("each element should be a pair (path, label); element_spec is {spec}.").format(spec=shorten(spec, 120)))
    path_spec, label_spec = spec
    if path_spec.shape.rank == 1:
        fail(_("your elements are batches: give one (path, label) pair per element."))
    if path_spec.dtype != tf.string or path_spec.shape.rank != 0:
        # Translators: {spec} is a TensorSpec as TensorFlow prints it.
        fail(_("the first part of each pair should be the file's path (a string), got {spec}.").format(
            spec=path_spec))
    if label_spec.dtype == tf.string:
        fail(_("your labels are text (the folder's name). The label is the folder's index in class_names, a number."))
    if not label_spec.dtype.is_integer or label_spec.shape.rank != 0:
        fail(_("the label should be one integer (the folder's index in class_names), got {spec}.").format(
            spec=label_spec))
    epochs = [[(os.path.normpath(p.decode()), int(y)) for p, y in _read.elements(ds, 500)] for _unused in range(2)]
    roots = {os.path.dirname(os.path.dirname(p)) for epoch in epochs for p, _unused in epoch}
    if len(roots) != 1:
        fail(_("your paths lie in different places; read the class folders under image_root only.") if roots else
             _("your dataset is empty: does the file pattern match the images (image_root, then a folder, then "
               "*.jpg)?"))
    root = roots.pop()
    class_names = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    files = sorted(os.path.normpath(p) for p in glob.glob(os.path.join(root, "*", "*.jpg")))
    for k, epoch in enumerate(epochs, start=1):
        paths = [p for p, _unused in epoch]
        if len(paths) > len(files):
            fail(_("epoch {k} gave {n} pairs for {files} files: each file should come once per epoch "
                   "(no repeat).").format(k=k, n=len(paths), files=len(files)))
        missing = sorted(set(files) - set(paths))
        if missing:
            # Translators: {example} is a file's path in quotes.
            fail(_("in epoch {k}, {n} of the {files} files never came out, for example "
                   "{example!r}. Use a pattern that covers every class folder.").format(
                k=k, n=len(missing), files=len(files), example=os.path.relpath(missing[0], root)))
        for path, label in epoch:
            folder = os.path.basename(os.path.dirname(path))
            if label != class_names.index(folder):
                # Translators: {path} and {folder} are in quotes; {index} is the folder's index in class_names.
                fail(_("{path!r} has label {label}; its folder {folder!r} is number "
                       "{index} in class_names {class_names}.").format(
                    path=os.path.relpath(path, root), label=label, folder=folder, index=class_names.index(folder),
                    class_names=class_names))
    orders = [[p for p, _unused in epoch] for epoch in epochs]
    if orders[0] == files:
        fail(_("the files come out in sorted order: nothing is shuffled. list_files shuffles them unless you pass "
               "shuffle=False."))
    if orders[0] == orders[1]:
        fail(_("both epochs came out in the same order. Keep reshuffling on (list_files does it by default), so "
               "that every epoch gets a new order."))
    return _("all {n} files once per epoch, labels from their folders, a new order every epoch.").format(n=len(files))


q4 = Question(
    N_("q4 (image folders: paths and labels)"),
    _check_image_pairs,
    hints=[N_("tf.data.Dataset.list_files(os.path.join(image_root, '*', '*.jpg')) finds every image and shuffles "
              "them anew every epoch."), N_("The folder is the second-to-last part of the path: "
              "tf.strings.split(path, os.sep)[-2]; its index: tf.argmax(tf.cast(folder == class_names, tf.int32)).")],
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
        fail(_("pass the function itself (dataset_fn, without calling it): TensorFlow calls it once per input "
               "pipeline, with that pipeline's input_context."))
    if not callable(answer):
        fail(_("expected a function dataset_fn(input_context), got {kind}.").format(kind=type(answer).__name__))
    _read.one_argument(answer, "dataset_fn", "input_context", _("what TensorFlow passes to each input pipeline"))
    for pipelines, replicas in ((2, 4), (1, 2)):
        per_replica = 16 // replicas
        read = []
        for pipeline_id in range(pipelines):
            context = tf.distribute.InputContext(num_input_pipelines=pipelines, input_pipeline_id=pipeline_id,
                                                 num_replicas_in_sync=replicas)
            returned = answer(context)
            if returned is None:
                fail(_("dataset_fn returned None: did you forget the `return`?"))
            ds = _read.dataset(returned, _("dataset_fn to return a tf.data.Dataset"))
            spec = ds.element_spec
            size = spec.shape[0] if isinstance(spec, tf.TensorSpec) and spec.dtype.is_integer and \
                spec.shape.rank == 1 else -1
            if size == -1:
                fail(_("dataset_fn should return batches of ids from tf.data.Dataset.range(64); its element_spec is "
                       "{spec}.").format(spec=ds.element_spec))
            if size is None:
                fail(_("the batch dimension is None: pass drop_remainder=True, so that every replica gets a full batch "
                       "of a static shape."))
            if size == 16:
                fail(_("your batches hold 16 ids, the global batch. With {pipelines} input pipeline(s) and {replicas} "
                       "replicas, each replica takes its own batch, so batch with "
                       "input_context.get_per_replica_batch_size(16) = {per_replica}.").format(
                    pipelines=pipelines, replicas=replicas, per_replica=per_replica))
            if size != per_replica:
                fail(_("With {pipelines} input pipeline(s) and {replicas} replicas, batches should hold 16 / "
                       "{replicas} = {per_replica} ids; yours hold {size}. Use "
                       "input_context.get_per_replica_batch_size(16).").format(
                    pipelines=pipelines, replicas=replicas, per_replica=per_replica, size=size))
            read.append([i for batch in _read.id_batches(ds, 100) for i in batch])
        everything = [i for ids in read for i in ids]
        if pipelines == 2 and set(read[0]) & set(read[1]):
            fail(_("both input pipelines read the same ids, so every example is used twice per epoch. Shard with "
                   "ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)."))
        if sorted(everything) != list(range(64)):
            lost = sorted(set(range(64)) - set(everything))
            fail(_("with {pipelines} input pipeline(s), ids {lost} are read by none of them. Shard by "
                   "num_input_pipelines (the number of pipelines), not by the number of replicas.").format(
                pipelines=pipelines, lost=shorten(lost[:8], 40)))
    return _("each input pipeline reads its own shard, in batches of the per-replica size, with a static shape.")


q5 = Question(
    N_("q5 (dataset_fn for distribute_datasets_from_function)"),
    _check_dataset_fn,
    hints=[N_("input_context.get_per_replica_batch_size(16) divides the global batch by the number of replicas."),
           N_("ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id), then "
              "batch(..., drop_remainder=True).")],
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
