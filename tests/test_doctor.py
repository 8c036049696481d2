"""tutor.doctor: reading any pipeline (any length, any op, large arrays) and reporting.

The rules are tested in test_doctor_rules.py, real-world pipelines in
test_doctor_realworld.py, the lessons' pipelines in test_doctor_lessons.py and
measured findings in test_doctor_profile.py.
"""
import sys

import numpy as np
import pytest

import tutor  # noqa: F401  (before TensorFlow)
import tensorflow as tf

from tutor import doctor
from tutor.doctor import graph

AUTOTUNE = tf.data.AUTOTUNE


def range_ds(n=100):
    return tf.data.Dataset.range(n)


GOOD = {
    "shuffle-batch-repeat-prefetch": lambda: range_ds().shuffle(100).batch(10).repeat().prefetch(AUTOTUNE),
    "decode-cache-shuffle-crop-batch-prefetch": lambda: tf.data.Dataset.from_tensor_slices(["a.jpg", "b.jpg"])
    .map(lambda p: tf.image.resize(tf.io.decode_jpeg(tf.io.read_file(p), channels=3), [32, 32]),
         num_parallel_calls=AUTOTUNE)
    .cache()
    .shuffle(50)
    .map(lambda x: tf.image.random_crop(x, [24, 24, 3]), num_parallel_calls=AUTOTUNE)
    .batch(8)
    .prefetch(AUTOTUNE),
    "split-then-shuffle": lambda: range_ds().skip(10).shuffle(90).batch(8).prefetch(AUTOTUNE),
    "steps-from-endless-stream": lambda: range_ds().shuffle(100).batch(10).repeat().take(25).prefetch(AUTOTUNE),
    "tfrecord-interleave": lambda: tf.data.Dataset.from_tensor_slices(["a.tfrecord", "b.tfrecord"])
    .interleave(tf.data.TFRecordDataset, num_parallel_calls=AUTOTUNE)
    .shuffle(10_000)
    .batch(4)
    .map(lambda s: tf.io.parse_example(s, {"x": tf.io.FixedLenFeature([], tf.int64)}))
    .prefetch(AUTOTUNE),
}


@pytest.mark.parametrize("name", sorted(GOOD))
def test_no_false_alarms_on_good_pipelines(name):
    report = doctor.check(GOOD[name]())
    assert report.rules == [], str(report)
    assert doctor.NO_PROBLEMS in str(report)
    assert doctor.NO_PROBLEMS in report._repr_html_()


def test_reads_stages_and_constants_without_iterating():
    calls = []

    def spy(x):
        calls.append(1)
        return x

    ds = range_ds(10).map(lambda x: tf.py_function(spy, [x], tf.int64)).repeat().batch(4, drop_remainder=True)
    stages = doctor.read_pipeline(ds.prefetch(AUTOTUNE))
    assert [s.label for s in stages] == [
        "range(10)", "map(lambda)", "repeat()", "batch(batch_size=4, drop_remainder=True)",
        "prefetch(buffer_size=AUTOTUNE)"]
    assert [s.cardinality for s in stages] == [10, 10, -1, -1, -1]
    assert stages[3].params == {"batch_size": 4, "drop_remainder": True}
    assert stages.read_from == "graph" and stages.note is None
    assert calls == []  # the endless dataset was never iterated


def test_zip_pipelines_are_read_as_a_tree():
    ds = tf.data.Dataset.zip((range_ds(5), range_ds(7).shuffle(7))).batch(2).prefetch(1)
    stages = doctor.read_pipeline(ds)
    zip_stage = next(s for s in stages if s.label == "zip(...)")
    assert sorted(s.label for s in zip_stage.inputs) == ["range(5)", "shuffle(buffer_size=7)"]
    assert doctor.check(ds).rules == []


def test_a_pipeline_deeper_than_pythons_recursion_limit_is_read_without_recursion():
    """One dataset per file, concatenated: the realistic way to build a very deep pipeline.

    The chain of concatenates is deeper than Python's recursion limit, so a reader that recursed would fail.
    """
    files = sys.getrecursionlimit() + 200
    ds = range_ds(2)
    for _ in range(files):
        ds = ds.concatenate(range_ds(1))
    report = doctor.check(ds.shuffle(10_000).batch(32).prefetch(AUTOTUNE))
    assert len(report.stages) == 2 * files + 4
    assert report.stages[-1].label == "prefetch(buffer_size=AUTOTUNE)"
    assert report.stages[-4].cardinality == files + 2  # the last concatenate
    assert report.rules == []


