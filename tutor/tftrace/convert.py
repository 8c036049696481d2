"""XProf, TensorFlow's profiler tools, run from Python on the folder a profile was written to.

``tf.profiler.experimental.stop()`` (or a Keras ``TensorBoard`` callback with
``profile_batch``) writes ``<logdir>/plugins/profile/<run>/<host>.xplane.pb``.
TensorBoard's *Profile* tab is XProf (the ``xprof`` package, which the
``tensorboard-plugin-profile`` package installs): its tools turn that file into
what their pages show. :func:`tool_data` calls the same converter, offline,
so a notebook can show the trace viewer's events and the input-pipeline
analysis without starting a server.
"""
from __future__ import annotations

import glob
import json
import os
from typing import Any

from .._quiet import stderr_to_devnull
from ..i18n import N_
from ..i18n import gettext as _

#: The tools this module reads: the trace viewer's events and the input-pipeline analysis.
TOOLS = ("trace_viewer", "input_pipeline_analyzer")
#: How to install XProf (English; translated where shown).
INSTALL = N_("pip install xprof (TensorBoard's Profile tab; the package tensorboard-plugin-profile installs it "
             "too). On Colab, lesson 16's setup cell installs it.")


class ToolMissingError(ImportError):
    """XProf is not installed, so TensorFlow's profile cannot be converted into its tools' views."""


def xprof_converter():
    """XProf's converter module, ``xprof.convert.raw_to_tool_data``, or :class:`ToolMissingError` in a sentence."""
    try:
        with stderr_to_devnull():
            from xprof.convert import raw_to_tool_data
    except ImportError as exc:
        # Translators: {install} is the sentence that says how to install XProf.
        raise ToolMissingError(_("tutor.tftrace reads TensorFlow's profile with XProf, TensorFlow's profiler "
                                 "tools, and they are not installed here ({error}). {install}")
                               .format(error=exc, install=_(INSTALL))) from None
    return raw_to_tool_data


def xspace_file(logdir: Any, where: str = "tutor.tftrace") -> str:
    """The newest ``*.xplane.pb`` file under ``logdir``: the profile TensorFlow's profiler wrote there."""
    if not isinstance(logdir, (str, os.PathLike)):
        raise TypeError(_("{where} expects the folder the profile was written to (the logdir given to "
                          "tf.profiler.experimental.start), got {type}.").format(where=where, type=type(logdir).__name__))
    logdir = os.fspath(logdir)
    if not os.path.isdir(logdir):
        raise FileNotFoundError(_("{where}: there is no folder {logdir!r}. Pass the logdir you gave to "
                                  "tf.profiler.experimental.start(logdir) or keras.callbacks.TensorBoard(logdir).")
                                .format(where=where, logdir=logdir))
    files = glob.glob(os.path.join(logdir, "**", "*.xplane.pb"), recursive=True)
    if not files:
        raise FileNotFoundError(_("{where}: no profile (*.xplane.pb) under {logdir!r}. TensorFlow writes it when "
                                  "the profiler stops: call tf.profiler.experimental.stop() after the run, or give "
                                  "the TensorBoard callback a profile_batch that the run reaches.")
                                .format(where=where, logdir=logdir))
    return max(files, key=os.path.getmtime)


def tool_data(logdir: Any, tool: str, where: str = "tutor.tftrace") -> Any:
    """What XProf's ``tool`` page shows for the profile under ``logdir``, as parsed JSON.

    Parameters
    ----------
    logdir : str or path
        The folder given to the profiler (searched for its newest ``*.xplane.pb``).
    tool : {"trace_viewer", "input_pipeline_analyzer"}
        The trace viewer's events (Chrome trace-event JSON), or the input-pipeline
        analysis (a list of Google Charts data tables).

    Returns
    -------
    dict or list
        The JSON the tool's page reads.
    """
    if tool not in TOOLS:
        raise ValueError(_("{where}: tool must be one of {tools}; got {tool!r}.").format(where=where,
                                                                                       tools=", ".join(TOOLS), tool=tool))
    path = xspace_file(logdir, where)
    convert = xprof_converter()
    with stderr_to_devnull():  # XProf's C++ converter logs every stage of its work
        data, _success = convert.xspace_to_tool_data([path], tool, {})
    if not data:
        raise RuntimeError(_("{where}: XProf could not convert {name} with its {tool} tool; the file may be cut "
                             "short (was the program stopped while the profiler wrote it?).")
                           .format(where=where, name=os.path.basename(path), tool=tool))
    return json.loads(data)
