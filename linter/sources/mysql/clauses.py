"""A MySQL/MariaDB statement written again with other ALGORITHM= and LOCK= clauses.

`locks --verify` and the lock tests ask the server which clauses it accepts for a statement by
running it with each in turn. Rewriting the statement is reading SQL text, so it lives here with
the other MySQL readers; what kind of statement it is comes from its typed facts.
"""

from __future__ import annotations

import re

from schemacite.sources.edits import code_of
from schemacite.sources.patterns import Pattern

_WORDS = r"\b(ALGORITHM|LOCK)\s*=?\s*(DEFAULT|INSTANT|NOCOPY|INPLACE|COPY|NONE|SHARED|EXCLUSIVE)\b"
CLAUSE = Pattern(_WORDS, re.IGNORECASE)  # one clause alone: `ALGORITHM [=] value`, `LOCK [=] value`
_NAME = r"(?:`(?:[^`]|``)+`|[\w$]+)"
# ALTER TABLE and its table name: the database (group 1, when written) and the table (group 2)
ALTER_HEAD = Pattern(
    rf"^\s*ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE\s+(?:IF\s+EXISTS\s+)?(?:({_NAME})\s*\.\s*)?({_NAME})\s*", re.IGNORECASE
)
_DROP_INDEX = Pattern(
    r"^\s*DROP\s+INDEX\s+(?:IF\s+EXISTS\s+)?(`[^`]+`|[\w$]+)\s+ON\s+(`[^`]+`|[\w$.`]+)\s*$", re.IGNORECASE
)


def without_clauses(sql: str) -> str:
    """The statement without any ALGORITHM=/LOCK= clause (with the comma that joined each, also
    when a clause comes first: `ALTER TABLE t LOCK=NONE, ADD ...`)."""
    sql = sql.strip().rstrip(";")
    for start, stop in reversed(clause_spans(code_of(sql), ALTER_HEAD.match(sql) is not None)):
        sql = sql[:start] + sql[stop:]
    return sql.strip()


def with_clauses(sql: str, algorithm: str | None, lock: str | None, placement: int = 0) -> str:
    """The statement with ALGORITHM/LOCK in the form it takes.

    placement 0 appends them (`ALTER TABLE t ADD ..., ALGORITHM=X`; `CREATE INDEX ... ALGORITHM=X`);
    1 puts them first followed by a comma (`ALTER TABLE t ALGORITHM=X, ADD PARTITION ...`);
    2 puts them first without a comma (`ALTER TABLE t ALGORITHM=X PARTITION BY ...`), the
    forms partition clauses need.
    """
    base = without_clauses(sql)
    parts = [f"{name}={value}" for name, value in (("ALGORITHM", algorithm), ("LOCK", lock)) if value]
    if not parts:
        return base
    clause = ", ".join(parts)
    head = ALTER_HEAD.match(base)
    if head is None:
        # CREATE INDEX ... / DROP INDEX ... ON t: options follow, space separated
        return base + " " + " ".join(parts)
    rest = base[head.end() :]
    if placement == 1 and rest:
        return base[: head.end()] + clause + ", " + rest
    if placement == 2 and rest:
        return base[: head.end()] + clause + " " + rest
    return base + (", " if rest else " ") + clause


def drop_index_as_alter(sql: str) -> str | None:
    """DROP INDEX i ON t as the ALTER TABLE t DROP INDEX i that MariaDB runs it as."""
    m = _DROP_INDEX.match(without_clauses(sql))
    return f"ALTER TABLE {m.group(2)} DROP INDEX {m.group(1)}" if m else None


def clause_spans(code: str, comma: bool) -> list[tuple[int, int]]:
    """Where each ALGORITHM / LOCK clause of a statement's code (comments blanked) stands, with
    what joins it to the rest: the comma before it, or after it when it comes first, in an ALTER
    TABLE's list (`comma`); the space before it in a CREATE INDEX. Removing the spans leaves the
    statement without them, everything else as written."""
    out = []
    for m in CLAUSE.finditer(code):
        start, stop = m.start(), m.end()
        before = code[:start].rstrip()
        if comma and before.endswith(","):
            start = len(before) - 1
        elif comma:
            after = re.match(r"\s*,\s*", code[stop:])
            stop += after.end() if after else 0
        else:
            start = len(before)
        out.append((start, stop))
    return out
