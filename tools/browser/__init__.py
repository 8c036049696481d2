"""The browser harness: JupyterLab, Notebook 7 and nbclassic servers driven in headless Chromium (Playwright).

* :mod:`.harness`: start servers, launch Chromium, open and run notebooks.
* :mod:`.explorer_page`: scratch notebooks that show explorers, and what the page shows of each.

Used by tests/browser/ and benchmarks/widgets.py.
"""
