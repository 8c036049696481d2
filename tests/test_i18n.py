"""tutor/i18n.py: the language switch, the TUTOR_LANG default, English as the fallback, and how messages are marked."""
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tutor
from tutor import env, i18n

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _english_after():
    yield
    i18n.set_language("en")


def test_set_language_accepts_the_three_languages_and_their_usual_spellings():
    for code in ("ja", "zh", "en"):
        assert tutor.set_language(code) is None and i18n.get_language() == code  # nothing to show in a notebook
    assert [i18n.normalize(name) for name in ("JA", "ja_JP.UTF-8", "zh-CN", "zh_Hans", "en-US")] == \
        ["ja", "ja", "zh", "zh", "en"]
    assert "set_language" in tutor.__all__


@pytest.mark.parametrize("bad", ["fr", "zh-TW", "", None, 3])
def test_an_unknown_language_gets_a_sentence_naming_the_choices(bad):
    tutor.set_language("ja")
    with pytest.raises(ValueError, match=r'set_language expects one of "en" \(English\), "ja" .*"zh"'):
        tutor.set_language(bad)
    assert i18n.get_language() == "ja"  # a refused call changes nothing


def test_messages_follow_the_language_and_fall_back_to_english():
    assert i18n.gettext("running on") == "running on"
    tutor.set_language("ja")
    assert i18n.gettext("running on") == "実行環境"
    assert i18n.gettext("a sentence no catalog has") == "a sentence no catalog has"
    tutor.set_language("zh")
    assert i18n.gettext("running on") == "运行环境"
    tutor.set_language("en")
    assert i18n.gettext("running on") == "running on"


def test_plural_forms_and_named_placeholders():
    assert i18n.ngettext("{n} core", "{n} cores", 1).format(n=1) == "1 core"
    assert i18n.ngettext("{n} core", "{n} cores", 16).format(n=16) == "16 cores"
    tutor.set_language("ja")
    text = i18n.ngettext("{cpus} CPU of time", "{cpus} CPUs of time", 2).format(cpus="2.0")
    assert text == "CPU 2.0 個分の時間"


def test_the_environment_report_speaks_the_language(monkeypatch):
    report = env.CpuReport(quota=1.0, affinity=16, host_cores=16, tensorflow_threads=16)
    english = report.sentence
    assert english == "1.0 CPU of time (a quota) on a host with 16 cores; TensorFlow sizes its thread pools for 16"
    tutor.set_language("ja")
    assert report.sentence == "CPU 1.0 個分の時間（クォータによる制限）、ホストのコア数 16。TensorFlow のスレッドプールは 16 コア分の大きさです"
    assert report.limited_by == "a quota"  # what code reads stays English
    tutor.set_language("zh")
    assert report.sentence.startswith("1.0 个 CPU 的时间（受配额限制），主机有 16 个核心")
    rows = tutor.env_report(data_source=False)
    assert "运行环境" in rows.as_dict() and "TensorFlow" in rows.as_dict()
    lines = str(rows).splitlines()
    assert i18n.width(lines[0].split("  ")[0]) + 2 <= len(lines[1]) and lines[1].startswith("Python     ")


def test_columns_count_wide_characters_twice():
    assert i18n.width("CPU 時間") == 8 and i18n.ljust("時間", 5) == "時間 "


def test_tutor_lang_sets_the_default_and_an_unknown_one_means_english(monkeypatch):
    for value, expected in [("ja", "ja"), ("zh_CN.UTF-8", "zh"), ("fr", "en"), ("", "en")]:
        monkeypatch.setenv(i18n.ENV_VAR, value)
        assert i18n._from_environment() == expected


@pytest.mark.slow  # a child process imports TensorFlow
def test_a_fresh_kernel_with_tutor_lang_speaks_it_from_import():
    code = ("import tutor, matplotlib\n"
            "print(tutor.i18n.get_language(), tutor.i18n.gettext('running on'), matplotlib.rcParams['font.family'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=600,
                         env=dict(os.environ, TUTOR_LANG="ja"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:2] == ["ja", "実行環境"] and "Noto Sans CJK JP" in out.stdout


# ------------------------------------------------------------------------------------------ how messages are marked
MARKERS = {"_", "ngettext", "N_"}


def _marked_calls(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS:
            yield node


@pytest.mark.parametrize("path", sorted((ROOT / "tutor").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_marked_messages_are_plain_strings_and_underscore_is_never_reassigned(path):
    """CONTRIBUTING.md, "Editions": the English whole inside _(), placeholders filled after the lookup."""
    tree = ast.parse(path.read_text())
    for call in _marked_calls(tree):
        texts = call.args[:2] if call.func.id == "ngettext" else call.args[:1]
        for arg in texts:
            where = f"{path.relative_to(ROOT)}:{call.lineno}"
            assert not isinstance(arg, (ast.JoinedStr, ast.BinOp)), f"{where}: an f-string, % or + inside {call.func.id}()"
            assert not (isinstance(arg, ast.Call) and getattr(arg.func, "attr", "") == "format"), \
                f"{where}: .format() inside {call.func.id}(); call it on what {call.func.id}() returns"
    imports_underscore = any(isinstance(n, ast.ImportFrom) and any(a.asname == "_" for a in n.names)
                             for n in ast.walk(tree))
    if imports_underscore:
        for node in ast.walk(tree):
            targets = [node.target] if isinstance(node, (ast.For, ast.comprehension)) else \
                getattr(node, "targets", [])
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            assert "_" not in names, f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')} assigns _, the " \
                                     "translation function here; name the unused value _unused"


def test_the_marking_test_can_fail():
    bad = ast.parse('x = _(f"{n} elements")\n')
    assert any(isinstance(c.args[0], ast.JoinedStr) for c in _marked_calls(bad))
