"""The dialects schemacite reads and the server versions ("targets") it judges locks for.

One place for this knowledge: configuration, live servers, evidence records and the lock tables
all read it from here.
"""

from __future__ import annotations

import enum
import math

from schemacite.model.record import record


class Dialect(enum.StrEnum):
    """A dialect schemacite reads. A `str`, so that it compares and prints as its name
    (`Dialect.POSTGRES == "postgres"`), in JSON, in plugins and in code that still holds the name."""

    MYSQL = "mysql"
    MARIADB = "mariadb"
    POSTGRES = "postgres"

    @classmethod
    def parse(cls, text: str) -> Dialect:
        """The dialect any accepted spelling names (`PostgreSQL`, `pg` -> POSTGRES)."""
        name = canonical(text)
        try:
            return cls(name)
        except ValueError:
            raise ValueError(f"unknown dialect {text!r} (use {', '.join(DIALECTS)})") from None

    @property
    def is_mysql_family(self) -> bool:
        """MySQL or MariaDB: one SQL, one lock model (metadata locks, ALGORITHM/LOCK), one driver."""
        return self is not Dialect.POSTGRES

    @property
    def family(self) -> Dialect:
        """MYSQL for MySQL and MariaDB, POSTGRES for PostgreSQL (the SQL they read)."""
        return Dialect.MYSQL if self.is_mysql_family else Dialect.POSTGRES

    @property
    def targets(self) -> tuple[Target, ...]:
        """The server versions schemacite judges locks for, oldest first."""
        return tuple(Target(self, _version(v)) for v in TARGETS[self])

    @property
    def default_target(self) -> Target:
        return Target.parse(DEFAULT_TARGET[self])


DIALECTS = tuple(Dialect)  # ("mysql", "mariadb", "postgres")
ALL_DIALECTS: frozenset[str] = frozenset(DIALECTS)  # a rule's `dialects` when it holds for every one
MYSQL_FAMILY = frozenset({Dialect.MYSQL, Dialect.MARIADB})
# spellings people use for a dialect
DIALECT_ALIASES = {"postgresql": "postgres", "pg": "postgres"}
TARGETS = {
    Dialect.MYSQL: ("5.7", "8.0", "8.4"),
    Dialect.MARIADB: ("10.6", "10.11", "11.4"),
    Dialect.POSTGRES: ("12", "13", "14", "15", "16", "17", "18"),
}
# PostgreSQL: the oldest major the community still supports (14 had its last release in November
# 2026), so a migration judged for it is judged for every server it may still run on. MySQL and
# MariaDB: their current long-term releases.
DEFAULT_TARGET = {Dialect.MYSQL: "mysql-8.4", Dialect.MARIADB: "mariadb-11.4", Dialect.POSTGRES: "postgres-15"}


def canonical(dialect: str) -> str:
    """The dialect's own name for any accepted spelling (`PostgreSQL` -> `postgres`)."""
    d = dialect.strip().lower()
    return DIALECT_ALIASES.get(d, d)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def known_targets(dialect: Dialect | None = None) -> str:
    """The targets one may name, for help and error messages (`mysql-5.7, mysql-8.0, ...`)."""
    return ", ".join(str(t) for d in ((dialect,) if dialect else DIALECTS) for t in d.targets)


@record(frozen=True, order=True)
class Target:
    """A server version schemacite judges locks for (`postgres-15`, `mariadb-10.11`): parsed once,
    from the configuration or a server, and carried from there. Prints as its canonical name."""

    dialect: Dialect
    version: tuple[int, ...]

    @classmethod
    def parse(cls, text: str) -> Target:
        """`postgres-15`, `PostgreSQL-15`, `mariadb-10.11`: a known target, else a ValueError naming them."""
        name, _, version = text.strip().lower().rpartition("-")
        try:
            target = cls(Dialect(canonical(name)), _version(version))
        except ValueError:
            target = None
        if target is None or target not in target.dialect.targets:
            raise ValueError(f"unknown target {text!r} (use {known_targets()})")
        return target

    def __str__(self) -> str:
        return f"{self.dialect}-{'.'.join(str(p) for p in self.version)}"

    @property
    def major(self) -> int:
        return self.version[0]


def nearest_target(dialect: str, version: tuple[int, ...]) -> Target:
    """The newest supported target not newer than `version` (the oldest one for older servers)."""
    supported = Dialect.parse(dialect).targets
    chosen = supported[0]
    for t in supported:
        if tuple(version[: len(t.version)]) >= t.version:
            chosen = t
    return chosen


@record(frozen=True)
class LockWait:
    """How a dialect bounds a statement's wait for a table's lock, and the bound schemacite advises:
    long enough for a brief catalog change to get its lock on a healthy server, short enough that
    the requests queued behind it wait no longer than a typical client timeout."""

    setting: str
    advised: str  # as SET takes it
    session: bool = False  # SET names the SESSION (MySQL/MariaDB have no setting for one transaction)
    wait_clause: bool = False  # MariaDB: `ALTER TABLE t WAIT n` bounds one statement's wait

    def statement(self, local: bool = False, seconds: float | None = None) -> str:
        """`SET [LOCAL | SESSION] setting = advised` (LOCAL: until the transaction ends), or the bound
        `seconds` when given (PostgreSQL takes milliseconds; MySQL and MariaDB whole seconds)."""
        return f"{self.set(local)} = {self.advised if seconds is None else self.value(seconds)}"

    def value(self, seconds: float) -> str:
        if self.session:  # lock_wait_timeout counts whole seconds, at least one
            return str(max(1, math.ceil(seconds)))
        return f"'{seconds:g}s'" if float(seconds).is_integer() else f"'{round(seconds * 1000)}ms'"

    def set(self, local: bool = False) -> str:
        return "SET " + ("LOCAL " if local else "SESSION " if self.session else "") + self.setting

    def one_statement(self) -> str:
        """The clause bounding one statement's wait, where the dialect has one ("" elsewhere)."""
        return f"ALTER TABLE t WAIT {self.advised} ..." if self.wait_clause else ""


# MySQL's and MariaDB's lock_wait_timeout bounds metadata locks, which every DDL statement takes at
# its start and end (innodb_lock_wait_timeout bounds row locks only); its value is in seconds
LOCK_WAIT = {
    Dialect.POSTGRES: LockWait("lock_timeout", "'2s'"),
    Dialect.MYSQL: LockWait("lock_wait_timeout", "5", session=True),
    Dialect.MARIADB: LockWait("lock_wait_timeout", "5", session=True, wait_clause=True),
}
