"""Real-world input pipelines for the doctor's tests, rebuilt on small local data.

Each module holds pipelines from one kind of public source (TensorFlow's guides,
its tutorials, tensorflow/models and other training code, keras.io, reported
mistakes). Each case is a function ``build(files) -> tf.data.Dataset`` whose
comment cites the source, listed in the module's ``CASES`` as
``name -> (build, {rule id: severity})``: the findings an expert expects, with
their severity (``"wrong"``, ``"slow"``, ``"note"``), written from the rule's meaning and
TensorFlow's documentation before the doctor was run. Sizes are scaled down
with their ratios; where the doctor counts the records of local files, the
expectation is for the files written here (:func:`make_files`).
"""
import os

import numpy as np

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from . import guides, keras_io, models, mistakes, tutorials


def _example(i: int) -> bytes:
    return tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))})).SerializeToString()


def _records(path: str, n: int) -> str:
    with tf.io.TFRecordWriter(path) as w:
        for i in range(n):
            w.write(_example(i))
    return path


def make_files(root) -> dict:
    """Small JPEG folders, TFRecord shards, text, CSV and WAV files; ``root`` is a pathlib.Path."""
    out = {"root": str(root)}
    for cls in ("cats", "dogs"):
        os.makedirs(root / "images" / cls)
        os.makedirs(root / "text" / cls)
        os.makedirs(root / "audio" / cls)
        for i in range(4):
            tf.io.write_file(str(root / "images" / cls / f"{i}.jpg"), tf.io.encode_jpeg(np.zeros((8, 8, 3), np.uint8)))
            (root / "text" / cls / f"{i}.txt").write_text(f"a {cls} review number {i}")
            tone = tf.constant(np.sin(np.arange(64) * (i + 1) / 10.0).astype(np.float32)[:, None])
            tf.io.write_file(str(root / "audio" / cls / f"{i}.wav"), tf.audio.encode_wav(tone, 16000))
    out["jpegs"] = sorted(str(p) for p in (root / "images").rglob("*.jpg"))
    out["wavs"] = sorted(str(p) for p in (root / "audio").rglob("*.wav"))
    out["shards"] = [_records(str(root / f"shard-{k}.tfrecord"), 4) for k in range(3)]
    out["big_records"] = _records(str(root / "train.tfrecord"), 2000)
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
    titanic = root / "titanic.csv"
    titanic.write_text("survived,sex,age,fare\n" + "".join(f"{i % 2},{'mf'[i % 2]},{20 + i % 50},{i % 7}.5\n"
                                                            for i in range(627)))
    out["titanic"] = str(titanic)
    os.makedirs(root / "fonts")
    for name in ("AGENCY", "ARIAL", "BAITI"):
        (root / "fonts" / f"{name}.csv").write_text("font,m_label,r0c0\n" + "".join(f"{name},{i},{i % 255}\n"
                                                                                 for i in range(30)))
    out["fonts"] = str(root / "fonts" / "*.csv")
    for lang, words in (("en", "a b c"), ("de", "x y z")):
        (root / f"train.{lang}").write_text("".join(f"{words} {i}\n" for i in range(40)))
    out["train_en"], out["train_de"] = str(root / "train.en"), str(root / "train.de")
    return out


def all_cases() -> dict:
    """Every module's ``CASES`` in one dict (names are unique across modules)."""
    cases = {}
    for module in (guides, tutorials, models, keras_io, mistakes):
        for name, case in module.CASES.items():
            assert name not in cases, f"two cases are named {name}"
            cases[name] = case
    return cases
