"""A MySQL/MariaDB statement written again with other ALGORITHM= and LOCK= clauses.

`locks --verify` and the lock tests ask the server which clauses it accepts for a statement by
running it with each in turn. Rewriting the statement is reading SQL text, so it lives here with
the other MySQL readers; what kind of statement it is comes from its typed facts.
"""

from __future__ import annotations

import re

_CLAUSE = re.compile(
    r",?\s*\b(ALGORITHM|LOCK)\s*=?\s*(DEFAULT|INSTANT|NOCOPY|INPLACE|COPY|NONE|SHARED|EXCLUSIVE)\b", re.IGNORECASE
)
_ALTER_HEAD = re.compile(
    r"^\s*ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE\s+(?:`[^`]+`|[\w$]+)(?:\s*\.\s*(?:`[^`]+`|[\w$]+))?\s*", re.IGNORECASE
)
_DROP_INDEX = re.compile(
    r"^\s*DROP\s+INDEX\s+(?:IF\s+EXISTS\s+)?(`[^`]+`|[\w$]+)\s+ON\s+(`[^`]+`|[\w$.`]+)\s*$", re.IGNORECASE
)


def without_clauses(sql: str) -> str:
    """The statement without any ALGORITHM=/LOCK= clause."""
    return _CLAUSE.sub("", sql.strip().rstrip(";")).strip()


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
    head = _ALTER_HEAD.match(base)
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
