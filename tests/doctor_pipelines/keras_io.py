"""Pipelines from the keras.io examples (https://keras.io/examples/)."""
import functools
import os
import random

import numpy as np

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from .common import AUTOTUNE, parse

keras = tf.keras
K = "https://keras.io/examples"


def keras_from_scratch(f):
    # K/vision/image_classification_from_scratch/
    augmentation = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.RandomRotation(0.1)])
    train_ds = keras.utils.image_dataset_from_directory(os.path.join(f["root"], "images"), seed=1337,
                                                        image_size=(8, 8), batch_size=2)
    train_ds = train_ds.map(lambda img, label: (augmentation(img), label), num_parallel_calls=AUTOTUNE)
    return train_ds.prefetch(AUTOTUNE)


def keras_tfrecords(f):
    # K/keras_recipes/tfrecord/ (load_dataset and get_dataset: TFRecordDataset(filenames) without
    # num_parallel_reads, shuffle(2048).prefetch().batch())
    ignore_order = tf.data.Options()
    ignore_order.experimental_deterministic = False
    dataset = tf.data.TFRecordDataset(f["shards"]).with_options(ignore_order)
    dataset = dataset.map(functools.partial(lambda r, labeled: parse(r), labeled=True), num_parallel_calls=AUTOTUNE)
    return dataset.shuffle(2048).prefetch(buffer_size=AUTOTUNE).batch(4)


def creating_tfrecords_single(f):
    # K/keras_recipes/creating_tfrecords/ (one file read back: TFRecordDataset(path).map(parse_tfrecord_fn))
    return tf.data.TFRecordDataset(f["shards"][0]).map(parse)


def creating_tfrecords_get_dataset(f):
    # K/keras_recipes/creating_tfrecords/ (get_dataset: num_parallel_reads=AUTOTUNE, two parallel maps,
    # shuffle(batch_size * 10), batch, prefetch); here 12 records, so the buffer of 40 covers them
    dataset = tf.data.TFRecordDataset(f["shards"], num_parallel_reads=AUTOTUNE)
    dataset = dataset.map(parse, num_parallel_calls=AUTOTUNE).map(lambda e: e["x"], num_parallel_calls=AUTOTUNE)
    return dataset.shuffle(4 * 10).batch(4).prefetch(AUTOTUNE)


