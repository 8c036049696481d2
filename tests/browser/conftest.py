"""Fixtures for the real-browser tests: Jupyter servers on 127.0.0.1 and headless Chromium.

These tests need a browser and take minutes, so they run only when asked:
``make browser`` sets TUTOR_BROWSER_TESTS=1 (``pytest tests`` alone skips them).
"""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tools.browser import explorer_page, harness

REQUESTED = os.environ.get("TUTOR_BROWSER_TESTS") == "1"


def pytest_collection_modifyitems(config, items):
    if REQUESTED:
        return
    skip = pytest.mark.skip(reason="browser tests run with `make browser` (TUTOR_BROWSER_TESTS=1)")
    for item in items:
        if "tests/browser" in str(item.path).replace(os.sep, "/"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def playwright_instance():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_instance):
    browser = harness.launch_browser(playwright_instance)
    yield browser
    browser.close()


def _server(app):
    workdir = harness.new_workdir(f"tutor-browser-{app}-")
    server = harness.start_server(app, harness.notebooks_dir(), workdir)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def lab_server():
    yield from _server("lab")


@pytest.fixture(scope="session")
def notebook_server():
    yield from _server("notebook")


def _explorer_notebooks(front: str, workdir):
    """One notebook for each page of test_explorer_layout.py on this front end, showing its cases' explorers."""
    import test_explorer_layout as layout

    source = workdir / "source"
    source.mkdir()
    for group, cases in layout.GROUPS.items():
        if cases[0].front == front:
            explorer_page.explorer_notebook(source / f"{group}.ipynb",
                                            [(case.module, case.name, case.language) for case in cases],
                                            presentation=cases[0].presentation, display=front == "classic")
    return source


@pytest.fixture(scope="session")
def explorer_server():
    """JupyterLab (ipywidgets 8) on scratch notebooks of explorers (see test_explorer_layout.py)."""
    workdir = harness.new_workdir("tutor-browser-explorers-")
    server = harness.start_server("lab", _explorer_notebooks("lab", workdir), workdir)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def classic_server():
    """The classic Notebook UI served from the Colab-stack environment: ipywidgets 7.7.1, kernel and front end."""
    import test_explorer_layout as layout

    python = layout.COLAB_PYTHON
    if not python.exists():
        pytest.skip("the Colab-stack environment is missing: run `make colab-env`")
    found = subprocess.run([str(python), "-c", "import nbclassic, ipywidgets; print(ipywidgets.__version__)"],
                           capture_output=True, text=True)
    if found.returncode:
        pytest.skip("the Colab-stack environment has no nbclassic (the ipywidgets 7 front end runs there): "
                    f"{python} -m pip install nbclassic")
    workdir = harness.new_workdir("tutor-browser-classic-")
    server = harness.start_server("nbclassic", _explorer_notebooks("classic", workdir), workdir, python=python)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    messages = []
    page.on("pageerror", lambda exc: messages.append(f"pageerror: {exc}"))
    page.on("console", lambda msg: messages.append(f"console.{msg.type}: {msg.text}") if msg.type == "error" else None)
    page.console_errors = messages
    yield page
    if getattr(request.node, "rep_failed", False):
        harness.ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(harness.ARTIFACTS / f"FAILED-{request.node.name}.png"), full_page=True)
    context.close()
    for server in list(harness.RUNNING):  # free the lesson's kernel before the next one starts
        try:
            server.shutdown_kernels()
        except OSError:
            pass


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        item.rep_failed = True