def test_large_in_memory_data_is_read_from_the_python_objects(monkeypatch):
    """Above GRAPH_BYTES_LIMIT the arrays are not copied into a graph; the reading stays the same."""
    data = np.zeros((2000, 32), np.float32)

    def pipeline():
        return (tf.data.Dataset.from_tensor_slices((data, np.zeros(2000, np.int64)))
                .shuffle(2000, reshuffle_each_iteration=False).map(lambda x, y: (x * 2.0, y))
                .batch(16, drop_remainder=True).cache().repeat(2).prefetch(AUTOTUNE))

    from_graph = doctor.read_pipeline(pipeline())
    monkeypatch.setattr(graph, "GRAPH_BYTES_LIMIT", 100_000)
    from_objects = doctor.read_pipeline(pipeline())
    assert from_objects.read_from == "objects" and "0 MB of in-memory data" in from_objects.note
    key = lambda s: (s.kind, s.label, s.params, s.cardinality, s.data_ops, s.library)  # noqa: E731
    assert [key(s) for s in from_objects] == [key(s) for s in from_graph]
    assert from_objects[0].data_bytes == from_graph[0].data_bytes == data.nbytes + 2000 * 8
    report = doctor.check(pipeline())
    assert report.note and report.note in str(report) and report.rules == ["vectorizable-map-before-batch"]


def test_unknown_and_unusual_ops_degrade_gracefully():
    """No exception on any pipeline TensorFlow can build: unknown ops are stages of their own kind."""
    r = range_ds(20)
    pipelines = [
        r.scan(np.int64(0), lambda state, x: (state + x, state)),
        r.window(4).flat_map(lambda w: w.batch(4)),
        r.group_by_window(lambda x: x % 2, lambda k, w: w.batch(2), window_size=2),
        r.map(lambda x: tf.fill([x % 3 + 1], x)).ragged_batch(2),
        tf.data.Dataset.choose_from_datasets([r, r], tf.data.Dataset.range(2).repeat(5)),
        tf.data.Dataset.sample_from_datasets([r, r], seed=0),
        r.unique(),
        r.apply(tf.data.experimental.assert_cardinality(20)),
        r.take_while(lambda x: x < 10).ignore_errors(),
        tf.data.Dataset.from_tensor_slices(tf.sparse.from_dense([[1, 0], [0, 2]])),
        r.map(lambda x: {"a": x, "b": tf.strings.as_string(x)}).padded_batch(2),
        tf.data.Dataset.random(seed=0).take(4).batch(2).rebatch(1),
        r.snapshot("/tmp/tutor-doctor-snapshot-never-written"),
    ]
    for ds in pipelines:
        report = doctor.check(ds)
        assert report.stages and all(s.kind and s.label for s in report.stages), str(report)
    scan = doctor.read_pipeline(pipelines[0])
    assert scan[-1].kind == "scan" and scan[-1].label == "ScanDataset(...)"


def test_report_renders_as_text_and_html():
    report = doctor.check(range_ds().batch(10).shuffle(10))
    text, page = str(report), report._repr_html_()
    assert "stage 3: shuffle(buffer_size=10)" in text and "Fix:" in text and "Problem:" in text
    assert "TF docs:" in text and "https://www.tensorflow.org/" in text
    assert "stage 3: shuffle(buffer_size=10)" in page and "<b>Fix:</b>" in page and "<a href=" in page
    assert isinstance(report, list) and len(report) == 1 and len(report.notes) == 1
    assert repr(report) == text


