"""Data for the lessons, with no network needed.

* :func:`digits`: MNIST from ``keras.datasets`` when it is cached or can be
  downloaded, otherwise a deterministic digit set rendered offline from the
  fonts matplotlib ships; :func:`describe_source` says which one you got.
* :func:`jpeg_folder`: a folder of small colour JPEGs of digits, for the
  lessons that read and decode files; :func:`labels_from_paths` reads the
  labels back out of their names.
* :func:`text_files`, :func:`weather_csv`, :func:`class_folders`: a small
  text corpus, a CSV with missing values, and one folder of JPEGs per class,
  for the lesson on real sources.
* :func:`temporary_folder`: the folder a lesson writes its files into, deleted
  at exit, or, when the kernel was stopped from outside, at the next start.

>>> from tutor.data import digits
>>> x, y = digits(100, source="synthetic")
>>> x.shape, y.shape
((100, 28, 28), (100,))
"""
from .digit_images import ENV_VAR, MNIST_SIZE, SOURCES, Digits, describe_source, digits, synthetic_digits
from .jpeg_folders import class_folders, jpeg_folder, labels_from_paths
from .temporary import temporary_folder
from .text_and_csv import WEATHER_COLUMNS, text_files, weather_csv

__all__ = [
    "Digits", "ENV_VAR", "MNIST_SIZE", "SOURCES", "describe_source", "digits", "jpeg_folder",
    "labels_from_paths", "synthetic_digits", "temporary_folder", "WEATHER_COLUMNS", "class_folders", "text_files",
    "weather_csv",
]
