"""What an explorer shows where its widget does not render.

An explorer's output holds several representations of one thing (a mime
bundle). A front end that runs the widget (JupyterLab, Notebook, Colab, with
the kernel alive) shows the live widget and ignores the rest. Everywhere else
one of the others is shown:

* ``text/html``: the picture the explorer showed when it was displayed (its
  starting picture, in a lesson) and a sentence that says the sliders work
  when the notebook runs. The course website (myst-nb is told to skip the
  widget view), GitHub's notebook viewer, and a saved notebook opened before
  its cells run show this.
* ``text/plain``: the same sentence in one line (a terminal, nbval).

The sentence says what to do (run the cells; or open the notebook on Colab or
Binder), not that widgets cannot work: in a saved notebook they work as soon
as the cell runs.
"""
from __future__ import annotations

import base64
import html

import ipywidgets as widgets

from ..i18n import gettext as _

#: The mime type of a live widget's view.
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def plain_text(name: str) -> str:
    """One line for text-only front ends; it fits ipywidgets' 110-character limit for widget text.

    >>> plain_text("shuffle_explorer")
    'shuffle_explorer: run this cell after the ones above to get its sliders (Jupyter, Colab or Binder).'
    """
    # Translators: shown instead of an explorer where widgets do not run; keep it under about 110 characters.
    return _("{name}: run this cell after the ones above to get its sliders (Jupyter, Colab or Binder).").format(
        name=name)


def static_html(name: str, png: bytes | None, width: int | None = None) -> str:
    """The picture ``png`` (if any) at ``width`` CSS pixels, and the sentence under it.

    >>> "run the cells above and this one" in static_html("order_explorer", None)
    True
    """
    title = html.escape(name)
    parts = ['<div class="tutor-static">']
    if png:
        data = base64.b64encode(bytes(png)).decode("ascii")
        size = f' width="{int(width)}"' if width else ""
        # Translators: the alternative text of an explorer's saved picture; {name} is the explorer's name.
        alt = html.escape(_("The picture {name} starts with").format(name=name), quote=True)
        parts.append(f'<img src="data:image/png;base64,{data}"{size} alt="{alt}" '
                     'style="max-width: 100%; height: auto;">')
        # Translators: under an explorer's saved picture, on the website; {name} is the explorer's name, as code.
        what = _("{name} starts with this picture. Its sliders work when the notebook runs: run the cells above and "
                 "this one in Jupyter, or open the notebook on Colab or Binder.")
    else:
        what = _("{name} is an explorer. Its sliders work when the notebook runs: run the cells above and this one "
                 "in Jupyter, or open the notebook on Colab or Binder.")
    parts.append("<p>" + html.escape(what).format(name=f"<code>{title}</code>") + "</p>")
    parts.append("</div>")
    return "".join(parts)


def mimebundle(explorer, data: dict | None) -> dict:
    """``data`` (the widget's own bundle) with the static picture and sentence added to it."""
    data = dict(data or {})
    name = getattr(explorer, "name", "explorer")
    image = getattr(explorer, "image", None)
    png = getattr(image, "value", None) if image is not None else None
    canvas = getattr(explorer, "canvas", None)
    width = getattr(canvas, "css_width", None)
    data["text/plain"] = plain_text(name)
    data["text/html"] = static_html(name, png, width)
    return data


class StaticFallback:
    """Mixin for a widget: its display bundle also carries :func:`mimebundle`'s picture and sentence.

    ipywidgets 8 builds the bundle in ``_repr_mimebundle_``; ipywidgets 7 (Colab)
    displays it from ``_ipython_display_``. Both are extended here, so the live
    widget renders exactly as before wherever it can.
    """

    def _repr_mimebundle_(self, **kwargs):
        base = getattr(super(), "_repr_mimebundle_", None)
        data = base(**kwargs) if callable(base) else None
        if not data or WIDGET_VIEW not in data:  # a closed widget: nothing live to show
            return data
        return mimebundle(self, data)

    if hasattr(widgets.Widget, "_ipython_display_"):  # ipywidgets 7

        def _ipython_display_(self, **kwargs):
            from IPython.display import display

            data = {}
            if self._view_name is not None:
                data[WIDGET_VIEW] = {"version_major": 2, "version_minor": 0, "model_id": self._model_id}
            display(mimebundle(self, data), raw=True)
            if self._view_name is not None:
                self._handle_displayed(**kwargs)
