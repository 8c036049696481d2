"""Pipelines from TensorFlow's tutorials (https://www.tensorflow.org/tutorials, /text/tutorials)."""
import os

import numpy as np

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from .common import AUTOTUNE, parse, process_path

keras = tf.keras
T = "https://www.tensorflow.org/tutorials"


def load_images(f):
    # T/load_data/images ("Using tf.data for finer control")
    list_ds = tf.data.Dataset.list_files(os.path.join(f["root"], "images", "*", "*"), shuffle=False)
    list_ds = list_ds.shuffle(8, reshuffle_each_iteration=False)
    train_ds = list_ds.skip(2).map(process_path, num_parallel_calls=AUTOTUNE)
    return train_ds.cache().shuffle(buffer_size=1000).batch(2).prefetch(buffer_size=AUTOTUNE)


def image_classification(f):
    # T/images/classification ("Configure the dataset for performance": cache().shuffle(1000) of batches)
    train_ds = keras.utils.image_dataset_from_directory(os.path.join(f["root"], "images"), seed=123,
                                                        image_size=(8, 8), batch_size=2)
    return train_ds.cache().shuffle(1000).prefetch(buffer_size=AUTOTUNE)


def transfer_learning_test_split(f):
    # T/images/transfer_learning: the test set is taken off the validation set, which the utility reshuffles
    validation = keras.utils.image_dataset_from_directory(os.path.join(f["root"], "images"), shuffle=True,
                                                          batch_size=1, image_size=(8, 8))
    batches = tf.data.experimental.cardinality(validation)
    return validation.take(batches // 5).prefetch(buffer_size=AUTOTUNE)


def transfer_learning_validation(f):
    # T/images/transfer_learning (validation_dataset = validation_dataset.skip(val_batches // 5): what is left for
    # validation after the test batches were taken, from a utility that reshuffles every epoch)
    validation = keras.utils.image_dataset_from_directory(os.path.join(f["root"], "images"), shuffle=True,
                                                          batch_size=1, image_size=(8, 8))
    batches = tf.data.experimental.cardinality(validation)
    return validation.skip(batches // 5).prefetch(buffer_size=AUTOTUNE)


def transfer_learning_train(f):
    # T/images/transfer_learning (train_dataset = image_dataset_from_directory(...).prefetch(AUTOTUNE))
    train = keras.utils.image_dataset_from_directory(os.path.join(f["root"], "images"), shuffle=True, batch_size=2,
                                                     image_size=(8, 8))
    return train.prefetch(buffer_size=AUTOTUNE)


def text_classification(f):
    # T/keras/text_classification (raw_train_ds.map(vectorize_text), then cache().prefetch())
    raw_train_ds = keras.utils.text_dataset_from_directory(os.path.join(f["root"], "text"), batch_size=2, seed=42)
    vectorize_layer = keras.layers.TextVectorization(max_tokens=20, output_mode="int", output_sequence_length=4)
    vectorize_layer.adapt(raw_train_ds.map(lambda x, y: x))

    def vectorize_text(text, label):
        return vectorize_layer(tf.expand_dims(text, -1)), label

    return raw_train_ds.map(vectorize_text).cache().prefetch(buffer_size=AUTOTUNE)


def text_generation(f):
    # https://www.tensorflow.org/text/tutorials/text_generation ("Create training batches")
    sequences = tf.data.Dataset.from_tensor_slices(np.arange(1000, dtype=np.int64)).batch(100 + 1, drop_remainder=True)

    def split_input_target(sequence):
        return sequence[:-1], sequence[1:]

    return sequences.map(split_input_target).shuffle(10000).batch(4, drop_remainder=True).prefetch(AUTOTUNE)


def transformer_batches(f):
    # https://www.tensorflow.org/text/tutorials/transformer (make_batches: shuffle, batch, a tokenizing map over the
    # batch, prefetch; a string split stands in for the tokenizers)
    pairs = tf.data.Dataset.from_tensor_slices((["a b c"] * 64, ["x y"] * 64))

    def prepare_batch(pt, en):
        return tf.strings.split(pt).to_tensor(), tf.strings.split(en).to_tensor()

    return pairs.shuffle(20000).batch(8).map(prepare_batch, AUTOTUNE).prefetch(buffer_size=AUTOTUNE)


def tfrecord_tutorial(f):
    # T/load_data/tfrecord ("Reading a TFRecord file": one file, parse per record)
    return tf.data.TFRecordDataset([f["shards"][0]]).map(parse)


def load_numpy(f):
    # T/load_data/numpy (mnist.npz: shuffle(SHUFFLE_BUFFER_SIZE=100).batch(64) of 60000, scaled to 6000)
    train = tf.data.Dataset.from_tensor_slices((np.zeros((6000, 28, 28), np.float32), np.zeros(6000, np.int64)))
    return train.shuffle(100).batch(64)


def load_text_lines(f):
    # T/load_data/text ("Example 2": one TextLineDataset per file, labelled, concatenated, shuffled once)
    labeled = [tf.data.TextLineDataset(name).map(lambda line, i=i: (line, tf.cast(i, tf.int64)))
               for i, name in enumerate(f["lines"])]
    data = labeled[0].concatenate(labeled[1]).concatenate(labeled[2])
    return data.shuffle(50000, reshuffle_each_iteration=False)


def csv_titanic_slices(f):
    # T/load_data/csv ("Using tf.data": from_tensor_slices of the features, shuffle(len(labels)).batch(32))
    features, labels = {"age": np.arange(627.0), "fare": np.ones(627)}, np.zeros(627, np.int64)
    return tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(len(labels)).batch(32)


def csv_fonts(f):
    # T/load_data/csv ("Multiple files": make_csv_dataset(file_pattern=..., num_parallel_reads=20,
    # shuffle_buffer_size=10000))
    return tf.data.experimental.make_csv_dataset(file_pattern=f["fonts"], batch_size=10, num_epochs=1,
                                                 num_parallel_reads=20, shuffle_buffer_size=10000)


def structured_data(f):
    # T/structured_data/preprocessing_layers (df_to_dataset)
    frame = {"age": np.arange(40.0)[:, None], "fee": np.ones((40, 1))}
    ds = tf.data.Dataset.from_tensor_slices((frame, np.zeros(40, np.int64)))
    return ds.shuffle(buffer_size=40).batch(8).prefetch(8)


def pandas_dataframe(f):
    # T/load_data/pandas_dataframe (numeric_dataset.shuffle(1000).batch(...))
    numeric = tf.data.Dataset.from_tensor_slices((np.zeros((303, 4), np.float32), np.zeros(303, np.int64)))
    return numeric.shuffle(1000).batch(2)


def time_series(f):
    # T/structured_data/time_series (WindowGenerator.make_dataset)
    data = np.arange(300, dtype=np.float32).reshape(100, 3)
    ds = keras.utils.timeseries_dataset_from_array(data=data, targets=None, sequence_length=7, sequence_stride=1,
                                                   shuffle=True, batch_size=32)
    return ds.map(lambda w: (w[:, :6, :], w[:, 6:, :]))


def imbalanced_data(f):
    # T/structured_data/imbalanced_data (make_ds: shuffle().repeat() per class, sample_from_datasets, batch, prefetch)
    def make_ds(n):
        return tf.data.Dataset.from_tensor_slices((np.zeros((n, 3), np.float32), np.zeros(n, np.int64))).shuffle(
            100000).repeat()

    resampled = tf.data.Dataset.sample_from_datasets([make_ds(40), make_ds(400)], weights=[0.5, 0.5])
    return resampled.batch(32).prefetch(2)


def data_augmentation_prepare(f):
    # T/images/data_augmentation (prepare(ds, shuffle=True, augment=True))
    resize_and_rescale = keras.Sequential([keras.layers.Resizing(8, 8), keras.layers.Rescaling(1.0 / 255)])
    augmentation = keras.Sequential([keras.layers.RandomFlip("horizontal_and_vertical")])
    ds = tf.data.Dataset.from_tensor_slices((np.zeros((200, 10, 10, 3), np.float32), np.zeros(200, np.int64)))
    ds = ds.map(lambda x, y: (resize_and_rescale(x), y), num_parallel_calls=AUTOTUNE).shuffle(1000).batch(8)
    ds = ds.map(lambda x, y: (augmentation(x, training=True), y), num_parallel_calls=AUTOTUNE)
    return ds.prefetch(buffer_size=AUTOTUNE)


def augmentation_stateless(f):
    # T/images/data_augmentation ("Option 2": zip with a Counter for seeds, tf.image.stateless_random_* in a map)
    train = tf.data.Dataset.from_tensor_slices((np.zeros((64, 10, 10, 3), np.float32), np.zeros(64, np.int64)))
    counter = tf.data.experimental.Counter()
    train = tf.data.Dataset.zip((train, (counter, counter)))

    def augment(image_label, seed):
        image, label = image_label
        image = tf.image.stateless_random_crop(tf.image.resize_with_crop_or_pad(image, 12, 12), [8, 8, 3], seed=seed)
        return tf.image.stateless_random_brightness(image, max_delta=0.5, seed=seed), label

    return train.shuffle(1000).map(augment, num_parallel_calls=AUTOTUNE).batch(8).prefetch(AUTOTUNE)


def segmentation(f):
    # T/images/segmentation (load_image in a parallel map, cache().shuffle().batch().repeat().map(Augment()))
    images = tf.data.Dataset.from_tensor_slices((np.zeros((16, 8, 8, 3), np.float32), np.zeros((16, 8, 8, 1), np.float32)))
    train = images.map(lambda x, m: (tf.image.resize(x, (8, 8)), tf.image.resize(m, (8, 8))), num_parallel_calls=AUTOTUNE)
    flip = keras.layers.RandomFlip(mode="horizontal", seed=42)
    batches = train.cache().shuffle(1000).batch(4).repeat()
    return batches.map(lambda x, m: (flip(x), m)).prefetch(buffer_size=AUTOTUNE)


def dcgan(f):
    # T/generative/dcgan (from_tensor_slices(train_images).shuffle(60000).batch(256))
    return tf.data.Dataset.from_tensor_slices(np.zeros((600, 28, 28, 1), np.float32)).shuffle(600).batch(16)


def pix2pix(f):
    # T/generative/pix2pix (list_files, load_image_train with random jitter in a parallel map, shuffle(400), batch(1))
    def load_image_train(path):
        image = tf.image.resize(tf.io.decode_jpeg(tf.io.read_file(path)), [10, 10])
        image = tf.image.random_crop(image, [8, 8, 3])
        return tf.cond(tf.random.uniform(()) > 0.5, lambda: tf.image.flip_left_right(image), lambda: image)

    train = tf.data.Dataset.list_files(os.path.join(f["root"], "images", "*", "*.jpg"))
    return train.map(load_image_train, num_parallel_calls=AUTOTUNE).shuffle(400).batch(1)


def cyclegan(f):
    # T/generative/cyclegan (cache() of the images, then the random jitter, shuffle and batch)
    horses = tf.data.Dataset.from_tensor_slices(np.zeros((20, 10, 10, 3), np.float32))

    def preprocess_image_train(image):
        return tf.image.random_flip_left_right(tf.image.random_crop(image, [8, 8, 3]))

    return horses.cache().map(preprocess_image_train, num_parallel_calls=AUTOTUNE).shuffle(1000).batch(1)


def distribute_keras(f):
    # T/distribute/keras (mnist_train.map(scale).cache().shuffle(BUFFER_SIZE).batch(BATCH_SIZE))
    mnist = tf.data.Dataset.from_tensor_slices((np.zeros((600, 28, 28, 1), np.uint8), np.zeros(600, np.int64)))

    def scale(image, label):
        return tf.cast(image, tf.float32) / 255.0, label

    return mnist.map(scale).cache().shuffle(100).batch(64)


def quickstart_advanced(f):
    # T/quickstart/advanced (from_tensor_slices((x_train, y_train)).shuffle(10000).batch(32), 60000 images)
    x, y = np.zeros((6000, 28, 28, 1), np.float32), np.zeros(6000, np.int64)
    return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000).batch(32)


def word2vec(f):
    # https://www.tensorflow.org/text/tutorials/word2vec (shuffle, batch, then cache().prefetch())
    targets, contexts, labels = np.zeros(1000, np.int64), np.zeros((1000, 5), np.int64), np.zeros((1000, 5), np.int64)
    dataset = tf.data.Dataset.from_tensor_slices(((targets, contexts), labels))
    dataset = dataset.shuffle(10000).batch(64, drop_remainder=True)
    return dataset.cache().prefetch(buffer_size=AUTOTUNE)


def word2vec_vectorize(f):
    # https://www.tensorflow.org/text/tutorials/word2vec (text_ds.batch(1024).prefetch().map(vectorize_layer).unbatch())
    text_ds = tf.data.TextLineDataset(f["train_en"]).filter(lambda x: tf.cast(tf.strings.length(x), bool))
    vectorize_layer = keras.layers.TextVectorization(max_tokens=50, output_mode="int", output_sequence_length=4)
    vectorize_layer.adapt(text_ds.batch(1024))
    return text_ds.batch(1024).prefetch(AUTOTUNE).map(vectorize_layer).unbatch()


def video_classification(f):
    # T/video/video_classification (from_generator(FrameGenerator(...)), cache, shuffle(1000), prefetch, batch)
    def frame_generator():
        for i in range(6):
            yield np.zeros((4, 8, 8, 3), np.float32), i % 2

    signature = (tf.TensorSpec((None, None, None, 3), tf.float32), tf.TensorSpec((), tf.int16))
    train = tf.data.Dataset.from_generator(frame_generator, output_signature=signature)
    return train.cache().shuffle(1000).prefetch(buffer_size=AUTOTUNE).batch(2)


def simple_audio(f):
    # T/audio/simple_audio (audio_dataset_from_directory, squeeze, get_spectrogram over each batch in a parallel map,
    # then cache().shuffle(10000).prefetch(AUTOTUNE): the batches the utility made are frozen by the cache)
    train = keras.utils.audio_dataset_from_directory(os.path.join(f["root"], "audio"), batch_size=2, seed=0,
                                                     output_sequence_length=64)
    train = train.map(lambda audio, labels: (tf.squeeze(audio, axis=-1), labels), AUTOTUNE)

    def get_spectrogram(waveform):
        return tf.abs(tf.signal.stft(waveform, frame_length=16, frame_step=8))[..., tf.newaxis]

    spectra = train.map(lambda audio, label: (get_spectrogram(audio), label), num_parallel_calls=AUTOTUNE)
    return spectra.cache().shuffle(10000).prefetch(AUTOTUNE)


NOTE_PREFETCH = {"no-prefetch-at-end": "note"}
CASES = {
    "load_images": (load_images, {}),
    "image_classification": (image_classification, {"shuffle-after-batch": "wrong"}),
    "transfer_learning_test_split": (transfer_learning_test_split, {"split-after-reshuffle": "note"}),
    "transfer_learning_validation": (transfer_learning_validation, {"split-after-reshuffle": "wrong"}),
    "transfer_learning_train": (transfer_learning_train, {}),
    "text_classification": (text_classification, {"shuffle-before-cache": "wrong", "map-not-parallel": "slow"}),
    "text_generation": (text_generation, {}),
    "transformer_batches": (transformer_batches, {}),
    "tfrecord_tutorial": (tfrecord_tutorial, NOTE_PREFETCH),
    "load_numpy": (load_numpy, {"small-shuffle-buffer": "wrong", **NOTE_PREFETCH}),
    "load_text_lines": (load_text_lines, NOTE_PREFETCH),
    "csv_titanic_slices": (csv_titanic_slices, NOTE_PREFETCH),
    "csv_fonts": (csv_fonts, {}),
    "structured_data": (structured_data, {}),
    "pandas_dataframe": (pandas_dataframe, NOTE_PREFETCH),
    "time_series": (time_series, NOTE_PREFETCH),
    "imbalanced_data": (imbalanced_data, {}),
    "data_augmentation_prepare": (data_augmentation_prepare, {}),
    "augmentation_stateless": (augmentation_stateless, {}),
    "segmentation": (segmentation, {}),
    "dcgan": (dcgan, NOTE_PREFETCH),
    "pix2pix": (pix2pix, NOTE_PREFETCH),
    "cyclegan": (cyclegan, NOTE_PREFETCH),
    "distribute_keras": (distribute_keras, NOTE_PREFETCH),
    "quickstart_advanced": (quickstart_advanced, NOTE_PREFETCH),
    "word2vec": (word2vec, {"shuffle-before-cache": "wrong"}),
    "word2vec_vectorize": (word2vec_vectorize, {"map-not-parallel": "slow", **NOTE_PREFETCH}),
    "video_classification": (video_classification, {"generator-source": "slow", **NOTE_PREFETCH}),
    "simple_audio": (simple_audio, {"shuffle-after-batch": "wrong"}),
}
