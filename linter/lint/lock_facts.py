"""One statement's lock facts, looked up when a rule first asks for them.

The lock tables answer per statement what its actions lock (`impacts`), which of those locks fall
on relations that exist before the change (`locks`) and what long work it does in its transaction
(`work`). Rules read them through the `Context`; a run whose rules ask none of them (`--select`
of a rule that needs no locks) does no lock work. The schema a statement is judged against changes
once its step is over, so the facts are read, when at all, while the step lasts.
"""

from __future__ import annotations

from schemacite.lint.rule import Held
from schemacite.locks import (
    Lock,
    LockImpact,
    impacts_for,
    label,
    locks_on_preexisting,
    long_work,
    on_tables,
)
from schemacite.model import Schema
from schemacite.model.dialects import Target
from schemacite.model.statements import CreateTable, Statement


class LockFacts:
    # each fact is worked out on its first read and kept (plain attributes: cached_property takes a
    # lock on every first read, and each statement has three)
    def __init__(self, statement: Statement, schema: Schema, target: Target, works: bool):
        self.statement = statement
        self.schema = schema
        self.target = target
        self.works = works  # it runs in a transaction, where its long work holds the locks before it
        self._impacts: list[LockImpact] | None = None
        self._locks: list[tuple[LockImpact, list[Lock]]] | None = None
        self._work: tuple[str | None] | None = None

    @property
    def impacts(self) -> list[LockImpact]:
        if self._impacts is None:
            existing = may_lock_preexisting(self.statement, self.schema)
            self._impacts = impacts_for(self.statement, self.schema, self.target) if existing else []
        return self._impacts

    @property
    def locks(self) -> list[tuple[LockImpact, list[Lock]]]:
        if self._locks is None:
            self._locks = [(i, locks_on_preexisting(i, self.schema, self.statement)) for i in self.impacts]
        return self._locks

    @property
    def work(self) -> str | None:
        if self._work is None:
            self._work = (long_work(self.statement, self.schema, self.impacts) if self.works else None,)
        return self._work[0]

    def held(self) -> Held:
        """What the statement leaves its transaction holding: its locks that block traffic on
        relations existing before the change, and its long work."""
        blocking = [(impact, lk) for impact, taken in self.locks for lk in taken if lk.blocks != "nothing"]
        what = label(blocking[0][0].operation) if blocking else ""
        return Held(self.statement, what, on_tables([lk for _, lk in blocking], self.schema), self.work)


def may_lock_preexisting(stmt: Statement, schema: Schema) -> bool:
    """Whether the statement can lock a relation that exists before this change.

    A schema dump or a first migration creates tables and indexes on tables it just
    created: their locks harm nobody, so the lock tables need not be consulted.
    """
    op = stmt.op
    created = {op.model.name} if isinstance(op, CreateTable) else set()
    names = set(op.relations()) - created
    if not names:
        return not created  # VACUUM, CLUSTER, REINDEX DATABASE with no table: every table
    return any(not t.new if (t := schema.tables.get(n)) is not None else n not in schema.fresh for n in names)
