"""What goes wrong in a run, and what the run was reading when it did.

Expected problems (a bad setting, a missing file, a server that refuses) are `UsageError`s or
located `ParseError`s and exit 2. Anything else is a defect of schemacite: the command line
reports it in one line naming the input being read (`now_reading`), and exits 2 too, never 1,
which CI reads as "findings".
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

_reading: list[str] = []


class UsageError(Exception):
    """A run that cannot start or go on as asked; the message says why."""


class Stopped(BaseException):
    """SIGTERM or SIGHUP arrived: unwind (dropping scratch areas) and exit 128 + signal."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def reading(what: str) -> Iterator[None]:
    """Mark `what` (a file, a server) as the input being read until the block ends."""
    _reading.append(what)
    try:
        yield
    except Exception as e:
        if not hasattr(e, "schemacite_reading"):  # the innermost input wins
            e.schemacite_reading = what  # type: ignore[attr-defined]
        raise
    finally:
        _reading.pop()


def now_reading() -> str | None:
    return _reading[-1] if _reading else None


def internal_error(exc: BaseException) -> str:
    where = getattr(exc, "schemacite_reading", None) or now_reading()
    place = f" while reading {where}" if where else ""
    detail = " ".join(str(exc).split())[:300]
    return f"internal error{place}: {type(exc).__name__}{': ' + detail if detail else ''} (--debug shows the traceback)"


def closest(typed: str, known: Iterable[str]) -> str | None:
    """The known name nearest `typed` (difflib's similarity of 0.6 or more), for a "did you mean"."""
    # start-up: difflib loads only for a mistyped name
    import difflib

    close = difflib.get_close_matches(typed, list(known), n=1)
    return close[0] if close else None
