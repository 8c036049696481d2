"""Shared test set-up.

* nbval: stderr is left out of the comparison (TensorFlow may print C++ log
  lines there that vary from run to run), and the offline digit set is used.
"""
import os

os.environ.setdefault("TUTOR_DATA_SOURCE", "synthetic")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import matplotlib  # noqa: E402

matplotlib.use("Agg")


def _without_stderr(outputs):
    return [o for o in outputs if not (o.get("output_type") == "stream" and o.get("name") == "stderr")]


def pytest_configure(config):
    try:
        from nbval import plugin
    except ImportError:  # nbval not installed: nothing to patch
        return
    if getattr(plugin.IPyNbCell.compare_outputs, "_ignores_stderr", False):
        return
    original = plugin.IPyNbCell.compare_outputs

    def compare_outputs(self, test, ref, skip_compare=None):
        return original(self, _without_stderr(test), _without_stderr(ref), skip_compare)

    compare_outputs._ignores_stderr = True
    plugin.IPyNbCell.compare_outputs = compare_outputs
