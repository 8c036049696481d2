"""Helpers the rebuilt pipelines share: parsing the test records, loading the test images, a stand-in generator."""
import os

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
FEATURES = {"x": tf.io.FixedLenFeature([], tf.int64)}


def parse(record):
    return tf.io.parse_single_example(record, FEATURES)


def process_path(path):
    label = tf.strings.split(path, os.sep)[-2] == "cats"
    image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    return tf.image.resize(image, [8, 8]), label


def artificial_dataset():
    """The performance guide's ArtificialDataset: a generator that sleeps to imitate reading a file (no sleep here)."""
    def generator():
        for i in range(3):
            yield (i,)
    return tf.data.Dataset.from_generator(generator, output_signature=tf.TensorSpec((1,), tf.int64))
