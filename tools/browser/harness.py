"""Drive JupyterLab / Notebook 7 in headless Debian Chromium (Playwright).

Shared by tests/browser/ and benchmarks/widgets.py. Nothing here is a test.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = os.environ.get("TUTOR_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: The lessons that the curriculum gives an explorer (checked even before their explorer call lands).
EXPLORER_LESSONS = ["02_batch_and_repeat", "03_shuffle", "05_augmentation", "07_performance"]
EXPLORER_CALL = re.compile(r"\b\w+_explorer\(")

# JupyterLab settings for a quiet, fully rendered notebook: every cell in the DOM
# (no windowing), no news or update pop-ups.
_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


def notebooks_dir() -> Path:
    """The folder of lessons under test (TUTOR_BROWSER_NOTEBOOKS overrides notebooks/, for development)."""
    return Path(os.environ.get("TUTOR_BROWSER_NOTEBOOKS", ROOT / "notebooks"))


def explorer_calls(path: Path) -> list[str]:
    """The ``*_explorer(`` calls in a notebook's code cells (empty when it has none)."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    found = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            source = "".join(cell.get("source", ""))
            found += EXPLORER_CALL.findall(source)
    return found


def lessons_with_explorers() -> list[str]:
    """Names (no suffix) of every lesson expected or found to hold an explorer."""
    names = set(EXPLORER_LESSONS)
    for path in notebooks_dir().glob("*.ipynb"):
        if explorer_calls(path):
            names.add(path.stem)
    return sorted(names)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: Servers started by :func:`start_server` and not stopped yet.
RUNNING: list = []


@dataclass
class Server:
    """A running Jupyter server: ``url(path)`` gives a tokenized address."""

    app: str
    port: int
    token: str
    root: Path
    process: subprocess.Popen
    log: Path

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}{sep}token={self.token}"

    def api(self, path: str, method: str = "GET"):
        request = urllib.request.Request(self.url("api/" + path), method=method)
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self) -> None:
        """Shut down every kernel (frees memory between lessons)."""
        for session in self.api("sessions"):
            self.api(f"sessions/{session['id']}", method="DELETE")
        for kernel in self.api("kernels"):
            self.api(f"kernels/{kernel['id']}", method="DELETE")

    def stop(self) -> None:
        try:
            self.shutdown_kernels()
        except OSError:
            pass
        if self in RUNNING:
            RUNNING.remove(self)
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_server(app: str, source: Path, workdir: Path, timeout: float = 90, kernels: dict | None = None,
                 python: str | Path | None = None) -> Server:
    """Start ``jupyter lab``, ``jupyter notebook`` or ``jupyter nbclassic`` on 127.0.0.1 (random free port, random token).

    The server's root is a copy of ``source`` inside ``workdir``, so executing
    lessons never writes outputs into the repository. ``kernels`` (name ->
    Python executable) adds kernels that run in other environments; ``python``
    runs the server itself from another environment (its front end included).
    """
    root = workdir / "notebooks"
    if not root.exists():
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    settings = workdir / "settings"
    for name, value in _SETTINGS.items():
        target = settings / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(value))
    for sub in ("config", "runtime", "workspaces"):
        (workdir / sub).mkdir(exist_ok=True)
    for name, python in (kernels or {}).items():
        spec = workdir / "data" / "kernels" / name
        spec.mkdir(parents=True, exist_ok=True)
        (spec / "kernel.json").write_text(json.dumps({
            "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": name, "language": "python"}))
    env = dict(os.environ)
    env.update(
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(workdir / "workspaces"),
        JUPYTER_CONFIG_DIR=str(workdir / "config"),
        JUPYTER_RUNTIME_DIR=str(workdir / "runtime"),
        JUPYTER_PATH=str(workdir / "data"),
        TUTOR_DATA_SOURCE=env.get("TUTOR_DATA_SOURCE", "synthetic"),
        TF_CPP_MIN_LOG_LEVEL="3",
        PYTHONHASHSEED="0",
    )
    port, token = free_port(), secrets.token_hex(24)
    app_class = {"lab": "LabApp", "notebook": "JupyterNotebookApp"}.get(app)
    command = [
        str(python or sys.executable), "-m", "jupyter", app,
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--ServerApp.allow_root=True",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
    ] + ([f"--{app_class}.expose_app_in_browser=True"] if app_class else [])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = ARTIFACTS / f"jupyter-{app}.log"
    handle = open(log, "w")
    process = subprocess.Popen(command, env=env, stdout=handle, stderr=subprocess.STDOUT, cwd=workdir)
    server = Server(app, port, token, root, process, log)
    RUNNING.append(server)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter {app} exited with {process.returncode}; see {log}")
        try:
            server.api("status")
            return server
        except OSError:
            time.sleep(0.5)
    server.stop()
    raise RuntimeError(f"jupyter {app} did not answer within {timeout:.0f} s; see {log}")


def launch_browser(playwright):
    """Headless Debian Chromium with the flags this machine needs."""
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: apt-get install -y chromium (make browser does it)")
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


# --------------------------------------------------------------------------- notebook page helpers

_PROMPTS_JS = """() => Array.from(window.jupyterapp.shell.currentWidget.node.querySelectorAll('.jp-CodeCell')).map(cell => {
    const prompt = cell.querySelector('.jp-InputArea-prompt');
    const editor = cell.querySelector('.jp-InputArea-editor .cm-content');
    return {prompt: prompt ? prompt.textContent.trim() : '', empty: editor ? editor.textContent.trim() === '' : false};
})"""


