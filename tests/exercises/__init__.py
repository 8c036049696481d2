"""The exercise tests: one common test over every question (test_every_question.py), the framework
(test_framework.py), and one file per lesson with that lesson's own right answers and mistakes."""
