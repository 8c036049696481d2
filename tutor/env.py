"""The environment report shown in lesson 00."""
from __future__ import annotations

import platform
import sys

import tensorflow as tf

from . import render


class EnvReport:
    """What this kernel runs on: versions, devices, widgets and the data source."""

    def __init__(self, rows: list[tuple[str, str]]):
        self.rows = rows

    def as_dict(self) -> dict[str, str]:
        return dict(self.rows)

    def __str__(self) -> str:
        width = max(len(k) for k, _ in self.rows)
        return "\n".join(f"{k:<{width}}  {v}" for k, v in self.rows)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return render.table(self.rows)


def where_am_i() -> str:
    """'Colab', 'Binder' or 'local'."""
    import os

    if "google.colab" in sys.modules:
        return "Colab"
    if os.environ.get("BINDER_SERVICE_HOST") or os.environ.get("BINDER_REPO_URL") or os.environ.get("BINDER_LAUNCH_HOST"):
        return "Binder"
    return "local"


def env_report(data_source: bool = True) -> EnvReport:
    """Collect versions, CPU/GPU devices, widget support and the digit source.

    Never raises: a missing optional package shows as "not installed".

    >>> "TensorFlow" in env_report(data_source=False).as_dict()
    True
    """
    import os

    gpus = tf.config.list_physical_devices("GPU")
    rows = [
        ("running on", where_am_i()),
        ("Python", platform.python_version()),
        ("TensorFlow", tf.__version__),
        ("Keras", _keras_version()),
        ("CPU cores", str(os.cpu_count())),
        ("GPU", ", ".join(g.name for g in gpus) if gpus else "none (CPU only: every lesson still works)"),
        ("ipywidgets", _version("ipywidgets") + _frontend_note()),
        ("matplotlib", _version("matplotlib")),
    ]
    if data_source:
        rows.append(("digit images", digit_source()))
    return EnvReport(rows)


def digit_source() -> str:
    """Where ``tutor.data.digits`` takes its images from in this kernel, in words."""
    from . import data

    digits = data.digits(n=10)
    if digits.source == "keras":
        return "MNIST, from keras.datasets"
    why = "MNIST could not be downloaded" if digits.fallback else "TUTOR_DATA_SOURCE=synthetic"
    return f"offline look-alikes drawn from the fonts that matplotlib ships ({why})"


def _version(module: str) -> str:
    try:
        return __import__(module).__version__
    except ImportError:
        return "not installed"


def _keras_version() -> str:
    try:
        import keras

        return keras.__version__
    except Exception:  # pragma: no cover - keras always ships with TF >= 2.16
        return "not installed"


def _frontend_note() -> str:
    try:
        import jupyterlab_widgets  # noqa: F401

        return " (JupyterLab front end installed)"
    except ImportError:
        return ""
