"""The shape of a lock-table row, one for both dialect families: data only, read by the lock tables.

A row says what one operation does to concurrent traffic on a range of server versions. The
facts every server has share one name here; each family adds the facts only it has:

- ``since`` / ``until``: the versions the row holds for, as tuples (``(12,)`` for PostgreSQL 12,
  ``(8, 0, 12)`` for MySQL 8.0.12). A row holds from ``since`` until the next row of its key
  starts, or to ``until`` (inclusive, compared at the precision it is written: ``(17,)`` takes in
  every 17.x) when the form stops being accepted before that. Rows of a key are listed oldest first;
- ``mode``: the lock the statement takes on its own table, in the server's words (``pg_locks.mode``
  on PostgreSQL, the LOCK= level on MySQL/MariaDB);
- ``rewrite`` / ``scan``: whether the table is rewritten (rebuilt, copied) and whether it is read
  whole while the lock is held; True, False, or None for "it depends", with ``rewrite_when`` /
  ``scan_when`` saying on what;
- ``alternative``: the less disruptive way to reach the same end; ``alternative_outside``: it has a
  statement PostgreSQL refuses in a transaction block (CONCURRENTLY), so where it can run depends on
  the runner;
- ``refused``: the SQLSTATE or error code the server answers instead, for a form it does not accept;
- ``source``: the documentation the row rests on;
- ``note``: what else a reader of the finding should know;
- ``unmeasured``: why no server case checks the row; empty for a row the lock tests check on the
  servers of its table's ``MEASURED_ON``.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict, TypeVar

from schemacite.model.record import record

Version = tuple[int, ...]


@record(frozen=True, kw_only=True)
class Row:
    """One row of a lock table: what an operation locks and does."""

    since: Version
    until: Version | None = None
    mode: str | None
    rewrite: bool | None = False
    rewrite_when: str = ""
    scan: bool | None = False
    scan_when: str = ""
    alternative: str | None = None
    alternative_outside: bool = False
    refused: str = ""
    source: str
    note: str = ""
    unmeasured: str = ""

    def holds_on(self, version: Version) -> bool:
        """`version` is in the row's range, as far as the row itself says (`row_at` also asks the next row)."""
        return self.since <= version and (self.until is None or version[: len(self.until)] <= self.until)


@record(frozen=True, kw_only=True)
class Other:
    """A lock a PostgreSQL statement takes on another relation, named by its role (`postgres_table.ROLES`)."""

    role: str
    mode: str
    when: str = ""  # condition in words; empty = always
    recurse: bool = False  # that relation's partitions are locked the same way


@record(frozen=True, kw_only=True)
class PostgresRow(Row, kw_only=True):  # type: ignore[call-arg]  # the Struct made by the class statement needs it too
    """A PostgreSQL lock-table row."""

    since: Version = (12,)  # the oldest major the tables cover
    others: tuple[Other, ...] = ()  # locks on other relations
    recurse: bool = False  # on a partitioned table the same lock (or `partition_mode`) is taken on every partition
    partition_mode: str | None = None  # lock on each partition when not `mode`
    partitioned_mode: str | None = None  # lock on the main relation when it is partitioned
    new_storage: bool = False  # the table gets a fresh, empty file without copying rows (TRUNCATE)


# The `unmeasured` of a MySQL/MariaDB row that no server case checks: no MySQL server could be run,
# and MariaDB's are checked on one release.
DOCUMENTATION_ONLY = "documentation only"


@record(frozen=True, kw_only=True)
class MysqlRow(Row, kw_only=True):  # type: ignore[call-arg]  # the Struct made by the class statement needs it too
    """A MySQL or MariaDB lock-table row."""

    mode: str  # least restrictive LOCK the server accepts: NONE | SHARED | EXCLUSIVE
    rewrite: bool = False  # rebuilt or copied: the matrix says, never "it depends"
    scan: bool = False
    algorithm: str | None  # INSTANT | NOCOPY | INPLACE | COPY; None: no ALGORITHM clause applies
    # MySQL only: what an explicit ALGORITHM=INPLACE does to an INSTANT operation
    # (True: it rewrites the table, as for ADD/DROP COLUMN); None: same as `rewrite`.
    inplace_rewrite: bool | None = None
    unmeasured: str = DOCUMENTATION_ONLY


class FulltextLimits(TypedDict):
    """What a FULLTEXT index on a MySQL or MariaDB table changes of the matrix's rows."""

    no_instant_columns: tuple[Version, str, str]  # (since, source, why): no INSTANT column change
    rebuild_lock: tuple[str, str, str]  # (least LOCK, source, why) of a rebuild in place
    rebuild_copy_ops: NotRequired[frozenset[str]]  # the keys whose rebuild copies instead
    rebuild_copy_if_more_than_one: NotRequired[bool]  # every rebuild copies with two FULLTEXT indexes or more
    rebuild_copy_note: str


R = TypeVar("R", bound=Row)


def row_at(rows: tuple[R, ...], version: Version) -> R | None:
    """The row of `rows` (one key's, oldest first) that holds on `version`, if any."""
    found = None
    for row in rows:
        if row.since <= version:
            found = row
    return found if found is not None and found.holds_on(version) else None


def dotted(version: Version) -> str:
    """(8, 0, 12) -> "8.0.12"; (12,) -> "12"."""
    return ".".join(map(str, version))
