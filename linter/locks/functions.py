"""Which PostgreSQL functions are volatile: a column DEFAULT calling one makes ADD COLUMN rewrite
the table (each row gets its own value); a stable or immutable default is stored once.

The names come from the servers themselves, not from a hand list: `postgres_functions.json` is
written by `schemacite.live.functions`, which reads `pg_proc.provolatile` on each server given.
A name is volatile when any overload of it is volatile on any server read. A function none of them
holds is the user's own, whose volatility only its CREATE FUNCTION tells (VOLATILE unless it says
otherwise).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TypedDict

DATA = Path(__file__).with_name("postgres_functions.json")  # a plain path: importlib.resources cost a run 4 ms


class _Read(TypedDict):
    """postgres_functions.json, as `schemacite.live.functions` writes it."""

    read_from: list[str]  # the servers' versions
    query: str
    volatile: list[str]
    not_volatile: list[str]


@functools.lru_cache(maxsize=1)
def _data() -> _Read:
    read: _Read = json.loads(DATA.read_text(encoding="utf-8"))
    return read


def volatile(name: str) -> bool:
    """Whether a function of that name (any schema, any overload) is volatile."""
    return name.rsplit(".", 1)[-1].lower() in _volatile()


@functools.lru_cache(maxsize=1)
def _volatile() -> frozenset[str]:
    return frozenset(name.lower() for name in _data()["volatile"])


def built_in(name: str) -> bool:
    """Whether the servers read hold a function of that name, or the grammar makes it one of its SQL
    value functions (CURRENT_TIMESTAMP, CURRENT_USER, ...: all stable)."""
    bare = name.rsplit(".", 1)[-1].lower()
    return bare in _volatile() or bare in _not_volatile() or bare in _SQL_VALUE_FUNCTIONS


# pglast's SQLValueFunction operations (SVFOP_*), named as the reader names them
_SQL_VALUE_FUNCTIONS = frozenset(
    {
        "current_date",
        "current_time",
        "current_time_n",
        "current_timestamp",
        "current_timestamp_n",
        "localtime",
        "localtime_n",
        "localtimestamp",
        "localtimestamp_n",
        "current_role",
        "current_user",
        "user",
        "session_user",
        "current_catalog",
        "current_schema",
    }
)


@functools.lru_cache(maxsize=1)
def _not_volatile() -> frozenset[str]:
    return frozenset(name.lower() for name in _data()["not_volatile"])
