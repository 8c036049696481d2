"""TensorFlow's errors in a learner's cell, short: the sentence that matters first, the traceback one click away.

An error raised deep inside TensorFlow (a ragged list given to
``from_tensor_slices``, batching elements of different shapes) prints two
screens of TensorFlow's own frames before the one line that says what went
wrong. In a Jupyter kernel, ``import tutor`` installs :func:`short_errors`:
such an error then shows as its type and first sentence, with the full
traceback folded under it (and ``%tb`` prints it too). Errors raised by the
learner's own code, outside TensorFlow, show exactly as before.
``tutor.short_errors(False)`` switches back to IPython's usual display.
"""
from __future__ import annotations

import html
import os
import re
import sys
from typing import Any

from .i18n import gettext as _
from .i18n import ngettext

#: Packages whose frames count as "inside TensorFlow" when an error is raised there.
LIBRARIES = ("tensorflow", "keras", "tf_keras")

_INSTALLED: dict[str, Any] = {}


def raised_inside_tensorflow(tb) -> bool:
    """True when the innermost frame of traceback ``tb`` belongs to TensorFlow or Keras.

    >>> raised_inside_tensorflow(None)
    False
    """
    last = None
    while tb is not None:
        last, tb = tb, tb.tb_next
    if last is None:
        return False
    parts = os.path.normpath(last.tb_frame.f_code.co_filename).split(os.sep)
    return any(part in LIBRARIES for part in parts[:-1]) and ("site-packages" in parts or "dist-packages" in parts)


_TRACED = "in user code:"
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)')
_ERROR_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)): (?P<text>.*)$")
_LIBRARY_DIRS = ("site-packages", "dist-packages")


def _message(value: BaseException) -> str:
    return getattr(value, "message", None) or str(value)


def first_sentence(value: BaseException) -> str:
    """The line of a TensorFlow error message that says what went wrong, without its graph bookkeeping.

    For an error raised while TensorFlow traced a function (the one given to
    ``map``, ``filter``, ``tf.function``), the message starts with "in user
    code:" and a list of frames; the sentence that matters is its last line,
    which this returns without the repeated type name.

    >>> first_sentence(ValueError("{{function_node __wrapped__X}} Cannot batch tensors. [Op:IteratorGetNext] name: "))
    'Cannot batch tensors.'
    >>> first_sentence(TypeError('in user code:\\n\\n    File "x.py", line 1, in f  *\\n        return x\\n\\n'
    ...                          '    TypeError: Input has type string.\\n'))
    'Input has type string.'
    """
    text = _message(value)
    text = re.sub(r"\{\{function_node [^}]*\}\}\s*", "", text)
    text = re.sub(r"\s*\[Op:\w+\]( name: ?\S*)?", "", text)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return type(value).__name__
    if lines[0] == _TRACED and len(lines) > 1:
        last = _ERROR_LINE.match(lines[-1])
        if last and last.group("type").split(".")[-1] == type(value).__name__:
            return last.group("text")
        return lines[-1]
    return lines[0]


def traced_frames(value: BaseException) -> list[tuple[str, int, str, str]]:
    """The frames an "in user code:" message lists, as (file, line, function, source text); [] for other errors.

    >>> traced_frames(TypeError('in user code:\\n\\n    File "a.py", line 3, in f  *\\n        return x + 1\\n\\n'
    ...                         '    TypeError: bad\\n'))
    [('a.py', 3, 'f', 'return x + 1')]
    """
    lines = _message(value).splitlines()
    if not lines or lines[0].strip() != _TRACED:
        return []
    frames = []
    for i, line in enumerate(lines):
        found = _FRAME.match(line)
        if found:
            source = lines[i + 1].strip() if i + 1 < len(lines) and not _FRAME.match(lines[i + 1]) else ""
            frames.append((found.group("file"), int(found.group("line")), found.group("name"), source))
    return frames


def _in_library(path: str) -> bool:
    return any(part in _LIBRARY_DIRS for part in path.replace("\\", "/").split("/"))


def learner_line(value: BaseException, shell: Any = None) -> str | None:
    """Where in the learner's own code a traced function failed: "Cell In[3], line 1: lambda x: x + 'a'".

    It is the innermost frame of an "in user code:" message that is not inside
    an installed library; None when there is none.

    >>> learner_line(TypeError('in user code:\\n\\n    File "a.py", line 3, in f  *\\n        return x + 1\\n\\n'
    ...                        '    TypeError: bad\\n'))
    'a.py, line 3, in f: return x + 1'
    """
    own = [frame for frame in traced_frames(value) if not _in_library(frame[0])]
    if not own:
        return None
    path, line, name, source = own[-1]
    label = None
    compiler = getattr(shell, "compile", None)
    if compiler is not None and hasattr(compiler, "format_code_name"):
        try:
            label = compiler.format_code_name(path)
        except Exception:  # a display nicety: fall back to the file name
            label = None
    if label:
        # Translators: where a traced function failed, as Python's tracebacks say it: "Cell In[3], line 1".
        where = _("{file}, line {line}").format(file=" ".join(label), line=line)
    elif name not in ("None", "<module>"):
        # Translators: as Python's tracebacks say it: "a.py, line 3, in f" (f is the function's name).
        where = _("{file}, line {line}, in {function}").format(file=os.path.basename(path), line=line, function=name)
    else:
        where = _("{file}, line {line}").format(file=os.path.basename(path), line=line)
    return f"{where}: {source}" if source else where


