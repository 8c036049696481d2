"""Maintainer tools, not part of the learner's ``tutor`` package. Run them from the repository root.

* ``python -m tools.links``: point every badge, Colab install cell and the
  README's lesson table at the repository and ref in ``pyproject.toml``
  (``make links``; after forking, ``make links REPO=you/your-fork REF=main``).
* ``python -m tools.nbtools notebooks/*.ipynb``: re-execute lessons headlessly
  and store their outputs (``make notebooks``).
"""
