"""The doctor on real-world pipelines, rebuilt on small local data (tests/doctor_pipelines/).

Each case cites its public source and writes down the findings an expert
expects, with their severity, written before running the doctor. The doctor must
agree exactly: every expected finding, nothing else, and each of the right severity.
"""
import inspect

import pytest

import tutor  # noqa: F401  (before TensorFlow)

from doctor_pipelines import all_cases, make_files
from tutor import doctor

CASES = all_cases()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return make_files(tmp_path_factory.mktemp("realworld"))


def test_the_set_is_large_and_a_third_of_it_is_clean():
    assert len(CASES) >= 60
    clean = [name for name, (_, expected) in CASES.items() if not set(expected.values()) - {"note"}]
    assert len(clean) >= len(CASES) / 3, (len(clean), len(CASES))
    severities = {severity for _, expected in CASES.values() for severity in expected.values()}
    assert severities == {"wrong", "slow", "note"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_case_cites_its_source(name):
    build, expected = CASES[name]
    source = inspect.getsource(build)
    assert "    # " in source and any(mark in source for mark in ("https://", "GH/", "K/", "T/", "DATA", "PERF", "issue"))
    assert set(expected) <= set(doctor.RULES) and set(expected.values()) <= set(doctor.SEVERITIES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_doctor_agrees_with_the_expected_findings(name, files):
    build, expected = CASES[name]
    report = doctor.check(build(files))
    found = {f.rule: f.severity for f in [*report, *report.notes]}
    assert found == expected, str(report)
    assert report.healthy == (not set(expected.values()) - {"note"})
    for finding in [*report, *report.notes]:  # every finding names its stage, says why, gives a fix, cites TF's docs
        assert finding.where.startswith("stage ") and finding.message and finding.fix
        assert finding.doc.startswith("https://www.tensorflow.org/") and finding.quote
