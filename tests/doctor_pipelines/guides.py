"""Pipelines from TensorFlow's guides: tf.data (guide/data) and its performance guide (guide/data_performance)."""
import os

import numpy as np

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from .common import AUTOTUNE, artificial_dataset

DATA = "https://www.tensorflow.org/guide/data"
PERF = "https://www.tensorflow.org/guide/data_performance"


def fashion_mnist_guide(f):
    # DATA ("Consuming NumPy arrays", "Using high-level APIs"): 60000 images, a buffer of 5000, scaled to 6000 and 500
    images, labels = np.zeros((6000, 28, 28), np.uint8), np.zeros(6000, np.int64)
    return tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(500).batch(32).repeat()


def text_lines_guide(f):
    # DATA ("Consuming text data": interleave of TextLineDataset over three files)
    return tf.data.Dataset.from_tensor_slices(f["lines"]).interleave(tf.data.TextLineDataset, cycle_length=3)


def generator_guide(f):
    # DATA ("Consuming Python generators": gen_series, endless there and 50 elements here, shuffle(20), padded_batch)
    def gen_series():
        i = 0
        while i < 50:
            yield i, np.random.normal(size=(i % 5 + 1,))
            i += 1

    ds_series = tf.data.Dataset.from_generator(
        gen_series, output_signature=(tf.TensorSpec((), tf.int32), tf.TensorSpec((None,), tf.float32)))
    return ds_series.shuffle(20).padded_batch(10)


def generator_counter_guide(f):
    # DATA ("Consuming Python generators": count(25), a generator of scalars)
    def count(stop):
        i = 0
        while i < stop:
            yield i
            i += 1

    ds = tf.data.Dataset.from_generator(count, args=[25], output_signature=tf.TensorSpec((), tf.int32))
    return ds.repeat().batch(10).prefetch(1)


def generator_flowers_guide(f):
    # DATA ("Consuming Python generators": from_generator over ImageDataGenerator.flow_from_directory, which yields
    # whole batches of images; a plain generator of batches here)
    def flow():
        for _ in range(2):
            yield np.zeros((4, 8, 8, 3), np.float32), np.zeros((4, 5), np.float32)

    return tf.data.Dataset.from_generator(flow, output_types=(tf.float32, tf.float32),
                                          output_shapes=([4, 8, 8, 3], [4, 5]))


def shuffle_counter_guide(f):
    # DATA ("Randomly shuffling input data": zip(Counter(), TextLineDataset(titanic_file)).shuffle(100).batch(20))
    lines = tf.data.TextLineDataset(f["titanic"])
    return tf.data.Dataset.zip((tf.data.experimental.Counter(), lines)).shuffle(buffer_size=100).batch(20)


def shuffle_then_repeat_guide(f):
    # DATA ("Randomly shuffling input data": shuffle(100).batch(10).repeat(2), epochs kept apart)
    lines = tf.data.TextLineDataset(f["titanic"])
    return tf.data.Dataset.zip((tf.data.experimental.Counter(), lines)).shuffle(100).batch(10).repeat(2)


def repeat_then_shuffle_guide(f):
    # DATA ("Randomly shuffling input data": repeat(2).shuffle(100).batch(10), where the epochs mix)
    lines = tf.data.TextLineDataset(f["titanic"])
    return tf.data.Dataset.zip((tf.data.experimental.Counter(), lines)).repeat(2).shuffle(100).batch(10)


def repeat_epochs_guide(f):
    # DATA ("Processing multiple epochs": titanic_lines.repeat(3).batch(128))
    return tf.data.TextLineDataset(f["titanic"]).repeat(3).batch(128)


def csv_dataset_guide(f):
    # DATA ("Consuming CSV data", lower-level: CsvDataset with header=True)
    return tf.data.experimental.CsvDataset(f["titanic"], [tf.int32, tf.string, tf.float32, tf.float32], header=True)


def make_csv_dataset_guide(f):
    # DATA ("Consuming CSV data": tf.data.experimental.make_csv_dataset(titanic_file, batch_size=4,
    # label_name="survived")): every stage is the utility's own
    return tf.data.experimental.make_csv_dataset(f["titanic"], batch_size=4, label_name="survived")


def tfrecord_guide(f):
    # DATA ("Consuming TFRecord data": TFRecordDataset(filenames=[fsns_test_file]))
    return tf.data.TFRecordDataset(filenames=[f["shards"][0]])


def padded_batch_guide(f):
    # DATA ("Batching tensors with padding": map(lambda x: tf.fill([tf.cast(x, tf.int32)], x)).padded_batch(4))
    dataset = tf.data.Dataset.range(100).map(lambda x: tf.fill([tf.cast(x, tf.int32)], x))
    return dataset.padded_batch(4, padded_shapes=(None,))


