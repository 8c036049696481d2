"""Lesson 08 exercises: the solution passes, typical mistakes fail with a message that teaches."""
from tutor.checks import lesson08 as ex


def test_q1_solution_passes():
    result = ex.q1.check(ex.q1.solution_answer())
    assert result.passed, result.message


def test_q1_mistakes():
    no_cache_reuse = lambda s: s.repeat(3).map(ex.decode).cache().shuffle(12).map(ex.augment).batch(4)
    assert "decode ran" in ex.q1.check(no_cache_reuse).message
    same_order = lambda s: s.map(ex.decode).cache().repeat(3).map(ex.augment).batch(4)
    assert "same order" in ex.q1.check(same_order).message
    frozen = lambda s: s.map(ex.decode).map(ex.augment).cache().shuffle(12).repeat(3).batch(4)
    assert "frozen" in ex.q1.check(frozen).message




def test_a_function_still_returning_the_placeholder_is_not_attempted():
    def fixed(source):
        return ...

    assert ex.q1.check(fixed).status == "unattempted"
