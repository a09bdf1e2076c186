"""A finding's fix as the machine formats write it, and the fix counts the summaries give."""

from __future__ import annotations

from typing import Any

from schemacite.model.fixes import Edit, Fix
from schemacite.model.results import Finding
from schemacite.sources.edits import Encoded


class Files:
    """The files one report's edits are in, each read and decoded once for that report (a later
    report reads them again: a --fix between two may have changed them)."""

    def __init__(self) -> None:
        self._read: dict[str, Encoded | None] = {}

    def byte_range(self, edit: Edit) -> tuple[int, int] | None:
        if edit.path not in self._read:
            try:
                with open(edit.path, "rb") as f:
                    self._read[edit.path] = Encoded(f.read())
            except (OSError, UnicodeDecodeError):
                self._read[edit.path] = None
        encoded = self._read[edit.path]
        return encoded.byte_range(edit) if encoded is not None else None


def edit_dict(edit: Edit, files: Files) -> dict[str, Any]:
    """An edit located by line and column (1-based characters) and by byte offset in the file."""
    out: dict[str, Any] = {
        "path": edit.path,
        "line": edit.line,
        "column": edit.column,
        "end_line": edit.end_line,
        "end_column": edit.end_column,
        "text": edit.text,
        "create": edit.create,
    }
    found = None if edit.create else files.byte_range(edit)
    if found is not None:
        out["start_byte"], out["end_byte"] = found
    return out


def fix_dict(fix: Fix | None, files: Files) -> dict[str, Any] | None:
    if fix is None:
        return None
    out: dict[str, Any] = {
        "title": fix.title,
        "applicability": str(fix.applicability),
        "edits": [edit_dict(e, files) for e in fix.edits],
    }
    if fix.template:
        out["template"] = fix.template
    return out


def fix_counts(findings: list[Finding]) -> tuple[int, int]:
    """How many findings `--fix` would fix, and how many more `--unsafe-fixes` would."""
    safe = sum(1 for f in findings if f.fix is not None and f.fix.applicability.applies(False))
    unsafe = sum(1 for f in findings if f.fix is not None and f.fix.applicability.applies(True))
    return safe, unsafe - safe


def fix_hint(findings: list[Finding]) -> str:
    """`[*] 2 fixable with --fix (1 more with --unsafe-fixes)`, or ""."""
    safe, unsafe = fix_counts(findings)
    if not safe and not unsafe:
        return ""
    more = f" ({unsafe} more with --fix --unsafe-fixes)" if unsafe else ""
    return f"[*] {safe} fixable with --fix{more}." if safe else f"{unsafe} fixable with --fix --unsafe-fixes."
