"""Names listed in a message: the first few, and how many more."""

from __future__ import annotations

from collections.abc import Iterable


def first_of(names: Iterable[str], shown: int) -> str:
    """`a, b, c and 4 more`: the first `shown` names, and a count of the rest."""
    names = list(names)
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
