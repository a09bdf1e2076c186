"""The dialects schemacite reads and the server versions ("targets") it judges locks for.

One place for this knowledge: configuration, live servers, evidence records and the lock tables
all read it from here.
"""

from __future__ import annotations

from dataclasses import dataclass

DIALECTS = ("mysql", "mariadb", "postgres")
MYSQL_FAMILY = frozenset({"mysql", "mariadb"})
# spellings people use for a dialect
DIALECT_ALIASES = {"postgresql": "postgres", "pg": "postgres"}
TARGETS = {
    "mysql": ("5.7", "8.0", "8.4"),
    "mariadb": ("10.6", "10.11", "11.4"),
    "postgres": ("12", "13", "14", "15", "16", "17", "18"),
}
# PostgreSQL: the oldest major the community still supports (14 had its last release in November
# 2026), so a migration judged for it is judged for every server it may still run on. MySQL and
# MariaDB: their current long-term releases.
DEFAULT_TARGET = {"mysql": "mysql-8.4", "mariadb": "mariadb-11.4", "postgres": "postgres-15"}


def canonical(dialect: str) -> str:
    """The dialect's own name for any accepted spelling (`PostgreSQL` -> `postgres`)."""
    d = dialect.strip().lower()
    return DIALECT_ALIASES.get(d, d)


def nearest_target(dialect: str, version: tuple[int, ...]) -> str:
    """The newest supported target not newer than `version` (the oldest one for older servers)."""
    supported = sorted(TARGETS[dialect], key=lambda v: tuple(int(p) for p in v.split(".")))
    chosen = supported[0]
    for v in supported:
        want = tuple(int(p) for p in v.split("."))
        if tuple(version[: len(want)]) >= want:
            chosen = v
    return f"{dialect}-{chosen}"


@dataclass(frozen=True)
class LockWait:
    """How a dialect bounds a statement's wait for a table's lock, and the bound schemacite advises:
    long enough for a brief catalog change to get its lock on a healthy server, short enough that
    the requests queued behind it wait no longer than a typical client timeout."""

    setting: str
    advised: str  # as SET takes it
    session: bool = False  # SET names the SESSION (MySQL/MariaDB have no setting for one transaction)
    wait_clause: bool = False  # MariaDB: `ALTER TABLE t WAIT n` bounds one statement's wait

    def statement(self, local: bool = False) -> str:
        """`SET [LOCAL | SESSION] setting = advised` (LOCAL: until the transaction ends)."""
        return f"{self.set(local)} = {self.advised}"

    def set(self, local: bool = False) -> str:
        return "SET " + ("LOCAL " if local else "SESSION " if self.session else "") + self.setting

    def one_statement(self) -> str:
        """The clause bounding one statement's wait, where the dialect has one ("" elsewhere)."""
        return f"ALTER TABLE t WAIT {self.advised} ..." if self.wait_clause else ""


# MySQL's and MariaDB's lock_wait_timeout bounds metadata locks, which every DDL statement takes at
# its start and end (innodb_lock_wait_timeout bounds row locks only); its value is in seconds
LOCK_WAIT = {
    "postgres": LockWait("lock_timeout", "'2s'"),
    "mysql": LockWait("lock_wait_timeout", "5", session=True),
    "mariadb": LockWait("lock_wait_timeout", "5", session=True, wait_clause=True),
}