def ct_scans(f):
    # K/vision/3D_image_classification/ (rotate: random.choice inside the function that tf.numpy_function runs, so
    # a new angle per volume; the map has no num_parallel_calls)
    def scipy_rotate(volume):
        angle = random.choice([-20, -10, -5, 5, 10, 20])
        return np.rot90(volume, k=angle // 5).astype(np.float32)

    def train_preprocessing(volume, label):
        volume = tf.numpy_function(scipy_rotate, [volume], tf.float32)
        return tf.expand_dims(volume, axis=3), label

    loader = tf.data.Dataset.from_tensor_slices((np.zeros((6, 4, 4, 4), np.float32), np.zeros(6, np.int64)))
    return loader.shuffle(6).map(train_preprocessing).batch(2).prefetch(2)


def captcha_ocr(f):
    # K/vision/captcha_ocr/ (encode_single_sample in a parallel map)
    char_to_num = keras.layers.StringLookup(vocabulary=list("abc"), mask_token=None)

    def encode_single_sample(img_path, label):
        img = tf.io.decode_jpeg(tf.io.read_file(img_path), channels=1)
        img = tf.image.resize(tf.image.convert_image_dtype(img, tf.float32), [8, 8])
        return {"image": tf.transpose(img, perm=[1, 0, 2]),
                "label": char_to_num(tf.strings.unicode_split(label, input_encoding="UTF-8"))}

    ds = tf.data.Dataset.from_tensor_slices((f["jpegs"], ["ab"] * len(f["jpegs"])))
    return ds.map(encode_single_sample, num_parallel_calls=AUTOTUNE).batch(2).prefetch(buffer_size=AUTOTUNE)


def translation_transformer(f):
    # K/nlp/neural_machine_translation_with_transformer/ (make_dataset: batch, map(format_dataset), cache, shuffle)
    eng, spa = ["a b", "b c", "c a", "a a"], ["x y", "y z", "z x", "x x"]
    eng_vec = keras.layers.TextVectorization(max_tokens=10, output_sequence_length=3)
    eng_vec.adapt(eng)

    def format_dataset(e, s):
        return {"encoder_inputs": eng_vec(e)}, s

    dataset = tf.data.Dataset.from_tensor_slices((eng, spa)).batch(2).map(format_dataset)
    return dataset.cache().shuffle(2048).prefetch(16)


def text_classification_from_scratch(f):
    # K/nlp/text_classification_from_scratch/ (text_dataset_from_directory, map(vectorize_text), cache, prefetch(10))
    raw_train_ds = keras.utils.text_dataset_from_directory(os.path.join(f["root"], "text"), batch_size=2, seed=1337)
    vectorize_layer = keras.layers.TextVectorization(max_tokens=20, output_mode="int", output_sequence_length=4)
    vectorize_layer.adapt(raw_train_ds.map(lambda x, y: x))

    def vectorize_text(text, label):
        return vectorize_layer(tf.expand_dims(text, -1)), label

    return raw_train_ds.map(vectorize_text).cache().prefetch(buffer_size=10)


def speaker_recognition(f):
    # K/audio/speaker_recognition_using_cnn/ (paths_and_labels_to_dataset: zip of a parallel audio map and the labels,
    # shuffle(BATCH_SIZE * 8), batch, noise and FFT in parallel maps over batches, prefetch)
    def path_to_audio(path):
        audio, _ = tf.audio.decode_wav(tf.io.read_file(path), 1, 64)
        return audio

    audio_ds = tf.data.Dataset.from_tensor_slices(f["wavs"]).map(path_to_audio, num_parallel_calls=AUTOTUNE)
    label_ds = tf.data.Dataset.from_tensor_slices(np.arange(len(f["wavs"])) % 2)
    train_ds = tf.data.Dataset.zip((audio_ds, label_ds)).shuffle(buffer_size=2 * 8, seed=43).batch(2)
    train_ds = train_ds.map(lambda x, y: (x + 0.01 * tf.random.uniform(tf.shape(x)), y), num_parallel_calls=AUTOTUNE)

    def audio_to_fft(audio):
        audio = tf.squeeze(audio, axis=-1)
        fft = tf.signal.fft(tf.cast(tf.complex(real=audio, imag=tf.zeros_like(audio)), tf.complex64))
        return tf.math.abs(fft[:, : (audio.shape[1] // 2), tf.newaxis])

    train_ds = train_ds.map(lambda x, y: (audio_to_fft(x), y), num_parallel_calls=AUTOTUNE)
    return train_ds.prefetch(AUTOTUNE)


def oxford_pets(f):
    # K/vision/oxford_pets_image_segmentation/ (get_dataset: parallel load_img_masks, then batch)
    def load_img_masks(input_img_path, target_img_path):
        image = tf.image.resize(tf.io.decode_jpeg(tf.io.read_file(input_img_path)), (8, 8))
        mask = tf.image.resize(tf.io.decode_jpeg(tf.io.read_file(target_img_path), channels=1), (8, 8), method="nearest")
        return image, tf.cast(mask, tf.uint8) - 1

    dataset = tf.data.Dataset.from_tensor_slices((f["jpegs"], f["jpegs"]))
    return dataset.map(load_img_masks, num_parallel_calls=AUTOTUNE).batch(2)


def efficientnet(f):
    # K/vision/image_classification_efficientnet_fine_tuning/ (map(input_preprocess, AUTOTUNE), batch with
    # drop_remainder, prefetch)
    ds_train = tf.data.Dataset.from_tensor_slices((np.zeros((16, 8, 8, 3), np.uint8), np.arange(16) % 3))

    def input_preprocess(image, label):
        return tf.image.resize(image, (8, 8)), tf.one_hot(label, 3)

    ds_train = ds_train.map(input_preprocess, num_parallel_calls=AUTOTUNE)
    return ds_train.batch(batch_size=4, drop_remainder=True).prefetch(AUTOTUNE)


def mixup(f):
    # K/vision/mixup/ (two shuffled copies zipped, mix_up over batches with tf.random.gamma in a parallel map)
    x, y = np.zeros((600, 28, 28, 1), np.float32), np.zeros((600, 10), np.float32)
    one = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(16 * 100).batch(16)
    two = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(16 * 100).batch(16)

    def mix_up(ds_one, ds_two, alpha=0.2):
        (images_one, labels_one), (images_two, labels_two) = ds_one, ds_two
        g1, g2 = tf.random.gamma([16], alpha), tf.random.gamma([16], alpha)
        lam = g1 / (g1 + g2)
        x_l, y_l = tf.reshape(lam, (16, 1, 1, 1)), tf.reshape(lam, (16, 1))
        return images_one * x_l + images_two * (1 - x_l), labels_one * y_l + labels_two * (1 - y_l)

    return tf.data.Dataset.zip((one, two)).map(lambda a, b: mix_up(a, b, alpha=0.2), num_parallel_calls=AUTOTUNE)


NOTE_PREFETCH = {"no-prefetch-at-end": "note"}
CASES = {
    "keras_from_scratch": (keras_from_scratch, {}),
    "keras_tfrecords": (keras_tfrecords, {"sequential-file-reading": "slow", **NOTE_PREFETCH}),
    "creating_tfrecords_single": (creating_tfrecords_single, NOTE_PREFETCH),
    "creating_tfrecords_get_dataset": (creating_tfrecords_get_dataset, {}),
    "ct_scans": (ct_scans, {"map-not-parallel": "slow"}),
    "captcha_ocr": (captcha_ocr, {}),
    "translation_transformer": (translation_transformer, {"shuffle-after-batch": "wrong", "map-not-parallel": "slow"}),
    "text_classification_from_scratch": (text_classification_from_scratch, {"shuffle-before-cache": "wrong",
                                                                            "map-not-parallel": "slow"}),
    "speaker_recognition": (speaker_recognition, {}),
    "oxford_pets": (oxford_pets, NOTE_PREFETCH),
    "efficientnet": (efficientnet, {}),
    "mixup": (mixup, {}),
}
