"""The facts each lesson states, checked on real TensorFlow: one file per lesson, test_lessonNN.py, as in
tests/exercises/ (shared helpers in helpers.py). A package, so that its module names do not collide with
the exercise tests' (facts.test_lesson04, exercises.test_lesson04)."""
