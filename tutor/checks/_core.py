"""The bottom of the exercise framework: results, texts, failing with a sentence, errors into sentences.

The learner passes the object to check explicitly::

    from tutor.checks import lesson02 as ex
    ex.q1.check(my_dataset)

``check`` (see :mod:`tutor.checks.questions`) returns a :class:`Result`; it
renders as a coloured box in Jupyter and as one line of plain text elsewhere,
and ``result.passed`` says whether it passed. It never raises and never hangs:
reading an answer is bounded in elements and in time, and an error raised by
the learner's pipeline comes back as a sentence (:func:`explain_error`), with
the original text in a collapsed detail.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from .. import markup
from ..i18n import N_, join_sentences, ngettext
from ..i18n import gettext as _

UNATTEMPTED = "unattempted"
CORRECT = "correct"
NOT_YET = "not yet"

# Translators: the label of a checked answer's box: the answer is right, not right yet, or still the `...`.
_LOOKS = {CORRECT: (markup.GREEN, N_("Correct")), NOT_YET: (markup.ORANGE, N_("Not yet")),
          UNATTEMPTED: (markup.BLUE, N_("Not attempted"))}

#: Longest piece of a learner's answer repeated back in a message.
ECHO_LIMIT = 80


class CheckFailed(Exception):
    """Raised inside a checker with a message that teaches what is wrong."""


def fail(message: str) -> None:
    """Stop the check with a teaching message."""
    raise CheckFailed(message)


def shorten(value: Any, limit: int = ECHO_LIMIT) -> str:
    """``repr(value)``, cut to about ``limit`` characters, so a huge answer is never echoed in full.

    A list or tuple is cut between items and says how many it holds; other text says that it was cut.

    >>> shorten(list(range(100)), 30)
    '[0, 1, 2, 3, 4, …] (100 items)'
    >>> shorten("x" * 1000)[-33:]
    "xx…' (cut short: 1002 characters)"
    """
    text = value if isinstance(value, str) and value.startswith(("'", '"')) else repr(value)
    if len(text) <= limit:
        return text
    if isinstance(value, (list, tuple)) and value:
        opening, closing = ("[", "]") if isinstance(value, list) else ("(", ")")
        shown: list[str] = []
        for item in value:
            piece = repr(item)
            if len(", ".join([*shown, piece])) > limit - 16:
                break
            shown.append(piece)
        body = ", ".join([*shown, "…"])
        # Translators: {shown} is the start of a Python list or tuple, cut short with "…".
        return ngettext("{shown} ({n} item)", "{shown} ({n} items)", len(value)).format(
            shown=f"{opening}{body}{closing}", n=len(value))
    quote = text[-1] if text[-1] in "'\"" else ""
    # Translators: {shown} is the start of a long Python value, cut short with "…".
    return _("{shown} (cut short: {n} characters)").format(shown=f"{text[:limit]}…{quote}", n=len(text))


class Result:
    """The outcome of ``Question.check``: ``passed``, ``status``, ``message`` and optional ``details``."""

    def __init__(self, status: str, message: str, title: str = "", *, details: str | None = None):
        self.status = status
        self.message = message
        self.title = title
        self.details = details

    @property
    def passed(self) -> bool:
        return self.status == CORRECT

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        # Translators: a label and its text on one line: "Correct: q1 (...): ...", "Hint 1/2: ...".
        return _("{label}: {text}").format(label=_(_LOOKS[self.status][1]), text=self.message)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        colour, label = _LOOKS[self.status]
        # Translators: the label of the collapsed detail that holds TensorFlow's own error text.
        return markup.box(_(label), self.message, colour=colour, details=self.details,
                          details_label=_("what TensorFlow said"))


class Choices(Mapping):
    """A question's lettered choices: the English texts, marked with ``N_``, read in the current language.

    A lesson prints them (``for letter, text in ex.CHOICES.items(): print(letter, text)``) and its checker
    reads the letters, which never change.

    >>> Choices({"a": "yes", "b": "no"})["a"], list(Choices({"a": "yes", "b": "no"}))
    ('yes', ['a', 'b'])
    """

    def __init__(self, texts: dict[str, str]):
        self._texts = dict(texts)

    def __getitem__(self, letter: str) -> str:
        return _(self._texts[letter])

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class Text:
    """A hint or a solution: Markdown-ish text in Jupyter, plain text elsewhere."""

    def __init__(self, label: str, body: str, code: bool = False):
        self.label, self.body, self.code = label, body, code

    def __str__(self) -> str:
        if self.code:
            # Translators: a label, then code on the lines below it: "Solution:\n...".
            return _("{label}:\n{text}").format(label=self.label, text=self.body)
        return _("{label}: {text}").format(label=self.label, text=self.body)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        if self.code:
            return markup.code_block(self.label, self.body)
        return markup.box(self.label, self.body, colour=markup.SKY)


# ------------------------------------------------------------------ errors into sentences
def sentences(*parts: str) -> str:
    """Whole sentences, each already translated, one after the other (:func:`tutor.i18n.join_sentences`).

    >>> sentences("One.", "", "Two.")
    'One. Two.'
    """
    return join_sentences(*parts)


def explain_error(exc: BaseException) -> str:
    """A sentence for an error raised while reading a learner's answer (the original goes in details)."""
    import tensorflow as tf

    text = re.sub(r"^\{\{[^}]*\}\}\s*", "", first_line(exc))  # TensorFlow's "{{function_node ...}}" prefix
    low = text.lower()
    gone = resource_gone(exc)
    if gone:
        return gone
    if isinstance(exc, (TypeError, AttributeError, ValueError)) and FUNCTION_OBJECT.search(text):
        return _(FUNCTION_NOT_CALLED)
    if "user-defined function" in low:
        return user_function_message(text)
    python = re.match(r"(\w+(?:Error|Exception|Iteration)): ", text)
    if python and isinstance(exc, tf.errors.OpError):
        # Translators: {error} is a Python exception's class name, such as ValueError.
        return _("a Python function in your pipeline (a generator, or a function in py_function) failed: it raised "
                 "{error} while the elements were read; the details below show why.").format(error=python.group(1))
    if isinstance(exc, tf.errors.UnknownError) and ("generator" in low or "pyfunc" in low or "py_func" in low
                                                    or "error occurred when finalizing" in low or "callback" in low):
        return _("a Python function in your pipeline (a generator, or a function in py_function) raised an error "
                 "while the elements were read; the details below show which one and why.")
    if isinstance(exc, tf.errors.OutOfRangeError) or isinstance(exc, StopIteration):
        return _("your dataset ended before the checker had read what it needs: is it empty, or cut short by take()?")
    if isinstance(exc, tf.errors.DataLossError):
        return _("a file your pipeline reads is truncated or corrupt, so TensorFlow could not read a record from it.")
    if "string" in low and ("number" in low or "convert" in low or "cast" in low) or "stringtonumber" in low:
        return _("your pipeline holds text (strings) where numbers were expected. Parse them first, for example "
                 "with tf.strings.to_number, or start from numbers.")
    if isinstance(exc, tf.errors.InvalidArgumentError):
        if "shape" in low or "dimension" in low or "incompatible" in low or "rank" in low:
            return _("a tensor in your pipeline has a different shape than the next step expects (for example "
                     "batches where single elements were expected, or the wrong number of values).")
        if "dtype" in low or "type" in low:
            return _("a tensor in your pipeline has a different type (dtype) than the next step expects.")
        return _("your pipeline raised an error while it was read; the details below say where.")
    if "0-dimensional" in low or "truth value of an array" in low or "only length-1" in low \
            or "only integer scalar" in low:
        return _("an element holds several values where one number was expected: is your dataset batched, or are "
                 "its elements tuples? Compare its element_spec with what the exercise asks for.")
    if isinstance(exc, (KeyError,)):
        # Translators: {name} is the missing key, quoted as Python writes it ('label').
        return _("an element has no part named {name}: check the names of its features.").format(
            name=shorten(exc.args[0] if exc.args else '?', 40))
    if isinstance(exc, IndexError):
        return _("an element has fewer parts than expected: check the structure of each element (its element_spec).")
    if isinstance(exc, TypeError):
        return _("something in your answer has a different type than expected: check what the exercise asks "
                 "for (a dataset, a number, a function, a tuple?).")
    if isinstance(exc, ValueError):
        return _("a value in your answer does not fit what the exercise expects; the details below say which.")
    # Translators: {error} is a Python exception's class name, such as ValueError.
    return _("reading your answer failed ({error}); the details below say where.").format(error=type(exc).__name__)


