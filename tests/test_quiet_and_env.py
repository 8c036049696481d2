import os
import platform
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
    assert info["Python"] == platform.python_version()
    assert info["CPU cores"] == str(os.cpu_count())
    assert "offline look-alikes" in info["digit images"] and "TUTOR_DATA_SOURCE=synthetic" in info["digit images"]
    assert info["running on"] == "local"
    assert "<table>" in report._repr_html_() and "TensorFlow" in str(report)


def test_env_report_names_a_fallback_and_never_raises(monkeypatch):
    from tutor import data, env

    real = data.digits

    def offline(n=10, **kwargs):
        d = real(n, source="synthetic")
        return data.Digits(d.images, d.labels, "synthetic", True)

    monkeypatch.setattr(data, "digits", offline)
    assert env.digit_source().endswith("(MNIST could not be downloaded)")
    monkeypatch.setattr(env, "_version", lambda module: "not installed")
    assert env.env_report(data_source=False).as_dict()["ipywidgets"].startswith("not installed")


def test_where_am_i_recognises_binder(monkeypatch):
    from tutor import env

    monkeypatch.setenv("BINDER_REPO_URL", "https://github.com/x/y")
    assert env.where_am_i() == "Binder"
