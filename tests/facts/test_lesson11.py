"""The facts lesson 11 (Real sources in production) states, checked on real TensorFlow.

The two-replica facts need two logical CPUs, which TensorFlow allows only before its first op, so they
run in a fresh Python process.
"""
import json
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import tutor
import tensorflow as tf
from tutor.checks import lesson11
from tutor.checks._read import plain

from .helpers import R


# ------------------------------------------------------------------ text
def ids(ds):
    return [plain(x) for x in ds.as_numpy_iterator()]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("lesson11")
    return {
        "text": tutor.data.text_files(str(root / "reviews")),
        "csv": tutor.data.weather_csv(str(root / "weather.csv")),
        "images": tutor.data.class_folders(str(root / "digits"), n=60, classes=(0, 1, 2)),
        "root": root,
    }


def test_text_lines_come_file_after_file_headers_included(data):
    lines = [x.decode() for x in tf.data.TextLineDataset(data["text"]).as_numpy_iterator()]
    assert len(lines) == 3 * 6 and lines[0] == "review" and lines[6] == "review"
    assert not any(line.endswith("\n") for line in lines)
    assert [x.decode() for x in tf.data.TextLineDataset(data["text"]).skip(1).as_numpy_iterator()].count("review") == 2


def test_skipping_the_header_per_file_inside_interleave(data):
    files = tf.data.Dataset.from_tensor_slices(data["text"])
    reviews = [x.decode() for x in files.interleave(lambda p: tf.data.TextLineDataset(p).skip(1),
                                                    cycle_length=3).as_numpy_iterator()]
    per_file = [open(p).read().splitlines()[1:] for p in data["text"]]
    assert "review" not in reviews
    assert reviews[:3] == [per_file[0][0], per_file[1][0], per_file[2][0]]


def test_split_and_text_vectorization(data):
    import keras

    reviews = tf.data.TextLineDataset(data["text"]).filter(lambda line: line != "review")
    words = ids(reviews.map(tf.strings.split))
    assert len({len(w) for w in words}) > 1 and isinstance(words[0], list)  # one length per line
    vectorize = keras.layers.TextVectorization(max_tokens=50, output_sequence_length=6)
    vectorize.adapt(reviews)
    vocabulary = [str(w) for w in vectorize.get_vocabulary()]
    assert vocabulary[:2] == ["", "[UNK]"]
    counts = {}
    for line in words:
        for w in line:
            counts[w] = counts.get(w, 0) + 1
    frequencies = [counts[w] for w in vocabulary[2:]]
    assert frequencies == sorted(frequencies, reverse=True), "the most frequent words should get the small ids"
    batch = next(iter(reviews.batch(4).map(vectorize))).numpy()
    assert batch.shape == (4, 6) and (batch == 0).any()  # short lines padded with 0
    long_line = next(line for line in words if len(line) > 6)
    assert vectorize(tf.constant([" ".join(long_line)])).shape == (1, 6)  # and long ones cut


# ------------------------------------------------------------------ CSV
def test_make_csv_dataset_dicts_types_and_missing_values(data):
    ds = tf.data.experimental.make_csv_dataset(data["csv"], batch_size=4, label_name="rain", num_epochs=1,
                                               shuffle=False)
    batches = list(ds.as_numpy_iterator())
    features, rain = batches[0]
    assert list(features) == ["day", "station", "temperature", "humidity"] and rain.tolist() == [0, 0, 0, 1]
    temperature = np.concatenate([f["temperature"] for f, _ in batches])
    station = np.concatenate([f["station"] for f, _ in batches])
    assert temperature[2] == 0.0 and temperature[7] == 0.0  # empty fields of days 3 and 8
    assert station[9] == b""  # the empty station of day 10
    assert ds.element_spec[1].shape.as_list() == [None]


def test_make_csv_dataset_defaults_repeat_forever_shuffle_and_give_static_batches(data):
    ds = tf.data.experimental.make_csv_dataset(data["csv"], batch_size=4, label_name="rain")
    assert int(ds.cardinality()) == int(tf.data.INFINITE_CARDINALITY)
    assert ds.element_spec[1].shape.as_list() == [4]
    orders = [[int(d) for f, _ in ds.take(3).as_numpy_iterator() for d in f["day"]] for _ in range(3)]
    assert any(order != list(range(1, 13)) for order in orders)


