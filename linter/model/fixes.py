"""What a finding offers to change: a fix, its applicability, and its edits.

Applicability follows ruff's: `--fix` applies only `safe` fixes; `--unsafe-fixes` adds `unsafe`
ones; a `display-only` fix is a template the user completes and is never applied.
"""

from __future__ import annotations

import enum

from schemacite.model.record import record


class Applicability(enum.StrEnum):
    SAFE = "safe"  # same schema and data, only weaker locks
    UNSAFE = "unsafe"  # same end state, other steps or timing (a backfill, a new migration file)
    DISPLAY_ONLY = "display-only"  # a template to complete

    def applies(self, unsafe: bool) -> bool:
        return self is Applicability.SAFE or (unsafe and self is Applicability.UNSAFE)


@record(frozen=True)
class Edit:
    """Replace the text of `path` from (`line`, `column`) up to, not including, (`end_line`,
    `end_column`) with `text`; equal ends insert. Lines and columns count from 1 in characters,
    with a CRLF counted as one line end. `create`: `path` is a new file holding `text`."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    text: str
    create: bool = False

    @classmethod
    def insert(cls, path: str, line: int, column: int, text: str) -> Edit:
        return cls(path, line, column, line, column, text)

    @classmethod
    def new_file(cls, path: str, text: str) -> Edit:
        return cls(path, 1, 1, 1, 1, text, create=True)

    def sort_key(self) -> tuple[int, int, int, int]:
        return (self.line, self.column, self.end_line, self.end_column)


@record(frozen=True)
class Fix:
    """A rewrite a finding offers: `title` says what it does in a few words."""

    title: str
    applicability: Applicability
    edits: tuple[Edit, ...] = ()
    template: str = ""  # display-only: the SQL to complete and place, when it is not an edit
    # it changes how the runner wraps its file in a transaction (an opt-out, a statement moved out):
    # the file's other fixes are judged again after it, since where they go depends on that
    changes_transaction: bool = False

    @property
    def paths(self) -> list[str]:
        return list(dict.fromkeys(e.path for e in self.edits))