#: A learner's function used as a value: TensorFlow and Python name the function object in their errors.
FUNCTION_OBJECT = re.compile(r"'(function|method|builtin_function_or_method|functools\.partial)' object|"
                             r"<(function|bound method|built-in function|built-in method) |"
                             r"missing \d+ required positional argument")

FUNCTION_NOT_CALLED = N_(
    "a function was used where its result was expected: something in your answer is a function that was passed "
    "without being called (or called without its arguments), where a dataset or a value, made by calling it, was "
    "expected. Call it with its arguments, for example get_per_replica_batch_size(16), and use what it returns.")

SETUP_AGAIN = N_("Run the lesson's setup cells again (from the top), rebuild your answer, and check it again.")


def resource_gone(exc: BaseException) -> str | None:
    """A sentence when ``exc`` says that a file, folder or service the answer needs is gone; otherwise None.

    >>> resource_gone(RuntimeError("LocalService is stopped; call .start() first."))[:48]
    'the tf.data service your answer uses has been st'
    """
    import tensorflow as tf

    text = str(exc)
    if isinstance(exc, (FileNotFoundError, tf.errors.NotFoundError)) or "No files match" in text \
            or "No such file or directory" in text:
        return sentences(_("a file or folder your answer reads is not there (any more): a cleanup cell may have "
                           "deleted the lesson's data, or a path is misspelt."), _(SETUP_AGAIN))
    if ("LocalService is stopped" in text or isinstance(exc, tf.errors.UnavailableError)
            or ("dispatcher" in text.lower() and isinstance(exc, (tf.errors.OpError, RuntimeError)))):
        return sentences(_("the tf.data service your answer uses has been stopped, so nothing can be read from it."),
                         _(SETUP_AGAIN))
    return None


