"""The doctor on real-world pipelines, rebuilt on small data with the structure of their source.

Each case cites where the pipeline comes from and writes down the findings an
expert expects (written before running the doctor). Sizes are scaled down with
the same ratios (a buffer of 5000 over 60000 examples becomes 500 over 6000).
"""
import functools
import os
import random

import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor import doctor

AUTOTUNE = tf.data.AUTOTUNE
keras = tf.keras


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Small JPEG/PNG folders, TFRecord shards, text files and WAV files for the rebuilt pipelines."""
    root = tmp_path_factory.mktemp("realworld")
    out = {"root": str(root)}
    for cls in ("cats", "dogs"):
        os.makedirs(root / "images" / cls)
        os.makedirs(root / "text" / cls)
        for i in range(4):
            tf.io.write_file(str(root / "images" / cls / f"{i}.jpg"), tf.io.encode_jpeg(np.zeros((8, 8, 3), np.uint8)))
            (root / "text" / cls / f"{i}.txt").write_text(f"a {cls} review number {i}")
    out["jpegs"] = sorted(str(p) for p in (root / "images").rglob("*.jpg"))
    shards = []
    for k in range(3):
        path = str(root / f"shard-{k}.tfrecord")
        with tf.io.TFRecordWriter(path) as w:
            for i in range(4):
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))}))
                w.write(ex.SerializeToString())
        shards.append(path)
    out["shards"] = shards
    out["lines"] = []
    for k in range(3):
        path = root / f"lines-{k}.txt"
        path.write_text("\n".join(f"line {i}" for i in range(5)))
        out["lines"].append(str(path))
    out["fixed"] = []
    for k in range(5):
        path = root / f"data_batch_{k}.bin"
        path.write_bytes(bytes(3073 * 4))
        out["fixed"].append(str(path))
    return out


FEATURES = {"x": tf.io.FixedLenFeature([], tf.int64)}


def parse(record):
    return tf.io.parse_single_example(record, FEATURES)


def process_path(path):
    label = tf.strings.split(path, os.sep)[-2] == "cats"
    image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    return tf.image.resize(image, [8, 8]), label


def artificial_dataset():
    # the guide's ArtificialDataset: a generator that sleeps to imitate reading a file (no sleep here)
    def generator():
        for i in range(3):
            yield (i,)
    return tf.data.Dataset.from_generator(generator, output_signature=tf.TensorSpec((1,), tf.int64))


def _case_load_images(f):
    # https://www.tensorflow.org/tutorials/load_data/images ("Using tf.data for finer control")
    list_ds = tf.data.Dataset.list_files(os.path.join(f["root"], "images", "*", "*"), shuffle=False)
    list_ds = list_ds.shuffle(8, reshuffle_each_iteration=False)
    train_ds = list_ds.skip(2).map(process_path, num_parallel_calls=AUTOTUNE)
    return train_ds.cache().shuffle(buffer_size=1000).batch(2).prefetch(buffer_size=AUTOTUNE)


def _case_image_classification(f):
    # https://www.tensorflow.org/tutorials/images/classification ("Configure the dataset for performance")
    train_ds = keras.utils.image_dataset_from_directory(os.path.join(f["root"], "images"), seed=123,
                                                        image_size=(8, 8), batch_size=2)
    return train_ds.cache().shuffle(1000).prefetch(buffer_size=AUTOTUNE)


def _case_transfer_learning_test_split(f):
    # https://www.tensorflow.org/tutorials/images/transfer_learning: the test set is split off the validation
    # set with take/skip after image_dataset_from_directory, which reshuffles every epoch
    validation = keras.utils.image_dataset_from_directory(os.path.join(f["root"], "images"), shuffle=True,
                                                          batch_size=1, image_size=(8, 8))
    batches = tf.data.experimental.cardinality(validation)
    return validation.take(batches // 5).prefetch(buffer_size=AUTOTUNE)


def _case_keras_from_scratch(f):
    # https://keras.io/examples/vision/image_classification_from_scratch/
    augmentation = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.RandomRotation(0.1)])
    train_ds = keras.utils.image_dataset_from_directory(os.path.join(f["root"], "images"), seed=1337,
                                                        image_size=(8, 8), batch_size=2)
    train_ds = train_ds.map(lambda img, label: (augmentation(img), label), num_parallel_calls=AUTOTUNE)
    return train_ds.prefetch(AUTOTUNE)


def _case_text_classification(f):
    # https://www.tensorflow.org/tutorials/keras/text_classification
    raw_train_ds = keras.utils.text_dataset_from_directory(os.path.join(f["root"], "text"), batch_size=2, seed=42)
    vectorize_layer = keras.layers.TextVectorization(max_tokens=20, output_mode="int", output_sequence_length=4)
    vectorize_layer.adapt(raw_train_ds.map(lambda x, y: x))

    def vectorize_text(text, label):
        return vectorize_layer(tf.expand_dims(text, -1)), label

    train_ds = raw_train_ds.map(vectorize_text)
    return train_ds.cache().prefetch(buffer_size=AUTOTUNE)


def _case_text_generation(f):
    # https://www.tensorflow.org/text/tutorials/text_generation ("Create training batches")
    ids_dataset = tf.data.Dataset.from_tensor_slices(np.arange(1000, dtype=np.int64))
    sequences = ids_dataset.batch(100 + 1, drop_remainder=True)

    def split_input_target(sequence):
        return sequence[:-1], sequence[1:]

    dataset = sequences.map(split_input_target)
    return dataset.shuffle(10000).batch(4, drop_remainder=True).prefetch(AUTOTUNE)


def _case_fashion_mnist_guide(f):
    # https://www.tensorflow.org/guide/data ("Consuming NumPy arrays" and "Using high-level APIs"):
    # 60000 images shuffled with a buffer of 5000, scaled to 6000 and 500
    images, labels = np.zeros((6000, 28, 28), np.uint8), np.zeros(6000, np.int64)
    return tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(500).batch(32).repeat()


def _case_text_lines_guide(f):
    # https://www.tensorflow.org/guide/data ("Consuming text data": interleave of TextLineDataset)
    return tf.data.Dataset.from_tensor_slices(f["lines"]).interleave(tf.data.TextLineDataset, cycle_length=3)


def _case_generator_guide(f):
    # https://www.tensorflow.org/guide/data ("Consuming Python generators": gen_series, shuffle(20), padded_batch)
    def gen_series():
        i = 0
        while i < 50:
            yield i, np.random.normal(size=(i % 5 + 1,))
            i += 1

    ds_series = tf.data.Dataset.from_generator(
        gen_series, output_signature=(tf.TensorSpec((), tf.int32), tf.TensorSpec((None,), tf.float32)))
    return ds_series.shuffle(20).padded_batch(10)


def _case_generator_counter_guide(f):
    # https://www.tensorflow.org/guide/data ("Consuming Python generators": count(25), a generator of scalars)
    def count(stop):
        i = 0
        while i < stop:
            yield i
            i += 1

    return tf.data.Dataset.from_generator(count, args=[25], output_signature=tf.TensorSpec((), tf.int32)).repeat().batch(10).prefetch(1)


def _case_performance_prefetch(f):
    # https://www.tensorflow.org/guide/data_performance ("Prefetching": ArtificialDataset().prefetch(AUTOTUNE))
    return artificial_dataset().prefetch(tf.data.AUTOTUNE)


def _case_performance_interleave(f):
    # https://www.tensorflow.org/guide/data_performance ("Parallel data extraction")
    return tf.data.Dataset.range(2).interleave(lambda _: artificial_dataset(), num_parallel_calls=tf.data.AUTOTUNE)


def _case_performance_scalar_map(f):
    # https://www.tensorflow.org/guide/data_performance ("Vectorizing mapping": the scalar map)
    return tf.data.Dataset.range(10000).map(lambda x: x + 1).batch(256)


def _case_performance_vectorized(f):
    # https://www.tensorflow.org/guide/data_performance ("Vectorizing mapping": the vectorized map)
    return tf.data.Dataset.range(10000).batch(256).map(lambda x: x + 1)


def _case_tfrecord_tutorial(f):
    # https://www.tensorflow.org/tutorials/load_data/tfrecord ("Reading a TFRecord file": one file, parse per record)
    return tf.data.TFRecordDataset([f["shards"][0]]).map(parse)


def _case_keras_tfrecords(f):
    # https://keras.io/examples/keras_recipes/tfrecord/ (load_dataset and get_dataset)
    ignore_order = tf.data.Options()
    ignore_order.experimental_deterministic = False
    dataset = tf.data.TFRecordDataset(f["shards"]).with_options(ignore_order)
    dataset = dataset.map(functools.partial(lambda r, labeled: parse(r), labeled=True), num_parallel_calls=AUTOTUNE)
    return dataset.shuffle(2048).prefetch(buffer_size=AUTOTUNE).batch(4)


def _case_bert_pretraining(f):
    # https://github.com/google-research/bert/blob/master/run_pretraining.py (input_fn_builder, tf.contrib.data
    # replaced by the tf.data.experimental calls of the same names)
    d = tf.data.Dataset.from_tensor_slices(tf.constant(f["shards"]))
    d = d.repeat().shuffle(buffer_size=len(f["shards"]))
    d = d.apply(tf.data.experimental.parallel_interleave(tf.data.TFRecordDataset, sloppy=True, cycle_length=2))
    d = d.shuffle(buffer_size=100)
    return d.apply(tf.data.experimental.map_and_batch(parse, batch_size=4, num_parallel_batches=2,
                                                      drop_remainder=True))


def _case_tpu_resnet(f):
    # https://github.com/tensorflow/tpu/blob/master/models/official/resnet/imagenet_input.py (input_fn)
    dataset = tf.data.Dataset.list_files(os.path.join(f["root"], "shard-*"), shuffle=True).repeat()
    dataset = dataset.apply(tf.data.experimental.parallel_interleave(
        lambda name: tf.data.TFRecordDataset(name, buffer_size=8 * 1024 * 1024), cycle_length=4, sloppy=True))
    dataset = dataset.shuffle(1024)
    dataset = dataset.apply(tf.data.experimental.map_and_batch(parse, batch_size=4, num_parallel_batches=2,
                                                               drop_remainder=True))
    return dataset.prefetch(tf.data.AUTOTUNE)


def _case_models_official_input_reader(f):
    # https://github.com/tensorflow/models/blob/master/official/core/input_reader.py (files shuffled, repeated,
    # interleaved in parallel, records shuffled, parsed in parallel, batched, prefetched)
    dataset = tf.data.Dataset.from_tensor_slices(f["shards"]).shuffle(len(f["shards"])).repeat()
    dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=2, num_parallel_calls=AUTOTUNE,
                                 deterministic=False)
    dataset = dataset.shuffle(10000).map(parse, num_parallel_calls=AUTOTUNE)
    return dataset.batch(4, drop_remainder=True).prefetch(AUTOTUNE)


def _case_cifar10_r1(f):
    # https://github.com/tensorflow/models/blob/r1.13.0/official/resnet/cifar10_main.py (input_fn) with
    # resnet_run_loop.process_record_dataset
    dataset = tf.data.FixedLengthRecordDataset(f["fixed"], 3073)
    dataset = dataset.prefetch(buffer_size=4).shuffle(buffer_size=20000).repeat(2)
    dataset = dataset.apply(tf.data.experimental.map_and_batch(
        lambda v: tf.io.decode_raw(v, tf.uint8), batch_size=4, num_parallel_batches=2, drop_remainder=False))
    return dataset.prefetch(buffer_size=tf.data.AUTOTUNE)


def _case_structured_data(f):
    # https://www.tensorflow.org/tutorials/structured_data/preprocessing_layers (df_to_dataset)
    frame = {"age": np.arange(40.0)[:, None], "fee": np.ones((40, 1))}
    ds = tf.data.Dataset.from_tensor_slices((frame, np.zeros(40, np.int64)))
    return ds.shuffle(buffer_size=40).batch(8).prefetch(8)


def _case_pandas_dataframe(f):
    # https://www.tensorflow.org/tutorials/load_data/pandas_dataframe (numeric_dataset.shuffle(1000).batch(...))
    numeric = tf.data.Dataset.from_tensor_slices((np.zeros((303, 4), np.float32), np.zeros(303, np.int64)))
    return numeric.shuffle(1000).batch(2)


def _case_time_series(f):
    # https://www.tensorflow.org/tutorials/structured_data/time_series (WindowGenerator.make_dataset)
    data = np.arange(300, dtype=np.float32).reshape(100, 3)
    ds = keras.utils.timeseries_dataset_from_array(data=data, targets=None, sequence_length=7, sequence_stride=1,
                                                   shuffle=True, batch_size=32)
    return ds.map(lambda w: (w[:, :6, :], w[:, 6:, :]))


def _case_ct_scans(f):
    # https://keras.io/examples/vision/3D_image_classification/ (scipy rotation through tf.numpy_function)
    def scipy_rotate(volume):
        return np.rot90(volume).astype(np.float32)

    def train_preprocessing(volume, label):
        volume = tf.numpy_function(scipy_rotate, [volume], tf.float32)
        return tf.expand_dims(volume, axis=3), label

    loader = tf.data.Dataset.from_tensor_slices((np.zeros((6, 4, 4, 4), np.float32), np.zeros(6, np.int64)))
    return loader.shuffle(6).map(train_preprocessing).batch(2).prefetch(2)


def _case_captcha_ocr(f):
    # https://keras.io/examples/vision/captcha_ocr/ (encode_single_sample in a parallel map)
    char_to_num = keras.layers.StringLookup(vocabulary=list("abc"), mask_token=None)

    def encode_single_sample(img_path, label):
        img = tf.io.decode_jpeg(tf.io.read_file(img_path), channels=1)
        img = tf.image.resize(tf.image.convert_image_dtype(img, tf.float32), [8, 8])
        return {"image": tf.transpose(img, perm=[1, 0, 2]),
                "label": char_to_num(tf.strings.unicode_split(label, input_encoding="UTF-8"))}

    ds = tf.data.Dataset.from_tensor_slices((f["jpegs"], ["ab"] * len(f["jpegs"])))
    return ds.map(encode_single_sample, num_parallel_calls=AUTOTUNE).batch(2).prefetch(buffer_size=AUTOTUNE)


def _case_data_augmentation_prepare(f):
    # https://www.tensorflow.org/tutorials/images/data_augmentation (prepare(ds, shuffle=True, augment=True))
    resize_and_rescale = keras.Sequential([keras.layers.Resizing(8, 8), keras.layers.Rescaling(1.0 / 255)])
    augmentation = keras.Sequential([keras.layers.RandomFlip("horizontal_and_vertical")])
    ds = tf.data.Dataset.from_tensor_slices((np.zeros((200, 10, 10, 3), np.float32), np.zeros(200, np.int64)))
    ds = ds.map(lambda x, y: (resize_and_rescale(x), y), num_parallel_calls=AUTOTUNE).shuffle(1000).batch(8)
    ds = ds.map(lambda x, y: (augmentation(x, training=True), y), num_parallel_calls=AUTOTUNE)
    return ds.prefetch(buffer_size=AUTOTUNE)


def _case_translation_transformer(f):
    # https://keras.io/examples/nlp/neural_machine_translation_with_transformer/ (make_dataset)
    eng, spa = ["a b", "b c", "c a", "a a"], ["x y", "y z", "z x", "x x"]
    eng_vec = keras.layers.TextVectorization(max_tokens=10, output_sequence_length=3)
    eng_vec.adapt(eng)

    def format_dataset(e, s):
        return {"encoder_inputs": eng_vec(e)}, s

    dataset = tf.data.Dataset.from_tensor_slices((eng, spa)).batch(2).map(format_dataset)
    return dataset.cache().shuffle(2048).prefetch(16)


def _case_random_in_map(f):
    # the mistake of https://github.com/tensorflow/tensorflow/issues/35682 ("random numbers in Dataset.map are
    # always the same"): Python's random inside the map function
    def augment(image):
        if random.random() > 0.5:
            image = tf.image.flip_left_right(image)
        return image

    ds = tf.data.Dataset.from_tensor_slices(np.zeros((8, 4, 4, 3), np.float32))
    return ds.map(augment, num_parallel_calls=AUTOTUNE).batch(4).prefetch(AUTOTUNE)


def _case_seed_as_buffer(f):
    # the mistake reported in this project's issue 15 (Kaggle notebooks): shuffle(42) on records of unknown size
    return tf.data.TFRecordDataset(f["shards"][0]).shuffle(42).map(parse, num_parallel_calls=AUTOTUNE).batch(4).prefetch(AUTOTUNE)


def _case_file_cache(f):
    # https://www.tensorflow.org/guide/data_performance ("Caching": dataset.map(...).cache(filename))
    return tf.data.Dataset.range(10).map(lambda x: x * 2).cache(os.path.join(f["root"], "cache")).prefetch(AUTOTUNE)


def _case_rejection_resample(f):
    # https://www.tensorflow.org/guide/data ("Rejection resampling"): the creditcard pipeline, resampled
    features = tf.data.Dataset.from_tensor_slices((np.zeros((100, 3), np.float32), np.arange(100) % 10 == 0))
    counts = features.map(lambda x, y: (x, tf.cast(y, tf.int64))).batch(10)
    resampled = counts.unbatch().rejection_resample(lambda x, y: y, target_dist=[0.5, 0.5], initial_dist=[0.9, 0.1])
    return resampled.map(lambda extra_label, features_and_label: features_and_label).batch(10).prefetch(AUTOTUNE)


#: name -> (build, expected rule ids). Written from the sources above before running the doctor.
CASES = {
    "load_images": (_case_load_images, set()),
    "image_classification": (_case_image_classification, {"shuffle-after-batch"}),
    "transfer_learning_test_split": (_case_transfer_learning_test_split, {"split-after-reshuffle"}),
    "keras_from_scratch": (_case_keras_from_scratch, set()),
    "text_classification": (_case_text_classification, {"shuffle-before-cache", "map-not-parallel"}),
    "text_generation": (_case_text_generation, set()),
    "fashion_mnist_guide": (_case_fashion_mnist_guide, {"small-shuffle-buffer", "no-prefetch-at-end"}),
    "text_lines_guide": (_case_text_lines_guide, {"sequential-file-reading", "no-prefetch-at-end"}),
    "generator_guide": (_case_generator_guide, {"generator-source", "small-shuffle-buffer", "no-prefetch-at-end"}),
    "generator_counter_guide": (_case_generator_counter_guide, set()),
    "performance_prefetch": (_case_performance_prefetch, {"generator-source"}),
    "performance_interleave": (_case_performance_interleave, {"no-prefetch-at-end"}),
    "performance_scalar_map": (_case_performance_scalar_map, {"vectorizable-map-before-batch", "no-prefetch-at-end"}),
    "performance_vectorized": (_case_performance_vectorized, {"no-prefetch-at-end"}),
    "tfrecord_tutorial": (_case_tfrecord_tutorial, {"no-prefetch-at-end"}),
    "keras_tfrecords": (_case_keras_tfrecords, {"sequential-file-reading", "no-prefetch-at-end"}),
    "bert_pretraining": (_case_bert_pretraining, {"repeat-before-shuffle", "small-shuffle-buffer",
                                                  "deprecated-experimental", "no-prefetch-at-end"}),
    "tpu_resnet": (_case_tpu_resnet, {"repeat-before-shuffle", "deprecated-experimental"}),
    "models_official_input_reader": (_case_models_official_input_reader, {"repeat-before-shuffle"}),
    "cifar10_r1": (_case_cifar10_r1, {"sequential-file-reading", "deprecated-experimental"}),
    "structured_data": (_case_structured_data, set()),
    "pandas_dataframe": (_case_pandas_dataframe, {"no-prefetch-at-end"}),
    "time_series": (_case_time_series, {"no-prefetch-at-end"}),
    "ct_scans": (_case_ct_scans, {"map-not-parallel"}),
    "captcha_ocr": (_case_captcha_ocr, set()),
    "data_augmentation_prepare": (_case_data_augmentation_prepare, set()),
    "translation_transformer": (_case_translation_transformer, {"shuffle-after-batch", "map-not-parallel"}),
    "random_in_map": (_case_random_in_map, {"python-random-in-map"}),
    "seed_as_buffer": (_case_seed_as_buffer, {"small-shuffle-buffer"}),
    "file_cache": (_case_file_cache, {"cache-to-file"}),
    "rejection_resample": (_case_rejection_resample, set()),
}


def test_the_set_is_large_enough():
    assert len(CASES) >= 30


@pytest.mark.parametrize("name", sorted(CASES))
def test_doctor_agrees_with_the_expected_findings(name, files):
    build, expected = CASES[name]
    report = doctor.check(build(files))
    assert set(report.rules) == expected, str(report)
    for finding in report:  # every finding names its stage, says why, gives a fix and cites TF's docs
        assert finding.where.startswith("stage ") and finding.message and finding.fix
        assert finding.doc.startswith("https://www.tensorflow.org/") and finding.quote
