"""A cache of parsed files, so a pre-commit run that replays hundreds of history
migrations reads only the files that changed; and of the state a history's replay leaves
(`HistoryState`), so a run whose history is unchanged replays none of it.

Entries hold the parsed statements as they were before any replay, as plain JSON data
(`schemacite.model.codec`, tagged form); a history state is MessagePack, decoded by msgspec into
the declared classes (the state is the warm pre-commit run's largest read: msgspec decodes it in
about a fifth of the codec's time, bench/msgspec_model.py). Reading either back rebuilds only
schemacite's own model classes, after checking every field against its declared type, and never
runs anything. An entry is keyed
by the file's bytes, the dialect and the schemacite version, and records that key inside
itself; an entry that is unreadable, of another shape or of another key is a miss and is
written again.

The cache lives in the user's cache folder (`$XDG_CACHE_HOME/schemacite`, else
`~/.cache/schemacite`), or in `$SCHEMACITE_CACHE_DIR`, never inside the linted repository:
entries a pull request could commit would otherwise decide what the linter believes the
migrations say. `--no-cache` turns it off. The key also covers the reader's own code, so a
changed reader never reads an entry written by the old one.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any

import msgspec

try:  # start-up: hashlib loads OpenSSL (2 ms) for a hash it then takes from _blake2 all the same
    from _blake2 import blake2b
except ImportError:  # an interpreter built without it
    from hashlib import blake2b

from schemacite import __version__
from schemacite.model import schema
from schemacite.model.codec import Codec, DecodeError
from schemacite.model.record import record, replace
from schemacite.model.statements import STORED, ParseError
from schemacite.sources.frameworks.base import Unit
from schemacite.sources.read import ParsedFile, resequence

FORMAT = 4  # 2: fields holding their default left out, places in files as lists; 3: a place written again refers back; 4: Check.passes_when
STATE_FORMAT = 2  # of a history state (MessagePack); 2: Check.passes_when
STATES_KEPT = 8  # history states are about 1 MB for 300 tables: the newest few are enough
# larger files (schema dumps) are not kept: reading a dump's entry back costs about what
# parsing it does, and history replay, which the cache is for, reads migrations
LARGEST = 2_000_000
# a run reading fewer files than this parses the small ones again instead of reading their
# entries: reading the first entry builds the codec's readers, which costs more than parsing a few
# small files (one two-statement migration: 383M instructions without the cache, 400M with it warm)
ENTRIES_FROM_FILES = 8
ENTRIES_FROM_BYTES = 32_768  # a file this large is worth its entry in any run (a schema dump)


def cache_root() -> Path:
    explicit = os.environ.get("SCHEMACITE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "schemacite"


def memo_json(kind: str, raw: bytes, make: Callable[[], object], root: Path | None = None) -> object:
    """`make()`, a JSON-ready value that depends only on `raw`, read back from the user's cache
    (or `root`) when these bytes were seen before (for data schemacite ships in a format that is
    slow to read, the evidence TOML, and for what the dialect marks of a project's files told).
    Whatever is read back still goes through the caller's own checks."""
    key = blake2b(raw + b"\0" + __version__.encode(), digest_size=20).hexdigest()
    target = (root or cache_root()) / kind / f"{key}.json"
    try:
        return json.loads(target.read_bytes())
    except (OSError, ValueError):
        pass
    value = make()
    try:
        _write_atomically(target, json.dumps(value, separators=(",", ":")))
    except (OSError, TypeError, ValueError):
        pass  # a read-only home or a value JSON cannot hold: made again next time
    return value


def _write_atomically(target: Path, text: str | bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    if isinstance(text, bytes):
        tmp.write_bytes(text)
    else:
        tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)  # parallel runs never read half a file


@record
class HistoryState:
    """What replaying a history's files left behind: read back, it stands for that replay."""

    schema: schema.Schema
    errors: list[ParseError]  # the history's input errors, in the order met
    file_ignores: dict[str, tuple[frozenset[str], int]]
    bad_directives: dict[str, list[ParseError]]
    units: int  # deploys walked
    next_id: int  # the next transaction id
    next_seq: int  # the next place in replay order
    init: str | None  # the init folder whose deploy was under way
    new: set[str]  # tables the last deploy created
    # every file the replay read that the key does not cover (included ones), by path: its digest
    included: dict[str, str] = field(default_factory=dict)


@record(frozen=True)
class _StateEntry:
    """A history state as kept: the key it was kept under and its format beside it."""

    format: int
    key: str
    state: HistoryState


@functools.lru_cache(maxsize=1)
def _state_decoder() -> msgspec.msgpack.Decoder[_StateEntry]:
    return msgspec.msgpack.Decoder(_StateEntry)


@functools.lru_cache(maxsize=1)
def _codec() -> Codec:
    return Codec(
        (
            schema.Schema,
            ParsedFile,
            Unit,
            *STORED,
            schema.Location,
            schema.Table,
            schema.Column,
            schema.Index,
            schema.Check,
            schema.ForeignKey,
            schema.Partitioning,
            schema.View,
            schema.Workload,
        ),
        tagged=True,
        skip=("_lookup",),  # the schema's index of names, made again when first asked
        positional=(schema.Location,),
    )


@functools.lru_cache(maxsize=1)
def reader_digest() -> bytes:
    """A digest of the code that turns SQL into statements: an entry written by other reader code
    (an editable install between two versions) is never read back."""
    package = Path(__file__).parents[1]
    h = blake2b(__version__.encode(), digest_size=16)
    readers = [*package.glob("sources/*.py"), *package.glob("sources/*/*.py"), *package.glob("model/*.py")]
    for path in sorted(readers):
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(path.name.encode())
    return h.digest()


class ParseCache:
    def __init__(self, root: Path | None = None):
        self.root = root or cache_root()
        self.dir = self.root / "parse" / __version__
        self.states = self.root / "state" / __version__
        self.hits = self.misses = 0
        self.state_hits = 0

    @staticmethod
    def entries_from(files: int) -> int:
        """The size from which a run reading `files` files keeps (and reads back) a file's parse."""
        return 0 if files >= ENTRIES_FROM_FILES else ENTRIES_FROM_BYTES

    @classmethod
    def key(cls, raw: bytes, dialect: str) -> str:
        return cls.digest(raw + b"\0" + dialect.encode() + b"\0" + reader_digest())

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str, path: str):
        try:
            parsed = _read_entry(self._path(key), key, "file", ParsedFile)
        except (OSError, ValueError, RecursionError):  # DecodeError and JSON errors are ValueErrors
            self.misses += 1
            return None
        self.hits += 1
        resequence(parsed, path)
        return parsed

    def put(self, key: str, parsed, size: int = 0) -> None:
        if size > LARGEST:
            return
        try:
            text = _entry_text(key, "file", parsed)
        except DecodeError:
            return  # a statement holding something the codec does not store: parse it again next time
        try:
            _write_atomically(self._path(key), text)
        except OSError:
            pass  # a read-only home still lints, only slower

    def memo(self, kind: str, raw: bytes, make: Callable[[], object]) -> object:
        """`memo_json` in this cache's folder."""
        return memo_json(kind, raw, make, self.root)

    # ------------------------------------------------------------ history states

    @staticmethod
    def digest(raw: bytes) -> str:
        return blake2b(raw, digest_size=20).hexdigest()

    @classmethod
    def state_key(cls, parts: list[str]) -> str:
        """The key of a history's state: `parts` name everything the replay of the history reads
        (its settings, each file's path and digest, in order); the reader's code is added here."""
        return cls.digest("\0".join(parts).encode() + b"\0" + reader_digest())

    def get_state(self, key: str) -> HistoryState | None:
        try:
            with open(self.states / f"{key}.msgpack", "rb") as f:
                entry = _state_decoder().decode(f.read())  # msgspec's errors are ValueErrors
            if entry.format != STATE_FORMAT or entry.key != key:
                return None
            state = entry.state
            for path, known in state.included.items():
                with open(path, "rb") as f:
                    if self.digest(f.read()) != known:
                        return None  # an included file changed since
        except (OSError, ValueError, RecursionError):
            return None
        self.state_hits += 1
        return state

    def put_state(self, key: str, **state: Any) -> None:
        """Keep a `HistoryState` of these fields under `key`."""
        kept_state = HistoryState(**state)
        # the schema's index of names is made again when first asked
        kept_state = replace(kept_state, schema=replace(kept_state.schema, _lookup=None))
        try:
            blob = msgspec.msgpack.encode(_StateEntry(STATE_FORMAT, key, kept_state))
        except (TypeError, ValueError, msgspec.EncodeError):
            return  # something MessagePack does not hold: replayed again next time
        try:
            _write_atomically(self.states / f"{key}.msgpack", blob)
            kept = sorted(self.states.glob("*"), key=lambda p: p.stat().st_mtime, reverse=True)
            for old in kept[STATES_KEPT:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass


def _read_entry(target: Path, key: str, part: str, cls: type) -> Any:
    """The `part` of the entry at `target`, read back as `cls`: OSError when there is none, a
    ValueError (DecodeError, a JSON error) when it is not this key's, of this format, as written."""
    with open(target, "rb") as f:
        doc = json.loads(f.read())
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("key") != key:
        raise DecodeError("another key or format")
    return _codec().decode(doc.get(part), cls)


def _entry_text(key: str, part: str, value: object) -> str:
    """An entry holding `value` as its `part`, under `key`; DecodeError when the codec cannot store it."""
    return json.dumps({"format": FORMAT, "key": key, part: _codec().encode(value)}, separators=(",", ":"))