def test_the_report_groups_findings_by_severity():
    report = doctor.check(range_ds(1000).repeat(2).shuffle(10).map(lambda x: tf.cast(x, tf.float32) + 1.0).batch(8))
    assert [f.severity for f in report] == ["wrong", "wrong", "slow"] and report.notes[0].severity == "note"
    assert report.by_severity == {"wrong": report[:2], "slow": report[2:], "note": report.notes}
    text = str(report)
    assert "3 problems (wrong results: 2, slow: 1), and 1 note." in text
    assert text.index("Wrong results:") < text.index("Slow:") < text.index("Notes:")
    assert "Note: " in text and "Tip: " in text and not report.healthy
    page = report._repr_html_()
    assert page.index("<b>Wrong results</b>") < page.index("<b>Slow</b>") < page.index("<b>Notes</b>")
    healthy = doctor.check(range_ds().shuffle(100).batch(10))  # its only finding is a note
    assert healthy.healthy and len(healthy) == 0 and healthy.rules == [] and healthy.note_rules
    assert "No problems found. (1 note below.)" in str(healthy) and "No problems found." in healthy._repr_html_()


def test_every_rule_is_declared_once_with_its_severity_and_citation():
    from tutor.doctor.registry import DECLARED, SEVERITIES, rule
    from tutor.doctor.rules import RULES

    assert RULES is doctor.RULES and doctor.Rule is type(RULES["shuffle-after-batch"])
    assert len(DECLARED) == len({r.id for r in DECLARED}) == len(RULES)
    order = [list(SEVERITIES).index(r.severity) for r in RULES.values()]
    assert order == sorted(order)  # report order: wrong, then slow, then notes
    for rule_id, r in {**RULES, **doctor.MEASURED_RULES}.items():
        assert r.id == rule_id and r.severity in SEVERITIES and set(r.severities) <= set(SEVERITIES)
        assert r.severities[0] == r.severity
        assert r.summary.endswith(".") and r.why and r.fix and r.quote and callable(r.check)
        assert r.doc.startswith("https://www.tensorflow.org/") and doctor.DOCS[rule_id] == (r.doc, r.quote)
    assert RULES["no-prefetch-at-end"].severities == ("note", "slow")
    assert RULES["repeat-before-shuffle"].severities == ("wrong", "note")
    with pytest.raises(ValueError, match="declared twice"):
        rule("shuffle-after-batch", severity="wrong", summary="x.", why="x", fix="x", doc="x", quote="x")(len)
    with pytest.raises(ValueError, match="severity must be one of"):
        rule("new-rule", severity="bad", summary="x.", why="x", fix="x", doc="x", quote="x")(len)
    assert "new-rule" not in [r.id for r in DECLARED]


@pytest.mark.parametrize("rule_id", list(doctor.RULES))
def test_each_rules_declared_example_triggers_it_and_its_fixed_version_does_not(rule_id):
    declared = doctor.RULES[rule_id]
    if not declared.example:  # these need a tf.data service or 512 MB: tested in test_doctor_rules_speed.py
        assert rule_id in ("python-before-service", "large-in-memory-source")
        return
    namespace = {"tf": tf, "np": np}

    def found(code):
        report = doctor.check(eval(code, namespace))
        return {f.rule: f.severity for f in [*report, *report.notes]}

    assert found(declared.example).get(rule_id) in declared.severities, declared.example
    assert rule_id not in found(declared.fixed), declared.fixed


def test_bad_input():
    with pytest.raises(TypeError, match="from_tensor_slices"):
        doctor.check([1, 2, 3])
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        doctor.check("range(10)")
    with pytest.raises(ValueError, match="unknown rule"):
        doctor.check(range_ds(), ignore=["no-such-rule"])
    with pytest.raises(TypeError, match="tutor.profile"):
        doctor.check(range_ds(), profile={"consumer_wait_fraction": 0.5})


def test_exported_from_tutor():
    assert tutor.doctor.check is doctor.check
    assert "doctor" in tutor.__all__


def test_a_label_ending_in_a_full_width_colon_takes_no_space_after_it():
    """Chinese and Japanese labels end in "：", which carries its own space: "问题：…", not "问题： …"."""
    tutor.set_language("zh")
    try:
        report = tutor.doctor.check(tf.data.Dataset.range(100).map(lambda x: x + 1).batch(4))
        text, html = str(report), report._repr_html_()
    finally:
        tutor.set_language("en")
    assert len(report) > 0 and "：" in text
    assert "： " not in text and "：</b> " not in html