def sampling_guide(f):
    # DATA ("Resampling", datasets sampling: unbatch, filter by class, repeat, sample_from_datasets, batch)
    creditcard = tf.data.Dataset.from_tensor_slices((np.zeros((256, 3), np.float32), np.arange(256) % 16 == 0)).batch(64)
    negative = creditcard.unbatch().filter(lambda features, label: tf.logical_not(label)).repeat()
    positive = creditcard.unbatch().filter(lambda features, label: label).repeat()
    return tf.data.Dataset.sample_from_datasets([negative, positive], [0.5, 0.5]).batch(10)


def rejection_resample_guide(f):
    # DATA ("Rejection resampling"): the creditcard pipeline, resampled
    features = tf.data.Dataset.from_tensor_slices((np.zeros((100, 3), np.float32), np.arange(100) % 10 == 0))
    counts = features.map(lambda x, y: (x, tf.cast(y, tf.int64))).batch(10)
    resampled = counts.unbatch().rejection_resample(lambda x, y: y, target_dist=[0.5, 0.5], initial_dist=[0.9, 0.1])
    return resampled.map(lambda extra_label, features_and_label: features_and_label).batch(10).prefetch(AUTOTUNE)


def performance_prefetch(f):
    # PERF ("Prefetching": ArtificialDataset().prefetch(AUTOTUNE))
    return artificial_dataset().prefetch(tf.data.AUTOTUNE)


def performance_interleave(f):
    # PERF ("Parallel data extraction": interleave of ArtificialDataset with num_parallel_calls)
    return tf.data.Dataset.range(2).interleave(lambda _: artificial_dataset(), num_parallel_calls=tf.data.AUTOTUNE)


def mapped_function(s):
    # PERF: the stand-in for a slow transformation (a py_function that sleeps; no sleep here)
    return tf.py_function(lambda v: v, [s], tf.int64)


def performance_sequential_map(f):
    # PERF ("Sequential mapping": ArtificialDataset().map(mapped_function))
    return artificial_dataset().map(mapped_function)


def performance_parallel_map(f):
    # PERF ("Parallel mapping": ArtificialDataset().map(mapped_function, num_parallel_calls=AUTOTUNE))
    return artificial_dataset().map(mapped_function, num_parallel_calls=tf.data.AUTOTUNE)


def performance_scalar_map(f):
    # PERF ("Vectorizing mapping": the scalar map)
    return tf.data.Dataset.range(10000).map(lambda x: x + 1).batch(256)


def performance_vectorized(f):
    # PERF ("Vectorizing mapping": the vectorized map)
    return tf.data.Dataset.range(10000).batch(256).map(lambda x: x + 1)


def performance_file_cache(f):
    # PERF ("Caching": dataset.map(...).cache(filename))
    return tf.data.Dataset.range(10).map(lambda x: x * 2).cache(os.path.join(f["root"], "cache")).prefetch(AUTOTUNE)


NOTE_PREFETCH = {"no-prefetch-at-end": "note"}
CASES = {
    "fashion_mnist_guide": (fashion_mnist_guide, {"small-shuffle-buffer": "wrong", **NOTE_PREFETCH}),
    "text_lines_guide": (text_lines_guide, {"sequential-file-reading": "slow", **NOTE_PREFETCH}),
    "generator_guide": (generator_guide, {"generator-source": "slow", "small-shuffle-buffer": "wrong",
                                          **NOTE_PREFETCH}),
    "generator_counter_guide": (generator_counter_guide, {}),
    "generator_flowers_guide": (generator_flowers_guide, {"generator-source": "slow", **NOTE_PREFETCH}),
    "shuffle_counter_guide": (shuffle_counter_guide, NOTE_PREFETCH),
    "shuffle_then_repeat_guide": (shuffle_then_repeat_guide, NOTE_PREFETCH),
    "repeat_then_shuffle_guide": (repeat_then_shuffle_guide, {"repeat-before-shuffle": "wrong", **NOTE_PREFETCH}),
    "repeat_epochs_guide": (repeat_epochs_guide, NOTE_PREFETCH),
    "csv_dataset_guide": (csv_dataset_guide, NOTE_PREFETCH),
    "make_csv_dataset_guide": (make_csv_dataset_guide, {}),
    "tfrecord_guide": (tfrecord_guide, NOTE_PREFETCH),
    "padded_batch_guide": (padded_batch_guide, NOTE_PREFETCH),
    "sampling_guide": (sampling_guide, NOTE_PREFETCH),
    "rejection_resample_guide": (rejection_resample_guide, {}),
    "performance_prefetch": (performance_prefetch, {"generator-source": "slow"}),
    "performance_interleave": (performance_interleave, {}),
    "performance_sequential_map": (performance_sequential_map, {"generator-source": "slow", "map-not-parallel": "slow",
                                                                **NOTE_PREFETCH}),
    "performance_parallel_map": (performance_parallel_map, {"generator-source": "slow"}),
    "performance_scalar_map": (performance_scalar_map, {"vectorizable-map-before-batch": "slow", **NOTE_PREFETCH}),
    "performance_vectorized": (performance_vectorized, NOTE_PREFETCH),
    "performance_file_cache": (performance_file_cache, {"cache-to-file": "note"}),
}
