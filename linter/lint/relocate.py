"""A result's places moved from the SQL a framework printed to the code that printed it (a Django
migration's operation, an Alembic revision's `op.` call): what `manage.py schemacite` and
`schemacite alembic` both do once the printed SQL is linted."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from schemacite.model.record import replace
from schemacite.model.results import LintResult

# how a message names another statement of its file ("while line 13 does long work")
_LINE = re.compile(r"\bline (\d+)\b")

# (file, line) of the printed SQL -> (file, line) of the code, or None where it cannot say
Place = Callable[[str, int], tuple[str, int] | None]


def relocated(result: LintResult, place: Place) -> None:
    """Move every finding (the suppressed too, each at column 1) and input error that `place` can
    place; a finding's message naming another line of its file names where that line goes."""
    for f in [*result.findings, *result.suppressed]:
        at = f.location
        f.message = _LINE.sub(functools.partial(_named, place, at.file), f.message)
        found = place(at.file, at.line)
        if found is not None:
            f.location = replace(at, file=found[0], line=found[1], column=1)
    errors = []
    for e in result.errors:
        found = place(e.file, e.line)
        errors.append(e if found is None else replace(e, file=found[0], line=found[1]))
    result.errors = errors


def _named(place: Place, file: str, named: re.Match[str]) -> str:
    """ "line N" of `file`, as the line N goes to."""
    found = place(file, int(named.group(1)))
    return named.group(0) if found is None else f"line {found[1]}"
