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


def first_sentence(value: BaseException) -> str:
    """The line of a TensorFlow error message that says what went wrong, without its graph bookkeeping.

    >>> first_sentence(ValueError("{{function_node __wrapped__X}} Cannot batch tensors. [Op:IteratorGetNext] name: "))
    'Cannot batch tensors.'
    """
    text = getattr(value, "message", None) or str(value)
    text = re.sub(r"\{\{function_node [^}]*\}\}\s*", "", text)
    text = re.sub(r"\s*\[Op:\w+\]( name: ?\S*)?", "", text)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else type(value).__name__


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
    sentence = first_sentence(value)
    summary = f"the full traceback ({_frames(tb)} frames, most of them inside TensorFlow)"
    box = (f"<details style='margin:2px 0'><summary style='cursor:pointer'>{summary}</summary>"
           f"<pre style='white-space:pre-wrap;font-size:85%'>{html.escape(plain)}</pre></details>")
    shell._showtraceback(etype, value, [f"{etype.__name__}: {sentence}",
                                        "(raised inside TensorFlow: open the full traceback below, or run %tb)"])
    display({"text/plain": f"{summary}: run %tb to print it", "text/html": box}, raw=True)
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
