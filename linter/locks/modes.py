"""The lock-mode algebra: every scale and every "what does this block" answer comes from here.

PostgreSQL: the eight table-level lock modes (named as `pg_locks.mode` names them), their order,
and the conflict matrix of the documentation (13.3.1 Table-Level Locks, Table 13.2). What a mode
blocks is derived from the matrix: a plain SELECT takes ACCESS SHARE, INSERT/UPDATE/DELETE take
ROW EXCLUSIVE, so a mode conflicting with ACCESS SHARE blocks reads and writes, one conflicting
only with ROW EXCLUSIVE blocks writes.

MySQL/MariaDB: the online DDL lock levels (LOCK=NONE, SHARED, EXCLUSIVE) and algorithms
(INSTANT, NOCOPY, INPLACE, COPY), least costly first.
"""

from __future__ import annotations

from collections.abc import Iterable

ACCESS_SHARE = "AccessShareLock"
ROW_SHARE = "RowShareLock"
ROW_EXCLUSIVE = "RowExclusiveLock"
SHARE_UPDATE_EXCLUSIVE = "ShareUpdateExclusiveLock"
SHARE = "ShareLock"
SHARE_ROW_EXCLUSIVE = "ShareRowExclusiveLock"
EXCLUSIVE = "ExclusiveLock"
ACCESS_EXCLUSIVE = "AccessExclusiveLock"

# weakest to strongest (the numbering of lockdefs.h)
MODES = (
    ACCESS_SHARE,
    ROW_SHARE,
    ROW_EXCLUSIVE,
    SHARE_UPDATE_EXCLUSIVE,
    SHARE,
    SHARE_ROW_EXCLUSIVE,
    EXCLUSIVE,
    ACCESS_EXCLUSIVE,
)

# Table 13.2 "Conflicting Lock Modes"
CONFLICTS: dict[str, frozenset[str]] = {
    ACCESS_SHARE: frozenset({ACCESS_EXCLUSIVE}),
    ROW_SHARE: frozenset({EXCLUSIVE, ACCESS_EXCLUSIVE}),
    ROW_EXCLUSIVE: frozenset({SHARE, SHARE_ROW_EXCLUSIVE, EXCLUSIVE, ACCESS_EXCLUSIVE}),
    SHARE_UPDATE_EXCLUSIVE: frozenset(
        {SHARE_UPDATE_EXCLUSIVE, SHARE, SHARE_ROW_EXCLUSIVE, EXCLUSIVE, ACCESS_EXCLUSIVE}
    ),
    SHARE: frozenset({ROW_EXCLUSIVE, SHARE_UPDATE_EXCLUSIVE, SHARE_ROW_EXCLUSIVE, EXCLUSIVE, ACCESS_EXCLUSIVE}),
    SHARE_ROW_EXCLUSIVE: frozenset(
        {ROW_EXCLUSIVE, SHARE_UPDATE_EXCLUSIVE, SHARE, SHARE_ROW_EXCLUSIVE, EXCLUSIVE, ACCESS_EXCLUSIVE}
    ),
    EXCLUSIVE: frozenset(
        {ROW_SHARE, ROW_EXCLUSIVE, SHARE_UPDATE_EXCLUSIVE, SHARE, SHARE_ROW_EXCLUSIVE, EXCLUSIVE, ACCESS_EXCLUSIVE}
    ),
    ACCESS_EXCLUSIVE: frozenset(MODES),
}

# LOCK TABLE ... IN <mode> MODE spelling -> pg_locks name
SPELLINGS = {
    "ACCESS SHARE": ACCESS_SHARE,
    "ROW SHARE": ROW_SHARE,
    "ROW EXCLUSIVE": ROW_EXCLUSIVE,
    "SHARE UPDATE EXCLUSIVE": SHARE_UPDATE_EXCLUSIVE,
    "SHARE": SHARE,
    "SHARE ROW EXCLUSIVE": SHARE_ROW_EXCLUSIVE,
    "EXCLUSIVE": EXCLUSIVE,
    "ACCESS EXCLUSIVE": ACCESS_EXCLUSIVE,
}

BLOCKS_ORDER = ("nothing", "writes", "reads+writes")

# MySQL/MariaDB online DDL
MYSQL_LOCKS = ("NONE", "SHARED", "EXCLUSIVE")  # LOCK= levels, least restrictive first
MYSQL_BLOCKS = {"NONE": "nothing", "SHARED": "writes", "EXCLUSIVE": "reads+writes"}
ALGORITHMS = ("INSTANT", "NOCOPY", "INPLACE", "COPY")  # cheapest first


def conflicts(a: str, b: str) -> bool:
    return b in CONFLICTS.get(a, frozenset())


def covers(held: Iterable[str], wanted: str) -> bool:
    """Whether a transaction holding the PostgreSQL modes `held` on a relation takes `wanted` on it
    without waiting: no mode another session may hold beside `held` conflicts with `wanted`.
    Never for MySQL's and MariaDB's lock levels, whose DDL commits the transaction it runs in."""
    held = [m for m in held if m in CONFLICTS]
    if not held or wanted not in CONFLICTS:
        return False
    others = [m for m in MODES if not any(conflicts(h, m) for h in held)]
    return not any(conflicts(wanted, m) for m in others)


def rank(mode: str) -> int:
    """Position on the PostgreSQL scale (unknown names rank above ACCESS EXCLUSIVE)."""
    return MODES.index(mode) if mode in MODES else len(MODES)


def strongest(modes: Iterable[str]) -> str | None:
    """The strongest of some PostgreSQL modes (None for none)."""
    known = [m for m in modes if m in MODES]
    return max(known, key=MODES.index) if known else None


def blocks(mode: str) -> str:
    """What a lock stops other sessions doing with ordinary statements: nothing, writes, or
    reads+writes. PostgreSQL modes follow the conflict matrix; MySQL/MariaDB lock levels their
    documented meaning."""
    if mode in MYSQL_BLOCKS:
        return MYSQL_BLOCKS[mode]
    if mode not in CONFLICTS or conflicts(mode, ACCESS_SHARE):
        return "reads+writes"
    return "writes" if conflicts(mode, ROW_EXCLUSIVE) else "nothing"


def worst(values: Iterable[str]) -> str:
    """The worst of some `blocks` answers."""
    return max(values, key=BLOCKS_ORDER.index, default="nothing")


def gate_after(seen: str | None) -> str | None:
    """For measuring: the LOCK TABLE mode that lets a statement take `seen` (or anything weaker)
    but makes it queue for anything stronger; None when nothing is stronger."""
    stronger = set(MODES[rank(seen) + 1 :]) if seen else set(MODES)
    if not stronger:
        return None
    weaker = set(MODES) - stronger
    candidates = [g for g in MODES if all(conflicts(g, m) for m in stronger)]
    # the gate must let `seen` itself through, and queue as few weaker requests as it can
    gate = min(
        candidates,
        key=lambda g: (seen is not None and conflicts(g, seen), sum(conflicts(g, m) for m in weaker), rank(g)),
    )
    return next(s for s, name in SPELLINGS.items() if name == gate)
