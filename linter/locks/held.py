"""Which locks a transaction still holds that no long work has outlasted yet.

A lock taken in a transaction lasts until the transaction ends. The first long work after it
(a backfill, a rewrite, a scan) that it makes worse, blocking more of a table than that work's
own lock does, is where holding it costs; from then on it is accounted for. `Transaction` keeps
the locks not accounted for yet, each with the statement that first took it at that strength, in
time linear in the transaction's statements.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from schemacite.locks import Lock

if TYPE_CHECKING:
    from schemacite.lint.rule import Held

BLOCKS = ("nothing", "writes", "reads+writes")


def level(lock: Lock) -> int:
    return BLOCKS.index(lock.blocks)


def levels(locks: Iterable[Lock], start: dict[str, int] | None = None) -> dict[str, int]:
    """The strongest block per relation (0 nothing, 1 writes, 2 reads and writes)."""
    out = dict(start or {})
    for lk in locks:
        out[lk.relation] = max(out.get(lk.relation, 0), level(lk))
    return out


def worse(locks: Iterable[Lock], than: dict[str, int]) -> list[Lock]:
    """The locks that block more of their relation than `than` does."""
    return [lk for lk in locks if level(lk) > than.get(lk.relation, 0)]


class Transaction:
    def __init__(self) -> None:
        self.taken: dict[str, int] = {}
        self.pending: list[Held] = []  # oldest first
        # every blocking mode taken so far per relation, outlasted or not: a lock the transaction
        # holds at least as strongly is taken without waiting (`modes.covers`)
        self.modes: dict[str, set[str]] = {}

    def took(self, held: Held) -> list[Held]:
        """Record a statement of the transaction, after the rules saw it: a long work accounts for
        the pending locks it makes worse; the statement's own new locks become pending. Returns the
        earlier statements whose locks the transaction now keeps through this long work."""
        outlasted: list[Held] = []
        if held.work is not None:
            own = levels(held.locks)
            outlasted = [h for h in self.pending if worse(h.locks, own)]
            self.pending = [h for h in self.pending if h not in outlasted]
        for lk in held.locks:
            self.modes.setdefault(lk.relation, set()).add(lk.mode)
        fresh = worse(held.locks, self.taken)
        self.taken = levels(held.locks, self.taken)
        if fresh:
            held.locks = fresh
            self.pending.append(held)
        return outlasted