def advice(value: BaseException) -> str | None:
    """A sentence on what to do instead, for the traced-function mistakes the lessons teach about; else None.

    >>> advice(ValueError("Cannot batch tensors."))  # nothing to add
    """
    text = _message(value)
    if "Cannot convert a symbolic" not in text or "numpy array" not in text:
        return None
    paths = [frame[0].replace("\\", "/") for frame in traced_frames(value)]
    if any("/keras/" in path for path in paths) and any("/jax/" in path for path in paths):
        return _("keras.ops on the JAX backend computes with JAX arrays, and a tf.data map runs TensorFlow's graph, "
                 "so it cannot run there (lesson 14). Use tf ops in the map (tf.cast(x, tf.float32) / 255), "
                 "or a Keras preprocessing layer such as keras.layers.Rescaling(1 / 255).")
    return _("A NumPy call inside a map gets a symbolic tensor: TensorFlow runs your function once to trace a graph "
             "(lesson 04). Use the tf op instead (tf.sqrt for np.sqrt), or wrap the NumPy code in tf.py_function.")


def _frames(tb) -> int:
    count = 0
    while tb is not None:
        count, tb = count + 1, tb.tb_next
    return count


def _handler(shell, etype, value, tb, tb_offset=None):
    if not raised_inside_tensorflow(tb):
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
        return None
    from IPython.display import display

    sys.last_type, sys.last_value, sys.last_traceback = etype, value, tb  # so %tb prints the whole traceback
    full = shell.InteractiveTB.stb2text(shell.InteractiveTB.structured_traceback(etype, value, tb))
    plain = re.sub(r"\x1b\[[0-9;]*m", "", full)
    lines = [f"{etype.__name__}: {first_sentence(value)}"]
    where = learner_line(value, shell)
    if where:
        # Translators: followed by the learner's own line of code, e.g. "Cell In[3], line 1: lambda x: x + 'a'".
        lines.append("  " + _("your line: {where}").format(where=where))
    todo = advice(value)
    if todo:
        lines.append(f"  {todo}")
    if traced_frames(value):
        lines.append(_("(raised while TensorFlow traced your function: open the full traceback below, or run %tb)"))
    else:
        lines.append(_("(raised inside TensorFlow: open the full traceback below, or run %tb)"))
    frames = _frames(tb)
    summary = ngettext("the full traceback ({n} frame, most of them inside TensorFlow)",
                       "the full traceback ({n} frames, most of them inside TensorFlow)", frames).format(n=frames)
    box = (f"<details style='margin:2px 0'><summary style='cursor:pointer'>{html.escape(summary)}</summary>"
           f"<pre style='white-space:pre-wrap;font-size:85%'>{html.escape(plain)}</pre></details>")
    shell._showtraceback(etype, value, lines)
    text = ngettext("the full traceback ({n} frame, most of them inside TensorFlow): run %tb to print it",
                    "the full traceback ({n} frames, most of them inside TensorFlow): run %tb to print it",
                    frames).format(n=frames)
    display({"text/plain": text, "text/html": box}, raw=True)
    return None


def short_errors(on: bool = True, *, shell=None) -> bool:
    """Show errors raised inside TensorFlow short in this Jupyter kernel (``on=False`` restores the usual display).

    Returns True when the short display is now on. Outside IPython, or where
    another tool already handles exceptions itself, it changes nothing.

    >>> short_errors(shell=None)  # not in a kernel here: nothing to change
    False
    """
    if shell is None:
        try:
            shell = get_ipython()  # type: ignore[name-defined]  # noqa: F821 - defined inside IPython
        except NameError:
            return False
    if shell is None or not hasattr(shell, "set_custom_exc"):
        return False
    mine = _INSTALLED.get("handler") is not None and shell.custom_exceptions == (Exception,)
    if not on:
        if mine:
            shell.set_custom_exc((), None)
            _INSTALLED.clear()
        return False
    if shell.custom_exceptions and not mine:  # someone else's handler: leave it alone
        return False
    shell.set_custom_exc((Exception,), _handler)
    _INSTALLED["handler"] = _handler
    return True


def install_in_kernel() -> None:
    """Called by ``import tutor``: switch the short display on when running inside a Jupyter kernel."""
    if "ipykernel" in sys.modules:
        try:
            short_errors(True)
        except Exception:  # never let a display nicety break the import
            pass
