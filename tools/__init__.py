"""Maintainer tools, not part of the learner's ``tutor`` package. Run them from the repository root.

* ``python -m tools.links``: point every badge, Colab install cell and the
  README's lesson table at the repository and ref in ``pyproject.toml``
  (``make links``; after forking, ``make links REPO=you/your-fork REF=main``).
* ``python -m tools.nbtools notebooks/*.ipynb``: re-execute lessons headlessly
  and store their outputs (``make notebooks``).
* ``tools.memory``: the peak memory of a notebook run's kernels (benchmarks/notebooks.py, tests/envs).
* ``tools.browser``: JupyterLab and Notebook servers in headless Chromium (tests/browser, benchmarks/widgets.py).

tests/ and benchmarks/ import these; nothing here imports them, nor does ``tutor``.
"""