_STAGES = {"map": "map", "parallelmap": "map", "mapandbatch": "map", "filter": "filter", "flatmap": "flat_map",
           "interleave": "interleave", "parallelinterleave": "interleave", "scan": "scan"}


def user_function_message(text: str) -> str:
    """A sentence for TensorFlow's "Error in user-defined function passed to MapDataset..." (no raw text).

    >>> user_function_message("Error in user-defined function passed to FilterDataset:3 ...: ValueError: boom")
    'the function you passed to filter() failed while the checker read your dataset: it raised ValueError. Run next(iter(ds)) on your dataset to see the whole error.'
    """
    found = re.search(r"passed to (\w+?)(?:V\d)?Dataset", text)
    stage = _STAGES.get(found.group(1).lower(), found.group(1).lower()) if found else "map"
    first = text.strip().splitlines()[0] if text.strip() else ""
    python = re.search(r": (\w+(?:Error|Exception))(?::|$)", first)
    if python:
        # Translators: this and the next four causes end the sentence "the function you passed to map() failed
        # while ...: {cause}."; {error} is a Python exception's class name, such as ValueError.
        cause = _("it raised {error}").format(error=python.group(1))
    elif "assertion failed" in first:
        cause = _("an assertion inside it did not hold")
    elif "convert string" in first:
        cause = _("it tried to turn text into a number and could not")
    elif "division by zero" in first:
        cause = _("it divided by zero")
    else:
        cause = _("TensorFlow stopped it with an error")
    # Translators: {stage} is a tf.data method (map, filter, interleave); {cause} one of the causes above.
    return _("the function you passed to {stage}() failed while the checker read your dataset: {cause}. "
             "Run next(iter(ds)) on your dataset to see the whole error.").format(stage=stage, cause=cause)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


def original_error(exc: BaseException) -> str:
    """The original error, without TensorFlow's op traceback and debug links, for the collapsed detail."""
    lines = [line for line in str(exc).strip().splitlines()
             if line.strip() and "https://" not in line and not line.startswith("\t")]
    return f"{type(exc).__name__}: " + "\n".join(lines[:6])


def after_colon(text: str) -> str:
    """Drop the ``where:`` prefix of a tutor error; the question's title already says where."""
    head, sep, rest = text.partition(": ")
    return rest if sep and " " not in head else text
