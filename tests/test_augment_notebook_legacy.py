"""Lesson 05 in the legacy environment (tests/envs/legacy-requirements.txt): the tfa path really runs, quietly.

Skipped wherever tensorflow-addons does not import (the main environment, Colab).
The committed outputs come from the main environment, so this test executes the
notebook without comparing or writing outputs; it checks that the run used this
interpreter, exercised tfa, and wrote nothing to stderr.
"""
import os
import sys
from pathlib import Path

import pytest

from tutor.augment.rotation import import_tfa

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "05_augmentation.ipynb"

pytestmark = pytest.mark.skipif(
    import_tfa() is None, reason="tensorflow-addons is not installed: this test runs in the legacy env (tests/envs/legacy-requirements.txt)"
)


def test_lesson_05_runs_the_tfa_path_without_stderr(monkeypatch):
    import nbformat
    import tensorflow as tf
    from nbclient import NotebookClient

    from tools.nbtools import HEADLESS_ENV

    for key, value in HEADLESS_ENV.items():
        monkeypatch.setenv(key, value)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # jupyter_client starts the "python3" kernel with this interpreter (sys.executable).
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    stderr = [o["text"] for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stderr"]
    assert stderr == [], f"lesson 05 wrote to stderr: {stderr[:2]}"
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert f"TensorFlow {tf.__version__}" in text, f"the kernel did not run in {sys.executable}"
    assert f"tensorflow-addons {import_tfa().__version__} imports" in text
    assert "nearest: 100.000% of pixels identical" in text
    assert "tfa per image:" in text  # the tfa path was timed too
    assert os.environ.get("TUTOR_DATA_SOURCE") == "synthetic"
