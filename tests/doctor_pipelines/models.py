"""Pipelines from training code: tensorflow/models, tensorflow/tpu, google-research/bert, tensorflow/nmt.

These read many files, repeat endlessly and train by steps (TPU input code):
``repeat()`` before ``shuffle`` is their documented speed trade-off, a note.
"""
import os

import numpy as np

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from .common import AUTOTUNE, parse

GH = "https://github.com"


def bert_pretraining(f):
    # GH/google-research/bert/blob/master/run_pretraining.py (input_fn_builder; tf.contrib.data replaced by the
    # tf.data.experimental calls of the same names). Here the 3 shards hold 12 records, so shuffle(100) covers them.
    d = tf.data.Dataset.from_tensor_slices(tf.constant(f["shards"]))
    d = d.repeat().shuffle(buffer_size=len(f["shards"]))
    d = d.apply(tf.data.experimental.parallel_interleave(tf.data.TFRecordDataset, sloppy=True, cycle_length=2))
    d = d.shuffle(buffer_size=100)
    return d.apply(tf.data.experimental.map_and_batch(parse, batch_size=4, num_parallel_batches=2,
                                                      drop_remainder=True))


def bert_input_pipeline_tf2(f):
    # GH/tensorflow/models/blob/master/official/legacy/bert/input_pipeline.py (create_pretrain_dataset: files
    # repeated, interleaved in parallel, records shuffled, parsed in parallel, batched, prefetched)
    dataset = tf.data.Dataset.list_files(f["shards"], shuffle=True).repeat()
    dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=8, num_parallel_calls=AUTOTUNE)
    dataset = dataset.shuffle(100).map(parse, num_parallel_calls=AUTOTUNE)
    return dataset.batch(4, drop_remainder=True).prefetch(AUTOTUNE)


def tpu_resnet(f):
    # GH/tensorflow/tpu/blob/master/models/official/resnet/imagenet_input.py (input_fn)
    dataset = tf.data.Dataset.list_files(os.path.join(f["root"], "shard-*"), shuffle=True).repeat()
    dataset = dataset.apply(tf.data.experimental.parallel_interleave(
        lambda name: tf.data.TFRecordDataset(name, buffer_size=8 * 1024 * 1024), cycle_length=4, sloppy=True))
    dataset = dataset.shuffle(1024)
    dataset = dataset.apply(tf.data.experimental.map_and_batch(parse, batch_size=4, num_parallel_batches=2,
                                                               drop_remainder=True))
    return dataset.prefetch(tf.data.AUTOTUNE)


def tpu_mnist(f):
    # GH/tensorflow/tpu/blob/master/models/official/mnist/mnist_tpu.py (train_input_fn:
    # cache().repeat().shuffle(buffer_size=50000).batch(batch_size, drop_remainder=True)), 60000 scaled to 600
    ds = tf.data.Dataset.from_tensor_slices((np.zeros((600, 784), np.float32), np.zeros(600, np.int64)))
    return ds.cache().repeat().shuffle(buffer_size=500).batch(16, drop_remainder=True)


def models_mnist_tf2(f):
    # GH/tensorflow/models/blob/master/official/legacy/image_classification/mnist_main.py
    # (mnist_train.cache().repeat().shuffle(buffer_size=50000).batch(batch_size))
    ds = tf.data.Dataset.from_tensor_slices((np.zeros((600, 28, 28, 1), np.float32), np.zeros(600, np.int64)))
    return ds.cache().repeat().shuffle(buffer_size=500).batch(16)


def models_official_input_reader(f):
    # GH/tensorflow/models/blob/master/official/core/input_reader.py (files shuffled, repeated, interleaved in
    # parallel, records shuffled, parsed in parallel, batched, prefetched)
    dataset = tf.data.Dataset.from_tensor_slices(f["shards"]).shuffle(len(f["shards"])).repeat()
    dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=2, num_parallel_calls=AUTOTUNE,
                                 deterministic=False)
    dataset = dataset.shuffle(10000).map(parse, num_parallel_calls=AUTOTUNE)
    return dataset.batch(4, drop_remainder=True).prefetch(AUTOTUNE)