def test_column_defaults_value_or_required_type(data):
    defaults = [tf.int32, "", float("nan"), float("nan"), tf.int32]
    ds = tf.data.experimental.make_csv_dataset(data["csv"], batch_size=12, label_name="rain", num_epochs=1,
                                               shuffle=False, column_defaults=defaults)
    features, _ = next(iter(ds))
    assert np.isnan(features["temperature"].numpy()[2]) and np.isnan(features["humidity"].numpy()[5])
    required = tf.data.experimental.CsvDataset(data["csv"], record_defaults=[tf.int32, tf.string], header=True,
                                               select_cols=[0, 1])
    days = []
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 1 is required but missing in record"):
        for day, _ in required.as_numpy_iterator():
            days.append(int(day))
    assert days == list(range(1, 10))


def test_make_csv_dataset_builds_on_csv_dataset(data):
    ds = tf.data.experimental.make_csv_dataset(data["csv"], batch_size=4, num_epochs=1)
    assert any("CSVDatasetV2" in stage.fn_ops for stage in tutor.doctor.read_pipeline(ds))


def test_csv_dataset_rows_are_tuples(data):
    defaults = [tf.int32, tf.constant("unknown"), tf.constant(float("nan")), tf.constant(float("nan")), tf.int32]
    rows = list(tf.data.experimental.CsvDataset(data["csv"], record_defaults=defaults, header=True).as_numpy_iterator())
    assert len(rows) == 12 and len(rows[0]) == 5 and rows[0][0] == 1 and np.isnan(rows[2][2])
    assert rows[9][1] == b"unknown"


# ------------------------------------------------------------------ image folders
def test_list_files_sorts_then_shuffles_fully_with_a_new_order_every_epoch(data):
    pattern = os.path.join(data["images"], "*", "*.jpg")
    unshuffled = [x.decode() for x in tf.data.Dataset.list_files(pattern, shuffle=False).as_numpy_iterator()]
    assert unshuffled == sorted(unshuffled) and len(unshuffled) == 18
    shuffled = tf.data.Dataset.list_files(pattern, seed=0)
    first, second = ([x.decode() for x in shuffled.as_numpy_iterator()] for _ in range(2))
    assert sorted(first) == unshuffled and first != unshuffled and first != second
    again = [x.decode() for x in tf.data.Dataset.list_files(pattern, seed=0).as_numpy_iterator()]
    assert again == first, "a seed should make the sequence of orders repeatable"
    firsts = {next(iter(tf.data.Dataset.list_files(pattern, seed=s))).numpy() for s in range(60)}
    assert len(firsts) > 10, "a full shuffle lets (almost) any file come first"
    labels = tutor.data.labels_from_paths(first).tolist()
    folders = [int(os.path.basename(os.path.dirname(p))) for p in first]
    assert labels == folders


def test_interleaving_the_class_folders_takes_one_of_each_in_turn(data):
    class_names = sorted(os.listdir(data["images"]))
    folders = tf.data.Dataset.from_tensor_slices([os.path.join(data["images"], c, "*.jpg") for c in class_names])
    by_class = folders.interleave(lambda p: tf.data.Dataset.list_files(p, shuffle=False), cycle_length=3,
                                  num_parallel_calls=tf.data.AUTOTUNE)
    sequential = folders.interleave(lambda p: tf.data.Dataset.list_files(p, shuffle=False), cycle_length=3)
    got = [x.decode() for x in by_class.as_numpy_iterator()]
    assert got == [x.decode() for x in sequential.as_numpy_iterator()]
    assert [os.path.basename(os.path.dirname(p)) for p in got[:6]] == ["0", "1", "2", "0", "1", "2"]


def test_image_dataset_from_directory_shuffles_paths_then_batches(data):
    import keras

    ds = keras.utils.image_dataset_from_directory(data["images"], image_size=(32, 32), batch_size=6, seed=0,
                                                  verbose=False)
    assert ds.class_names == ["0", "1", "2"]
    paths = [os.path.normpath(p) for p in ds.file_paths]
    assert sorted(paths) != paths and len(set(paths)) == 18
    labels = [y for _, batch in ds.as_numpy_iterator() for y in batch.tolist()]
    again = [y for _, batch in ds.as_numpy_iterator() for y in batch.tolist()]
    assert sorted(labels) == [0] * 6 + [1] * 6 + [2] * 6 and labels != again, "a new order every epoch"
    kinds = [stage.kind for stage in tutor.doctor.read_pipeline(ds)]
    labels_of_stages = [stage.label for stage in tutor.doctor.read_pipeline(ds)]
    assert "shuffle(buffer_size=48)" in labels_of_stages  # 8 x batch_size
    assert kinds.index("shuffle") < kinds.index("batch") and kinds.index("map") < kinds.index("batch")
    assert kinds.index("zip") < kinds.index("shuffle")  # (path, label) pairs
    assert kinds[-1] == "prefetch"


