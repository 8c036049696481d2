"""The translatable pieces of a lesson or a page: markdown blocks and code comments, each one message.

A translator sees whole sentences, never a line cut out of a paragraph, and
everything that is not prose stays exactly as the English has it. Both walkers
hand each piece of English to ``translate`` and put back what it returns, so
one function extracts (``translate`` records and returns the English) and
builds (``translate`` looks the piece up in a catalog):

* markdown (:func:`walk_markdown`): a heading's text, a paragraph (its lines
  joined: the message is the sentence, whatever the English's line breaks), a
  list item (with its continuation lines), a table cell, a quote. Fenced code
  keeps its code and has its comments walked as below; HTML comments, MyST
  targets (``(name)=``), badge lines and cells without a letter stay as they are;
* code (:func:`walk_comments`): each comment, a run of full-line comments at
  one indent being one message (a translation may hold line breaks: one
  ``#`` line each). ``#`` inside strings (triple-quoted ones too) is not a
  comment; tool pragmas (``noqa``, ``type:``, ``pragma``) and comments without a
  letter stay. The code is never touched.

>>> walk_markdown("# 03: Shuffle\\n\\nA buffer\\nof 10.\\n", str.upper)
'# 03: SHUFFLE\\n\\nA BUFFER OF 10.\\n'
>>> walk_comments("x = 1  # one\\ny = '#2'", str.upper)
"x = 1  # ONE\\ny = '#2'"
"""
from __future__ import annotations

import re
from typing import Callable

Translate = Callable[[str], str]

FENCE_RE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
HEADING_RE = re.compile(r"^(#{1,6}\s+)(.*?)\s*$")
ITEM_RE = re.compile(r"^(\s*)([-*+]|\d+[.)])(\s+)(.*)$")
KEEP_RE = re.compile(r"^\s*(<!--.*-->|\(.+\)=|\[!\[.*|\$\$.*)\s*$")
#: Fences whose code is Python or a shell: their comments are walked like a code cell's.
COMMENTED_FENCES = {"", "python", "python3", "ipython", "py", "bash", "sh", "shell", "console"}
PRAGMA_RE = re.compile(r"^(noqa|type:|pragma|fmt:|pylint:|!)")
LETTER_RE = re.compile(r"[^\W\d_]")


def _has_letter(text: str) -> bool:
    return bool(LETTER_RE.search(text))


def _starts_block(line: str) -> bool:
    return bool(FENCE_RE.match(line) or HEADING_RE.match(line) or ITEM_RE.match(line) or KEEP_RE.match(line)
                or line.lstrip().startswith("|") or line.lstrip().startswith(">"))


def walk_markdown(text: str, translate: Translate) -> str:
    """``text`` with every translatable block replaced by ``translate(block)`` (see the module's docstring)."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = FENCE_RE.match(line)
        if fence:
            indent, marks, info = fence.groups()
            end = i + 1
            while end < len(lines) and not lines[end].strip().startswith(marks):
                end += 1
            body = "\n".join(lines[i + 1:end])
            if info.strip().lower() in COMMENTED_FENCES:
                body = walk_comments(body, translate)
            out.append(line)
            if end > i + 1:
                out.append(body)
            out.extend(lines[end:end + 1])
            i = end + 1
            continue
        if not line.strip() or KEEP_RE.match(line):
            out.append(line)
            i += 1
            continue
        heading = HEADING_RE.match(line)
        if heading:
            out.append(heading.group(1) + _piece(heading.group(2), translate))
            i += 1
            continue
        if line.lstrip().startswith("|"):
            out.append(_table_row(line, translate))
            i += 1
            continue
        if line.lstrip().startswith(">"):
            prefix = line[:len(line) - len(line.lstrip())] + "> "
            end = i
            while end < len(lines) and lines[end].lstrip().startswith(">"):
                end += 1
            joined = " ".join(l.lstrip()[1:].strip() for l in lines[i:end])
            out.append(prefix + _piece(joined, translate))
            i = end
            continue
        item = ITEM_RE.match(line)
        start = i + 1
        if item:
            indent, marker, space, first = item.groups()
            prefix, parts = indent + marker + space, [first]
        else:
            prefix, parts = line[:len(line) - len(line.lstrip())], [line.strip()]
        while start < len(lines) and lines[start].strip() and not _starts_block(lines[start]):
            parts.append(lines[start].strip())
            start += 1
        out.append(prefix + _piece(" ".join(parts), translate))
        i = start
    return "\n".join(out)


def _piece(text: str, translate: Translate) -> str:
    return translate(text) if _has_letter(text) else text


def _table_row(line: str, translate: Translate) -> str:
    cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    if all(re.fullmatch(r"\s*:?-{2,}:?\s*", c) for c in cells):
        return line
    return "| " + " | ".join(_piece(c.strip(), translate) for c in cells) + " |"


# ------------------------------------------------------------------------------------------------- comments
def comment_starts(code: str) -> dict[int, int]:
    """{line number: column of its comment's ``#``} for every comment in ``code``, strings skipped."""
    found: dict[int, int] = {}
    line = col = 0
    quote = ""
    i = 0
    while i < len(code):
        ch = code[i]
        if ch == "\n":
            line, col, i = line + 1, 0, i + 1
            if len(quote) == 1:
                quote = ""  # an unclosed one-line string (or shell text) ends with its line
            continue
        if quote:
            if ch == "\\":
                i, col = i + 2, col + 2
                continue
            if code.startswith(quote, i):
                i, col, quote = i + len(quote), col + len(quote), ""
                continue
        elif ch in "'\"":
            quote = code[i:i + 3] if code[i:i + 3] in ("'''", '"""') else ch
            i, col = i + len(quote), col + len(quote)
            continue
        elif ch == "#":
            found[line] = col
            while i < len(code) and code[i] != "\n":
                i += 1
            continue
        i, col = i + 1, col + 1
    return found


def _translatable(comment: str) -> bool:
    return _has_letter(comment) and not PRAGMA_RE.match(comment)


def walk_comments(code: str, translate: Translate) -> str:
    """``code`` with each comment (a run of full-line comments at one indent: one message) translated."""
    lines = code.split("\n")
    starts = comment_starts(code)
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        col = starts.get(i)
        if col is None:
            out.append(line)
            i += 1
            continue
        before, text = line[:col], line[col + 1:].strip()
        if before.strip():  # a comment after code
            out.append(before + "# " + translate(text) if _translatable(text) else line)
            i += 1
            continue
        end = i + 1
        while (end < len(lines) and starts.get(end) == col and not lines[end][:col].strip()
               and _translatable(lines[end][col + 1:].strip())):
            end += 1
        if not _translatable(text):
            out.append(line)
            i += 1
            continue
        joined = " ".join(l[col + 1:].strip() for l in lines[i:end])
        out.extend(before + "# " + part.strip() for part in translate(joined).split("\n"))
        i = end
    return "\n".join(out)


def pieces(text: str, kind: str) -> list[str]:
    """The messages of a markdown text (``kind="markdown"``) or of code (``"code"``), in order."""
    found: list[str] = []

    def record(piece: str) -> str:
        found.append(piece)
        return piece

    (walk_markdown if kind == "markdown" else walk_comments)(text, record)
    return found
