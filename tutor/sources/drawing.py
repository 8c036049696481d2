"""Drawing a SourceDisplay: rows of labelled cells in one PatchCollection, and a legend of sources."""
from __future__ import annotations

from .. import style
from ..display import new_axes
from ..i18n import gettext as _
from ..i18n import width as text_width
from .words import key_word, row_word


def group_colour(group: int, n_groups: int) -> str:
    """Okabe-Ito for up to eight groups, evenly spaced viridis beyond that."""
    if n_groups <= len(style.OKABE_ITO):
        return style.color(group)
    import matplotlib

    rgba = matplotlib.colormaps["viridis"](group / max(n_groups - 1, 1))
    return matplotlib.colors.to_hex(rgba)


def draw(disp, *, ax, title, kind: str, wrap: int):
    """Draw ``disp`` (a SourceDisplay) into ``ax``; sets its artists and returns it."""
    import matplotlib as mpl
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Patch, Rectangle

    n_groups = len(disp.group_names)
    if kind == "inputs":
        rows, row_labels = _input_rows(disp)
    else:
        rows, row_labels = _output_rows(disp, wrap)
    width = max([len(r) for r in rows] + [1])
    title = disp.default_title(kind) if title is None else title
    longest = max((text_width(line) for line in title.splitlines()), default=0)  # a CJK character takes two
    wide = max(5.0, 2.0 + 0.55 * width, 0.09 * longest + 2.2)  # room for the cells, the legend and the title
    fig, ax = new_axes(ax, (min(wide, 14), min(max(2.2, 1.3 + 0.42 * len(rows)), 9)))
    boxes, colours, texts = [], [], []
    for r, row in enumerate(rows):
        for c, (label, colour) in enumerate(row):
            boxes.append(Rectangle((c, r), 0.94, 0.88))
            colours.append(colour)
            size = 9 if max(len(line) for line in label.split("\n")) <= 3 else 7.5
            texts.append(ax.text(c + 0.47, r + 0.44, label, ha="center", va="center", fontsize=size))
    # One collection for every cell: far faster to draw than one patch each.
    cells = ax.add_collection(PatchCollection(boxes, facecolors=colours, edgecolors="black", linewidths=0.6))
    ax.set_xlim(-0.1, width + 0.1)
    ax.set_ylim(max(len(rows), 1) + 0.05, -0.1)
    # Row and column numbers as plain texts, not ticks: they draw several times faster.
    ax.set_xticks([])
    ax.set_yticks([])
    # Column and row numbers sit a few points outside the axes, whatever the axes' size.
    small = {"fontsize": "small", "textcoords": "offset points", "annotation_clip": False}
    for c in range(width):
        ax.annotate(str(c), (c + 0.47, 0), xycoords=("data", "axes fraction"), xytext=(0, -3), ha="center",
                    va="top", **small)
    for r, text in enumerate(row_labels):
        ax.annotate(text, (0, r + 0.44), xycoords=("axes fraction", "data"), xytext=(-3, 0), ha="right",
                    va="center", **small)
    # The axis title clears the widest row label, whatever the font size (presentation mode enlarges both).
    pad = 8 + style.row_label_width(row_labels, mpl.rcParams["font.size"] * 0.833)
    if kind == "inputs":
        ax.set_xlabel(_("position in the source"), labelpad=14)
        # Translators: y axis label: each row is one source (one input dataset).
        ax.set_ylabel(_("source"), labelpad=pad)
    elif disp.batched:
        row = row_word(disp.row_name)
        # Translators: x axis label; {row} is what a row is: a batch, a window, a pair, a step.
        ax.set_xlabel(_("position inside the {row}").format(row=row), labelpad=14)
        # Translators: y axis label; {row} is what a row is, and "(size)" says the number after each row's number.
        ax.set_ylabel(_("{row}, in the order emitted (size)").format(row=row), labelpad=pad)
    else:
        if len(rows) > 1:
            ax.set_xlabel(_("output order, left to right ({n} per row)").format(n=wrap), labelpad=14)
        else:
            ax.set_xlabel(_("output order, left to right"), labelpad=14)
        # Translators: y axis label: each row starts with the number of elements in the rows above it.
        ax.set_ylabel(_("elements so far"), labelpad=pad)
    ax.tick_params(length=0)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    handles = [Patch(facecolor=group_colour(g, n_groups), edgecolor="black", label=name)
               for g, name in enumerate(disp.group_names)]
    if kind == "inputs":
        handles.append(Patch(facecolor=UNUSED_COLOUR, edgecolor="black", label=_("never came out")))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
              title=None if disp.key_name is None else key_word(disp.key_name))
    ax.set_title(title, loc="left")
    disp.ax_, disp.figure_, disp.cells_, disp.texts_ = ax, fig, cells, texts
    return disp


#: Fill of a source element that never came out.
UNUSED_COLOUR = "#E8E8E8"


def _output_rows(disp, wrap: int) -> tuple[list, list[str]]:
    n_groups = len(disp.group_names)
    cells = [[(label, group_colour(g, n_groups)) for label, g in zip(labels, groups)]
             for labels, groups in zip(disp.labels, disp.groups)]
    if disp.batched:
        return cells, [f"{r} ({len(row)})" for r, row in enumerate(cells)]
    flat = [c for row in cells for c in row]
    rows = [flat[i:i + wrap] for i in range(0, len(flat), wrap)] or [[]]
    return rows, [str(i * wrap) for i in range(len(rows))]


def _input_rows(disp) -> tuple[list, list[str]]:
    n_groups = len(disp.group_names)
    uses = disp.uses
    rows = []
    for s, counts in enumerate(uses):
        groups = disp.source_groups[s] if disp.source_groups is not None else [s] * len(counts)
        row = []
        for p, (k, g) in enumerate(zip(counts, groups)):
            label = str(p) if k <= 1 else f"{p}\n×{k}"
            row.append((label, UNUSED_COLOUR if k == 0 else group_colour(g, n_groups)))
        rows.append(row)
    return rows, list(disp.names)