# ------------------------------------------------------------------ checkpoints
def test_a_restored_iterator_continues_at_the_next_element(tmp_path):
    train = R(10).shuffle(10, seed=0).batch(2)
    seen = tf.Variable(0, dtype=tf.int64)
    iterator = iter(train)
    checkpoint = tf.train.Checkpoint(seen=seen, iterator=iterator)
    manager = tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=1)
    batches = []
    for step in range(4):
        batches.append(next(iterator).numpy().tolist())
        seen.assign_add(2)
        if step == 1:
            manager.save()
    rest_of_first_run = [b.numpy().tolist() for b in iterator]
    fresh = iter(train)
    tf.train.Checkpoint(seen=seen, iterator=fresh).restore(tf.train.latest_checkpoint(str(tmp_path)))
    assert int(seen) == 4
    assert [b.numpy().tolist() for b in fresh] == batches[2:] + rest_of_first_run


def test_a_resumed_parallel_and_prefetched_pipeline_too(tmp_path):
    ds = R(20).map(lambda x: x * 2, num_parallel_calls=2).prefetch(2)
    it = iter(ds)
    [next(it) for _ in range(3)]
    path = tf.train.Checkpoint(iterator=it).save(str(tmp_path / "ckpt"))
    fresh = iter(ds)
    tf.train.Checkpoint(iterator=fresh).restore(path)
    assert int(next(fresh)) == 6


def _save(ds, path):
    it = iter(ds)
    next(it)
    tf.train.Checkpoint(iterator=it).save(path)


def test_which_stages_cannot_be_saved(tmp_path):
    def numbers():
        yield from range(5)

    ignore = tf.data.Options()
    ignore.experimental_external_state_policy = tf.data.experimental.ExternalStatePolicy.IGNORE
    generator = tf.data.Dataset.from_generator(numbers, output_signature=tf.TensorSpec((), tf.int64))
    python_map = R(5).map(lambda x: tf.py_function(lambda v: v * 2, [x], tf.int64))
    target = str(tmp_path / "ckpt")
    _save(R(5).map(lambda x: x + tf.random.stateless_uniform([], [0, x], 0, 9, tf.int64)), target)
    _save(tf.data.Dataset.random(seed=3).take(5), target)
    _save(python_map.with_options(ignore), target)
    with pytest.raises(tf.errors.FailedPreconditionError, match="RandomUniformInt is stateful"):
        _save(R(5).map(lambda x: x + tf.random.uniform([], 0, 9, tf.int64)), target)
    with pytest.raises(tf.errors.FailedPreconditionError, match="PyFunc is stateful"):
        _save(python_map, target)
    with pytest.raises(tf.errors.FailedPreconditionError, match="PyFunc is stateful"):
        _save(generator, target)
    with pytest.raises(tf.errors.UnimplementedError, match="GeneratorDataset does not support checkpointing"):
        _save(generator.with_options(ignore), target)
    _save(R(5).map(lambda x: x + tf.random.uniform([], 0, 9, tf.int64)).with_options(ignore), target)
    assert "IGNORE: External state is ignored" in tf.data.Options.experimental_external_state_policy.__doc__


def test_a_shuffle_buffer_is_saved_element_by_element(tmp_path):
    sizes = {}
    for buffer_size in (10, 10_000):
        folder = tmp_path / str(buffer_size)
        _save(R(20_000).shuffle(buffer_size, seed=0), str(folder / "ckpt"))
        sizes[buffer_size] = sum(f.stat().st_size for f in folder.iterdir() if ".data-" in f.name)
    assert sizes[10_000] > 100 * sizes[10] and sizes[10_000] > 10_000 * 8


# ------------------------------------------------------------------ options
def test_deterministic_false_lets_a_ready_element_out_first():
    firsts = {}
    for deterministic in (None, True, False):
        options = tf.data.Options()
        if deterministic is not None:  # None: left unset, the default
            options.deterministic = deterministic
        ds = R(6).map(lesson11.first_waits_for_second(), num_parallel_calls=2).with_options(options)
        firsts[deterministic] = int(next(iter(ds)))
        assert ds.options().deterministic is deterministic
    assert firsts == {None: 0, True: 0, False: 1}


