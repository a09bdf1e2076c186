"""A cache of parsed files, so a pre-commit run that replays hundreds of history
migrations reads only the files that changed.

Entries are keyed by the file's bytes, the dialect and the schemacite version, and
hold the parsed statements as they were before any replay. A hit is given the path
it was found at and fresh replay-order numbers, so the same content under another
name is reused too. The cache lives in `.schemacite_cache/` next to the config file
(or the working directory), or in `$SCHEMACITE_CACHE_DIR`; `--no-cache` turns it off.
Any unreadable or stale entry is ignored and rewritten.
"""
from __future__ import annotations

import hashlib
import os
import pickle
from dataclasses import replace
from pathlib import Path

from schemacite import __version__

_NOTE = "# created by schemacite; safe to delete\n"


class ParseCache:
    def __init__(self, root: Path):
        self.dir = Path(os.environ.get("SCHEMACITE_CACHE_DIR") or root / ".schemacite_cache") / __version__
        self.hits = self.misses = 0

    def _path(self, raw: bytes, dialect: str) -> Path:
        return self.dir / f"{hashlib.blake2b(raw + dialect.encode(), digest_size=16).hexdigest()}.pickle"

    def get(self, raw: bytes, dialect: str, path: str):
        try:
            with open(self._path(raw, dialect), "rb") as f:
                parsed = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        return _relocate(parsed, path)

    def put(self, raw: bytes, dialect: str, parsed) -> None:
        target = self._path(raw, dialect)
        try:
            if not self.dir.exists():
                self.dir.mkdir(parents=True, exist_ok=True)
                (self.dir.parent / ".gitignore").write_text(_NOTE + "*\n")
            tmp = target.with_suffix(f".{os.getpid()}.tmp")
            with open(tmp, "wb") as f:
                pickle.dump(parsed, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, target)  # atomic: parallel runs never read half a file
        except OSError:
            pass  # a read-only checkout still lints, only slower


def _relocate(parsed, path: str):
    from schemacite.sql.parse import next_seq

    parsed.path = path
    for stmt in parsed.statements:
        stmt.location = replace(stmt.location, file=path, seq=next_seq())
    parsed.errors = [replace(e, file=path) for e in parsed.errors]
    return parsed
