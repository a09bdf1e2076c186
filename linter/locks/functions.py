"""Which PostgreSQL functions are volatile: a column DEFAULT calling one makes ADD COLUMN rewrite
the table (each row gets its own value); a stable or immutable default is stored once.

The names come from the servers themselves, not from a hand list: `postgres_functions.json` is
written by `schemacite.live.functions`, which reads `pg_proc.provolatile` on each server given.
A name is volatile when any overload of it is volatile on any server read.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

DATA = Path(__file__).with_name("postgres_functions.json")  # a plain path: importlib.resources cost a run 4 ms


@functools.lru_cache(maxsize=1)
def _data() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


def volatile(name: str) -> bool:
    """Whether a function of that name (any schema, any overload) is volatile."""
    return name.rsplit(".", 1)[-1].lower() in _volatile()


@functools.lru_cache(maxsize=1)
def _volatile() -> frozenset[str]:
    return frozenset(name.lower() for name in _data()["volatile"])