def test_options_are_kept_and_merged():
    options = tf.data.Options()
    options.deterministic = False
    options.autotune.ram_budget = 256 * 2**20
    options.autotune.cpu_budget = 2
    options.threading.private_threadpool_size = 2
    options.threading.max_intra_op_parallelism = 1
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    merged = R(6).with_options(options).map(lambda x: x).with_options(tf.data.Options()).options()
    assert merged.deterministic is False and merged.threading.private_threadpool_size == 2
    assert merged.autotune.ram_budget == 256 * 2**20 and merged.autotune.cpu_budget == 2
    assert merged.experimental_distribute.auto_shard_policy == tf.data.experimental.AutoShardPolicy.DATA
    docs = " ".join((tf.data.experimental.AutotuneOptions.__doc__ or "").split()) + " ".join(
        str(getattr(tf.data.experimental.AutotuneOptions, name).__doc__) for name in ("ram_budget", "cpu_budget"))
    assert "RAM budget" in docs and "CPU budget" in docs
    assert "maximum degree of intra-op parallelism" in tf.data.ThreadingOptions.max_intra_op_parallelism.__doc__


def _overlaps(pool_size: int, wait: float) -> bool:
    """Whether two calls of a parallel map ever run at once under a private pool of ``pool_size`` threads."""
    second_started, overlapped = threading.Event(), []

    def work(x):
        if int(x) == 1:
            second_started.set()
        if int(x) == 0:
            overlapped.append(second_started.wait(timeout=wait))
        return x

    options = tf.data.Options()
    options.threading.private_threadpool_size = pool_size
    ds = R(4).map(lambda x: tf.py_function(work, [x], tf.int64), num_parallel_calls=2).with_options(options)
    assert ids(ds) == [0, 1, 2, 3]
    return overlapped[0]


def test_a_private_threadpool_of_one_thread_runs_one_call_at_a_time():
    assert _overlaps(2, wait=30.0) is True
    assert _overlaps(1, wait=2.0) is False


# ------------------------------------------------------------------ limits
def test_an_array_in_a_graph_is_a_constant_and_graphs_stop_at_2gb():
    array = np.zeros((1000, 1000), np.float32)
    graph = tf.Graph()
    with graph.as_default():
        tf.data.Dataset.from_tensor_slices(array)
    assert graph.as_graph_def().ByteSize() >= array.nbytes
    huge = np.zeros(2**31, np.uint8)  # untouched pages: no real memory used
    with pytest.raises(ValueError, match="larger than 2GB"):
        tf.make_tensor_proto(huge)


def test_a_tf_function_and_a_serialized_pipeline_carry_the_array_but_eager_mode_does_not(monkeypatch):
    array = np.arange(250_000, dtype=np.float32)  # 1 MB

    @tf.function
    def build():
        return tf.data.Dataset.from_tensor_slices(array).reduce(0.0, lambda s, x: s + x)

    assert build.get_concrete_function().graph.as_graph_def().ByteSize() >= array.nbytes
    eager = tf.data.Dataset.from_tensor_slices(array)
    serialized = tf.raw_ops.DatasetToGraphV2(input_dataset=eager._variant_tensor)  # what travels elsewhere
    assert len(serialized.numpy()) >= array.nbytes
    ops = {node.op for node in tf.compat.v1.GraphDef.FromString(serialized.numpy()).node}
    assert "TensorSliceDataset" in ops  # an eager pipeline is a graph of dataset ops too
    from tensorflow.python.framework import tensor_util

    def no_graph_constants(*args, **kwargs):
        raise AssertionError("eager from_tensor_slices built a graph constant")

    monkeypatch.setattr(tensor_util, "make_tensor_proto", no_graph_constants)
    assert int(tf.data.Dataset.from_tensor_slices(np.ones(1000, np.float32)).cardinality()) == 1000


def test_python_code_does_not_run_in_another_process():
    def numbers():
        yield from range(3)

    service = tf.data.experimental.service
    with tutor.service.ProcessService(num_workers=1) as remote:
        plain_map = R(5).map(lambda x: x * 2).apply(service.distribute("parallel_epochs", remote.target))
        assert tutor.take_elements(plain_map) == [0, 2, 4, 6, 8]
        generator = tf.data.Dataset.from_generator(numbers, output_signature=tf.TensorSpec((), tf.int64))
        python_map = R(3).map(lambda x: tf.py_function(lambda v: v, [x], tf.int64))
        for ds in (generator, python_map):
            with pytest.raises(tf.errors.InvalidArgumentError, match="Could not find callback with key=pyfunc_"):
                tutor.take_elements(ds.apply(service.distribute("parallel_epochs", remote.target)))