def cifar10_r1(f):
    # GH/tensorflow/models/blob/r1.13.0/official/resnet/cifar10_main.py (input_fn) with
    # resnet_run_loop.process_record_dataset
    dataset = tf.data.FixedLengthRecordDataset(f["fixed"], 3073)
    dataset = dataset.prefetch(buffer_size=4).shuffle(buffer_size=20000).repeat(2)
    dataset = dataset.apply(tf.data.experimental.map_and_batch(
        lambda v: tf.io.decode_raw(v, tf.uint8), batch_size=4, num_parallel_batches=2, drop_remainder=False))
    return dataset.prefetch(buffer_size=tf.data.AUTOTUNE)


def resnet_imagenet_r1(f):
    # GH/tensorflow/models/blob/r1.13.0/official/resnet/imagenet_main.py (input_fn: file names shuffled,
    # interleave(TFRecordDataset, cycle_length=10, num_parallel_calls), then process_record_dataset)
    dataset = tf.data.Dataset.from_tensor_slices(f["shards"]).shuffle(buffer_size=len(f["shards"]))
    dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=10, num_parallel_calls=AUTOTUNE)
    dataset = dataset.prefetch(buffer_size=4).shuffle(buffer_size=10000).repeat(2)
    dataset = dataset.apply(tf.data.experimental.map_and_batch(parse, batch_size=4, num_parallel_batches=1))
    return dataset.prefetch(buffer_size=AUTOTUNE)


def object_detection(f):
    # GH/tensorflow/models/blob/master/research/object_detection/builders/dataset_builder.py (read_dataset:
    # file names shuffled and repeated, parallel_interleave, records shuffled; build: map, batch, prefetch)
    filenames = tf.data.Dataset.from_tensor_slices(f["shards"]).shuffle(100).repeat(None)
    records = filenames.apply(tf.data.experimental.parallel_interleave(
        tf.data.TFRecordDataset, cycle_length=2, block_length=32, sloppy=True)).shuffle(2048)
    return records.map(parse, num_parallel_calls=AUTOTUNE).batch(4, drop_remainder=True).prefetch(2)


def nmt_iterator(f):
    # GH/tensorflow/nmt/blob/master/nmt/utils/iterator_utils.py (get_iterator: source and target files zipped
    # line by line, shuffled, split and looked up in parallel maps, filtered, padded_batch)
    src, tgt = tf.data.TextLineDataset(f["train_en"]), tf.data.TextLineDataset(f["train_de"])
    dataset = tf.data.Dataset.zip((src, tgt)).shuffle(4 * 1000, seed=1, reshuffle_each_iteration=True)
    dataset = dataset.map(lambda s, t: (tf.strings.split([s]).values, tf.strings.split([t]).values),
                          num_parallel_calls=4).prefetch(16)
    dataset = dataset.filter(lambda s, t: tf.logical_and(tf.size(s) > 0, tf.size(t) > 0))
    dataset = dataset.map(lambda s, t: (s, t, tf.size(s), tf.size(t)), num_parallel_calls=4)
    return dataset.padded_batch(4, padded_shapes=([None], [None], [], []))


NOTE_PREFETCH = {"no-prefetch-at-end": "note"}
ENDLESS = {"repeat-before-shuffle": "note"}
CASES = {
    "bert_pretraining": (bert_pretraining, {**ENDLESS, "deprecated-experimental": "note"}),
    "bert_input_pipeline_tf2": (bert_input_pipeline_tf2, ENDLESS),
    "tpu_resnet": (tpu_resnet, {**ENDLESS, "deprecated-experimental": "note"}),
    "tpu_mnist": (tpu_mnist, {**ENDLESS, **NOTE_PREFETCH}),
    "models_mnist_tf2": (models_mnist_tf2, {**ENDLESS, **NOTE_PREFETCH}),
    "models_official_input_reader": (models_official_input_reader, ENDLESS),
    "cifar10_r1": (cifar10_r1, {"sequential-file-reading": "slow", "deprecated-experimental": "note"}),
    "resnet_imagenet_r1": (resnet_imagenet_r1, {"deprecated-experimental": "note"}),
    "object_detection": (object_detection, {**ENDLESS, "deprecated-experimental": "note"}),
    "nmt_iterator": (nmt_iterator, NOTE_PREFETCH),
}
