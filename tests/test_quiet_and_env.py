import subprocess
import sys

import tutor


def test_import_tutor_keeps_stderr_clean():
    code = (
        "import tutor, tensorflow as tf\n"
        "list(tf.data.Dataset.range(3).repeat(2).as_numpy_iterator())\n"
        "list(tf.data.Dataset.range(10).cache().take(3).repeat(2).as_numpy_iterator())\n"
        "tutor.take_elements(tf.data.Dataset.range(5).shuffle(3))\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""


def test_env_report_lists_versions_and_data_source():
    report = tutor.env_report()
    info = report.as_dict()
    assert info["TensorFlow"] == __import__("tensorflow").__version__
    assert "synthetic" in info["digit images"]
    assert "<table>" in report._repr_html_() and "TensorFlow" in str(report)
