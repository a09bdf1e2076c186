"""Where a fix's edits land in a file, and writing them: everything not edited stays byte for byte.

Statements are read from the file's text with CRLF read as LF, so edits are located by line and
column in that text. Applying them goes back to the file's own bytes: its encoding (UTF-8 with or
without a byte order mark, UTF-16 with one) and its line ends (new lines an edit writes take the
file's CRLF when it has them) are kept.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from schemacite.model.fixes import Edit
from schemacite.model.statements import Statement
from schemacite.sources.files import UTF16_BOMS
from schemacite.sources.patterns import Pattern
from schemacite.sources.split import Lines

# what a keyword search skips: comments and quoted text (both blanked, newlines kept)
_NOT_CODE = Pattern(r"--[^\n]*|/\*[\s\S]*?\*/|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`(?:[^`]|``)*`")


@functools.lru_cache(maxsize=256)
def code_of(sql: str) -> str:
    """`sql` with comments and the inside of quoted text blanked (a quoted name keeps its quotes,
    so a pattern can still match it), same length. Kept for the statements last asked of: each
    rule offering a fix searches the statement's code again."""

    def blank(m: re.Match[str]) -> str:
        text = m.group(0)
        if text[0] in "'\"`":
            return text[0] + _blanked(text[1:-1]) + text[-1]
        return _blanked(text)

    return _NOT_CODE.sub(blank, sql)


def _blanked(text: str) -> str:
    return re.sub(r"[^\n]", " ", text) if "\n" in text else " " * len(text)


def find(stmt: Statement, pattern: str) -> re.Match[str] | None:
    """The first match of `pattern` (case-insensitive) in the statement's code, outside comments
    and quoted text; offsets are the statement's."""
    return re.compile(pattern, re.I).search(code_of(stmt.sql))


def insert_at(stmt: Statement, offset: int, text: str) -> Edit:
    line, column = stmt.position(offset)
    return Edit.insert(stmt.location.file, line, column, text)


def replace_span(stmt: Statement, start: int, stop: int, text: str) -> Edit:
    line, column = stmt.position(start)
    end_line, end_column = stmt.position(stop)
    return Edit(stmt.location.file, line, column, end_line, end_column, text)


def at_end(stmt: Statement, text: str) -> Edit:
    """Insert `text` where the statement's code ends, before its `;`: text that adds statements
    after it ends the statement with `;` and leaves its own last one to the statement's `;`."""
    line, column = stmt.position(len(code_of(stmt.sql).rstrip()))  # before a trailing comment, not in it
    return Edit.insert(stmt.location.file, line, column, text)


def statement_span(stmt: Statement, text: str) -> tuple[int, int] | None:
    """Offsets in `text` (the file as linted) of the statement: from its first character through
    its `;` and the rest of that line when only blanks follow; None when the text does not hold it there."""
    start = Lines(text).offset(stmt.location.line, stmt.location.column)
    if code_of(text[start : start + len(stmt.sql)]) != code_of(stmt.sql):
        return None
    m = re.compile(r"[ \t]*;?[ \t]*(?:\n|\Z)").match(text, start + len(stmt.sql))
    return (start, m.end()) if m else None


def rewrite_within(stmt: Statement, text: str, edits: list[Edit]) -> str:
    """The statement's text with edits made inside it."""
    lines = Lines(text)
    start = lines.offset(stmt.location.line, stmt.location.column)
    out = text[start : start + len(stmt.sql)]
    for e in sorted(edits, key=Edit.sort_key, reverse=True):
        a = lines.offset(e.line, e.column) - start
        b = lines.offset(e.end_line, e.end_column) - start
        out = out[:a] + e.text + out[b:]
    return out


def replace_offsets(path: str, text: str, start: int, stop: int, new: str) -> Edit:
    lines = Lines(text)
    return Edit(path, lines.line(start), lines.column(start), lines.line(stop), lines.column(stop), new)


# ---------------------------------------------------------------- file bytes


class Encoded:
    """A file's text as it is on disk, with how to write it back."""

    def __init__(self, raw: bytes):
        if raw[:2] in UTF16_BOMS:
            self.encoding, self.bom = "utf-16", b""
            self.text = raw.decode("utf-16")
        else:
            self.bom = b"\xef\xbb\xbf" if raw.startswith(b"\xef\xbb\xbf") else b""
            self.encoding = "utf-8"
            self.text = raw[len(self.bom) :].decode("utf-8")
        self.newline = "\r\n" if self.text.count("\r\n") * 2 > self.text.count("\n") else "\n"
        self.starts = Lines(self.text).starts

    def offset(self, line: int, column: int) -> int:
        """The text offset of (line, column), 1-based, a column past the line's end clamped to
        before its line end."""
        if line > len(self.starts):
            return len(self.text)
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        if end > start and self.text[end - 1] == "\r" and line < len(self.starts):
            end -= 1
        return min(start + column - 1, end)

    def byte_offset(self, offset: int) -> int:
        return len(self.bom) + len(
            self.text[:offset].encode(self.encoding if self.encoding == "utf-8" else "utf-16-le")
        )

    def encode(self, text: str) -> bytes:
        if self.encoding == "utf-16":
            return text.encode("utf-16")
        return self.bom + text.encode("utf-8")

    def byte_range(self, edit: Edit) -> tuple[int, int]:
        """The (start, end) byte offsets in the file an edit replaces."""
        return (
            self.byte_offset(self.offset(edit.line, edit.column)),
            self.byte_offset(self.offset(edit.end_line, edit.end_column)),
        )


def byte_range(raw: bytes, edit: Edit) -> tuple[int, int]:
    """The (start, end) byte offsets in the file (its bytes `raw`) an edit replaces."""
    return Encoded(raw).byte_range(edit)


def overlaps(a: Edit, b: Edit) -> bool:
    if a.path != b.path:
        return False
    if a.create or b.create:
        return True
    a0, a1, b0, b1 = a.sort_key()[:2], a.sort_key()[2:], b.sort_key()[:2], b.sort_key()[2:]
    return a0 < b1 and b0 < a1 or a0 == b0


def apply(raw: bytes, edits: Iterable[Edit]) -> bytes:
    """The file's bytes with the edits (all on this file, not overlapping) made."""
    enc = Encoded(raw)
    text = enc.text
    for edit in sorted(edits, key=Edit.sort_key, reverse=True):
        start, stop = enc.offset(edit.line, edit.column), enc.offset(edit.end_line, edit.end_column)
        new = edit.text.replace("\r\n", "\n")
        if enc.newline != "\n":
            new = new.replace("\n", enc.newline)
        text = text[:start] + new + text[stop:]
    return enc.encode(text)


def created(edit: Edit) -> bytes:
    return edit.text.encode("utf-8")


def unified_diff(path: str, before: bytes | None, after: bytes) -> str:
    """A unified diff of one file (`before` None: the file is new)."""
    old = Encoded(before).text if before is not None else ""
    new = Encoded(after).text
    # a name with a space ends at a tab, as diff writes it, so that patch can read it
    tab = "\t" if " " in path else ""
    # start-up: only --diff shows a diff
    import difflib

    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile="/dev/null" if before is None else f"a/{path}{tab}",
        tofile=f"b/{path}{tab}",
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