_CLASSIC_DONE_JS = """() => { const nb = window.Jupyter && Jupyter.notebook;
    if (!nb || !nb.kernel || nb.kernel_busy) return false;
    return nb.get_cells().every(c => c.cell_type !== 'code' || (c.input_prompt_number !== null
                                       && c.input_prompt_number !== undefined && c.input_prompt_number !== '*')); }"""


def run_classic(page, server: Server, name: str, timeout_ms: int = 300_000) -> None:
    """Open ``name`` in the classic Notebook UI (nbclassic, where ipywidgets 7 has its own front end) and run every cell."""
    page.goto(server.url(f"nbclassic/notebooks/{name}.ipynb"), wait_until="domcontentloaded", timeout=120_000)
    page.wait_for_function("() => window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel"
                           " && Jupyter.notebook.kernel.is_connected()", timeout=120_000)
    # The widget manager asks the fresh kernel for its widgets first; a busy kernel makes that fail and
    # leaves every later widget blank. Give it an idle moment.
    page.wait_for_timeout(3000)
    page.evaluate("() => Jupyter.notebook.execute_all_cells()")
    page.wait_for_function(_CLASSIC_DONE_JS, timeout=timeout_ms, polling=500)
    page.wait_for_timeout(500)
    errors = page.evaluate("() => Array.from(document.querySelectorAll('.output_error, .output_stderr'))"
                           ".map(e => e.innerText.slice(0, 400))")
    assert not [e for e in errors if "Error" in e], f"{name} (nbclassic): {errors}"


def open_notebook(page, server: Server, name: str, timeout_ms: int = 120_000) -> None:
    """Open ``name`` (.ipynb) in the server's UI and wait until its kernel is ready."""
    # ?reset: start from an empty workspace, so no tab (and kernel) of an earlier lesson comes back.
    path = f"lab/tree/{name}?reset" if server.app == "lab" else f"notebooks/{name}"
    page.goto(server.url(path), wait_until="domcontentloaded", timeout=timeout_ms)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=timeout_ms)
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=timeout_ms)
    page.wait_for_function(
        """() => { const w = window.jupyterapp.shell.currentWidget;
                   return w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel
                          && w.sessionContext.session.kernel.connectionStatus === 'connected'; }""",
        timeout=timeout_ms,
    )


def restart_and_run_all(page, server: Server, timeout_ms: int = 600_000) -> list[dict]:
    """Clear outputs, Restart & Run All (confirming the dialog), wait until every cell ran and the kernel is idle.

    Returns the prompts of the code cells (``[{'prompt': '[1]:', 'empty': False}, ...]``).
    """
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.evaluate("() => { window.jupyterapp.commands.execute('runmenu:restart-and-run-all'); }")
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    accept.wait_for(timeout=30_000)
    accept.click()
    page.locator(".jp-Dialog").wait_for(state="detached", timeout=30_000)
    # Running: some prompt shows [*]; done: no [*] left, something ran, and the kernel is idle.
    page.wait_for_function(
        """() => Array.from(window.jupyterapp.shell.currentWidget.node.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt'))
                 .some(p => /\\d|\\*/.test(p.textContent))""",
        timeout=60_000,
    )
    page.wait_for_function(
        """() => { const w = window.jupyterapp.shell.currentWidget;
                   const prompts = Array.from(w.node.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt'));
                   const kernel = w && w.sessionContext.session && w.sessionContext.session.kernel;
                   return prompts.every(p => !p.textContent.includes('*')) && kernel && kernel.status === 'idle'; }""",
        timeout=timeout_ms,
        polling=500,
    )
    page.wait_for_timeout(500)  # let the last widget views attach
    return page.evaluate(_PROMPTS_JS)


_OUTPUT_PROBLEMS_JS = """() => {
    const problems = [];
    window.jupyterapp.shell.currentWidget.node.querySelectorAll('.jp-CodeCell').forEach((cell, index) => {
        cell.querySelectorAll('.jp-OutputArea-output').forEach(out => {
            const text = out.innerText || '';
            const mime = out.getAttribute('data-mime-type') || '';
            if (mime === 'application/vnd.jupyter.stderr' && /Traceback|\\w+(Error|Exception)\\b/.test(text))
                problems.push(`code cell ${index + 1}: error output: ${text.slice(0, 400)}`);
            if (text.includes('Error displaying widget'))
                problems.push(`code cell ${index + 1}: Error displaying widget`);
            if (mime !== 'application/vnd.jupyter.stderr' && /\\b(VBox|HBox|Explorer)\\(/.test(text))
                problems.push(`code cell ${index + 1}: widget shown as raw text: ${text.slice(0, 120)}`);
        });
    });
    return problems;
}"""


def output_problems(page) -> list[str]:
    """Error outputs, widgets that failed to display, and widgets shown as raw text."""
    return page.evaluate(_OUTPUT_PROBLEMS_JS)


def new_workdir(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))


def run_lesson(page, server: Server, name: str) -> None:
    """Open a lesson, Restart & Run All, and assert every cell ran with no error and every widget rendered."""
    open_notebook(page, server, f"{name}.ipynb")
    prompts = restart_and_run_all(page, server)
    problems = output_problems(page)
    not_run = [i + 1 for i, p in enumerate(prompts) if not p["empty"] and not re.search(r"\d", p["prompt"])]
    if not_run:
        problems.append(f"code cells {not_run} did not run (prompts {[prompts[i - 1]['prompt'] for i in not_run]})")
    unrendered = page.evaluate(
        """() => Array.from(window.jupyterapp.shell.currentWidget.node.querySelectorAll(
                 '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.widget-view+json"]'))
                 .filter(out => !out.querySelector('.jupyter-widgets')).length"""
    )
    if unrendered:
        problems.append(f"{unrendered} widget output(s) rendered nothing")
    assert not problems, f"{name} ({server.app}):\n" + "\n".join(problems)