# ------------------------------------------------------------------ two replicas (a fresh process)
REPLICAS = textwrap.dedent("""
    import json, tutor, tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    def steps(dist):
        return [[p.numpy().tolist() for p in strategy.experimental_local_results(b)] for b in dist]
    out = {"replicas": strategy.num_replicas_in_sync}
    edd = strategy.experimental_distribute_dataset(tf.data.Dataset.range(12).batch(4))
    out["edd"] = steps(edd)
    out["devices"] = [p.device[-5:] for p in strategy.experimental_local_results(next(iter(edd)))]
    calls = []
    def dataset_fn(context):
        calls.append([context.num_input_pipelines, context.input_pipeline_id, context.num_replicas_in_sync,
                      context.get_per_replica_batch_size(4)])
        ds = tf.data.Dataset.range(12).shard(context.num_input_pipelines, context.input_pipeline_id)
        return ds.batch(context.get_per_replica_batch_size(4))
    out["ddff"] = steps(strategy.distribute_datasets_from_function(dataset_fn))
    out["calls"] = calls
    out["mistake"] = steps(strategy.distribute_datasets_from_function(lambda c: tf.data.Dataset.range(12).batch(4)))
    try:
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 3)
    except RuntimeError as error:
        out["too_late"] = str(error)
    from tutor.checks import lesson11 as ex
    out["q2_solution"] = ex.q2.check(ex.q2.solution_answer()).passed
    out["q2_wrong"] = ex.q2.check([2, 3]).message
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def replicas():
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    run = subprocess.run([sys.executable, "-c", REPLICAS], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_logical_devices_only_before_the_first_op(replicas):
    assert replicas["too_late"] == "Virtual devices cannot be modified after being initialized"


def test_dataset_fn_runs_on_each_workers_cpu():
    docs = " ".join(tf.distribute.Strategy.distribute_datasets_from_function.__doc__.split())
    assert "will be called on the CPU device of each of the workers" in docs


def test_experimental_distribute_dataset_splits_every_global_batch(replicas):
    assert replicas["replicas"] == 2
    assert replicas["edd"] == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9], [10, 11]]]
    assert replicas["devices"] == ["CPU:0", "CPU:1"]


def test_distribute_datasets_from_function_order_per_replica(replicas):
    assert replicas["calls"] == [[1, 0, 2, 2]]  # once per input pipeline, per-replica batch 4 / 2
    per_replica = [[ids for step in replicas["ddff"] for ids in step[r]] for r in range(2)]
    assert per_replica == [[0, 1, 4, 5, 8, 9], [2, 3, 6, 7, 10, 11]]


def test_batching_by_the_global_batch_in_dataset_fn_doubles_each_step(replicas):
    assert replicas["mistake"] == [[[0, 1, 2, 3], [4, 5, 6, 7]], [[8, 9, 10, 11], []]]
    assert replicas["q2_solution"]  # lesson 11's q2 predicts exactly this, in a kernel with two logical CPUs
    assert "4 items of the answer are missing" in replicas["q2_wrong"]


def test_input_context_per_replica_batch_and_shards():
    context = tf.distribute.InputContext(num_input_pipelines=2, input_pipeline_id=1, num_replicas_in_sync=4)
    assert context.get_per_replica_batch_size(16) == 4
    assert ids(R(8).shard(context.num_input_pipelines, context.input_pipeline_id)) == [1, 3, 5, 7]


def test_auto_shard_policies(tmp_path):
    from tensorflow.python.data.experimental.ops.distribute import _AutoShardDataset  # the rewrite TF applies

    def shard_for_worker(ds, policy, index):
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = policy
        return _AutoShardDataset(ds.with_options(options), num_workers=2, index=index, num_replicas=2)

    policy = tf.data.experimental.AutoShardPolicy
    assert ids(shard_for_worker(R(8), policy.DATA, 1)) == [1, 3, 5, 7]
    assert ids(shard_for_worker(R(8), policy.OFF, 1)) == list(range(8))
    paths = []
    for k in range(4):
        (tmp_path / f"f{k}.txt").write_text(f"{k}a\n{k}b\n")
        paths.append(str(tmp_path / f"f{k}.txt"))
    lines = tf.data.Dataset.from_tensor_slices(paths).flat_map(tf.data.TextLineDataset)
    worker1 = [x.decode() for x in shard_for_worker(lines, policy.FILE, 1).as_numpy_iterator()]
    assert worker1 == ["1a", "1b", "3a", "3b"]
    docs = " ".join(tf.data.experimental.AutoShardPolicy.__doc__.split())
    assert "AUTO: Attempts FILE-based sharding, falling back to DATA-based sharding" in docs
