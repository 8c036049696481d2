"""Mistakes reported in public: TensorFlow issues and this project's own reports of Kaggle notebooks."""
import random

import numpy as np

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from .common import AUTOTUNE, parse


def random_in_map(f):
    # https://github.com/tensorflow/tensorflow/issues/35682 ("random numbers in Dataset.map are always the same"):
    # Python's random inside the map function
    def augment(image):
        if random.random() > 0.5:
            image = tf.image.flip_left_right(image)
        return image

    ds = tf.data.Dataset.from_tensor_slices(np.zeros((8, 4, 4, 3), np.float32))
    return ds.map(augment, num_parallel_calls=AUTOTUNE).batch(4).prefetch(AUTOTUNE)


def seed_as_buffer(f):
    # the mistake reported in this project's issue 15 (Kaggle notebooks): shuffle(42) on a file of 2000 records
    records = tf.data.TFRecordDataset(f["big_records"]).shuffle(42)
    return records.map(parse, num_parallel_calls=AUTOTUNE).batch(4).prefetch(AUTOTUNE)


CASES = {
    "random_in_map": (random_in_map, {"python-random-in-map": "wrong"}),
    "seed_as_buffer": (seed_as_buffer, {"small-shuffle-buffer": "wrong"}),
}
