"""Every example in the package's docstrings runs and shows what it says (numpydoc examples are documentation)."""
import doctest
import importlib
import pkgutil

import numpy as np
import pytest
import tensorflow as tf

import tutor

MODULES = sorted(info.name for info in pkgutil.walk_packages(tutor.__path__, "tutor."))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", ["tutor", *MODULES])
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in finder.find(module, name, globs={"tf": tf, "np": np, "tutor": tutor, **vars(module)}):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) in {name} failed (see the output above)"
