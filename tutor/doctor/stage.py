"""The :class:`Stage` type: one transformation of a pipeline, as the doctor's readers build it.

Both readers (:mod:`tutor.doctor.graph` from the op graph, :mod:`tutor.doctor.objects`
from the Python dataset objects) build these, and every rule reads them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..i18n import gettext as _
from .labels import label


@dataclass
class Stage:
    """One transformation of a pipeline, read from its op graph.

    ``number`` counts from 1 at the source; ``label`` reads like the Python call
    (``shuffle(buffer_size=10)``); ``params`` holds the constant arguments
    (None where the value is not a constant); ``fn_ops`` the op types inside the
    stage's function and ``data_ops`` those that touch the element's values;
    ``cardinality`` the number of elements the stage emits (-1 infinite, -2
    unknown, None when it could not be read); ``dataset`` the Python
    ``tf.data.Dataset`` object of the stage, where it could be paired with the
    graph (None otherwise); ``library`` the package that wrote the stage
    (``"keras"``, ``"tensorflow"``) when it was built inside a library utility
    such as ``image_dataset_from_directory`` or ``rejection_resample``, None
    when the user wrote it; ``data_bytes`` the bytes of in-memory data the stage
    embeds (``from_tensor_slices`` arrays, captured tensors).
    """

    op: str
    kind: str
    params: dict = field(default_factory=dict)
    inputs: list = field(default_factory=list)
    consumers: list = field(default_factory=list)
    fn_name: str | None = None
    fn_ops: frozenset = frozenset()
    data_ops: frozenset = frozenset()
    splits_first_axis: bool = False
    slices_element: bool = False
    random_fn: bool = False
    element_seeded: bool = False
    cardinality: int | None = None
    number: int = 0
    library: str | None = None
    data_bytes: int = 0
    dataset: Any = field(default=None, repr=False, compare=False)

    @property
    def label(self) -> str:
        return label(self)

    @property
    def where(self) -> str:
        """``'stage 3: shuffle(buffer_size=10)'`` (in the language tutor speaks)."""
        # Translators: a stage of a pipeline, e.g. "stage 3: shuffle(buffer_size=10)"; it ends many of the doctor's
        # sentences ("It comes after stage 2: batch(batch_size=10), ...").
        return _("stage {number}: {label}").format(number=self.number, label=self.label)

    @property
    def input_cardinality(self) -> int | None:
        return self.inputs[0].cardinality if self.inputs else None

    def __repr__(self) -> str:
        return f"Stage({self.where})"


class Stages(list):
    """The stages from source (first) to output (last); ``read_from`` says how they were read.

    ``read_from`` is ``"graph"`` (the serialized op graph) or ``"objects"`` (the
    Python dataset objects, for large in-memory data or a graph TensorFlow could
    not serialize); ``note`` says why, or is None.
    """

    def __init__(self, stages=(), *, read_from: str = "graph", note: str | None = None):
        super().__init__(stages)
        self.read_from, self.note = read_from, note
