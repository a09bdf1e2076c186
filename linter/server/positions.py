"""Positions between the engine and the editor.

The engine counts lines and columns from 1, in characters, a CRLF being one line end (as
`model.fixes.Edit` and every `Location` do). LSP counts from 0, and columns in the code units the
client and server agreed on at start: UTF-16 unless the client offered another
(`positionEncodings`). `pygls`'s codec counts the units.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from schemacite.model.statements import Statement


class Lines:
    """A document's lines, without their ends, and the codec of the session."""

    def __init__(self, text: str, codec: PositionCodec | None = None):
        self.lines = [line.removesuffix("\r") for line in text.split("\n")]
        self.codec = codec or PositionCodec()

    def line(self, line: int) -> str:
        """The text of 1-based `line` ('' past the end)."""
        return self.lines[line - 1] if 1 <= line <= len(self.lines) else ""

    def position(self, line: int, column: int) -> types.Position:
        """The LSP position of 1-based `line` and character `column` (clamped to the text)."""
        if line > len(self.lines):
            return self.end()
        line = max(line, 1)
        text = self.lines[line - 1]
        return types.Position(line - 1, self.codec.client_num_units(text[: max(column - 1, 0)]))

    def end(self) -> types.Position:
        return types.Position(len(self.lines) - 1, self.codec.client_num_units(self.lines[-1]))

    def line_range(self, line: int) -> types.Range:
        """The written part of a line: from its first character that is not a space to its end."""
        text = self.line(line)
        start = len(text) - len(text.lstrip()) + 1
        return types.Range(self.position(line, start), self.position(line, len(text.rstrip()) + 1))

    def statement_range(self, stmt: Statement) -> types.Range:
        """From the statement's first character to its last (its `;` included when it follows)."""
        first = stmt.location.line
        start = stmt.location.column or len(self.line(first)) - len(self.line(first).lstrip()) + 1
        last = max(stmt.end_line, first)
        written = stmt.sql.rstrip().split("\n")
        tail = written[-1].strip()
        text = self.line(last)
        # where the statement's last line ends in the document; its whole line when not found there
        offset = (start - 1) if last == first else 0
        at = text.find(tail, offset) if tail else -1
        end = at + len(tail) if at >= 0 else len(text.rstrip())
        if text[end : end + 1] == ";":
            end += 1
        return types.Range(self.position(first, start), self.position(last, end + 1))

    def character(self, position: types.Position) -> tuple[int, int]:
        """The 1-based line and character column of an LSP position."""
        line = position.line + 1
        text = self.line(line)
        units = 0
        for n, char in enumerate(text):
            if units >= position.character:
                return line, n + 1
            units += self.codec.client_num_units(char)
        return line, len(text) + 1


def contains(outer: types.Range, position: types.Position) -> bool:
    start, end = outer.start, outer.end
    return (start.line, start.character) <= (position.line, position.character) <= (end.line, end.character)


def overlaps(a: types.Range, b: types.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and (
        b.start.line,
        b.start.character,
    ) <= (a.end.line, a.end.character)
