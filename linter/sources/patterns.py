"""Regular expressions compiled the first time they are used.

A reader module holds patterns for constructs a run may never meet (the other dialect's, a
runner's, psql's meta-commands); compiling them all at import was a twentieth of a cold start.
A `Pattern` is used as the compiled one is (`PATTERN.search(text)`, `.pattern`, `.flags`); only
the `re` module's functions (`re.sub(PATTERN, ...)`) want the compiled pattern itself.
"""

from __future__ import annotations

import re
from typing import Any


class Pattern:
    def __init__(self, pattern: str, flags: int = 0):
        self.pattern = pattern
        self.flags = flags

    def __getattr__(self, name: str) -> Any:  # only until compiled: then the methods are attributes
        compiled = re.compile(self.pattern, self.flags)
        for method in ("search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"):
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)
