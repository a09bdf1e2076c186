"""Reading ahead: a second process parses the files a replay reads next while this one replays
and checks the files before them.

The replay must walk the files in deploy order (each is judged against the schema the earlier
ones left), but parsing a file needs none of that schema. A run over many files (a CI job, an
audit of a repository's migrations) forks once: the child parses the planned files in order and
sends each parse back through a pipe; the parent takes them as the replay reaches them. A file
the child did not plan, could not parse or could not send is parsed here as before, so the
answers are the same whichever process parsed a file; only their order in replay
(`Location.seq`) is given again here, as a cache entry's is.

`Replay` decides when it pays (`read_ahead_pays`); only the CLI asks for it: the language
server, the pytest plugin and the frameworks' processes run threads or hold connections a fork
should not copy. The child reads nothing but the files the parent would have read, writes only to
the pipe and to the parse cache (whose entries are written atomically), and leaves with
`os._exit`, running none of the parent's exit handlers. What comes through the pipe is read back
by an unpickler that builds schemacite's own classes and nothing else, so even a stream our child
did not write could call no function.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import mmap
import os
import pickle
import select
import struct
import sys
from collections.abc import Callable

from schemacite.sources.read import ParsedFile, resequence

_PIPE_SIZE = 1 << 20  # Linux lets a pipe hold this much: the child runs ahead by a few files
_HEAD = struct.Struct("<Q")


_FREE, _PARENT, _CHILD = 0, 1, 2  # who claimed a file: the one that claims it first parses it
# the files a child planning its own list may claim (only the pages touched take memory); any
# further file is parsed by this process
_PLANNED_MOST = 1 << 20
_PLAN = -1  # the number the child sends its plan under, before any parse


class ReadAhead:
    """The parses of `paths`, made by `read` in a child process that goes through them in order.
    While the child finishes a file this process needs, this one parses the next file nobody has
    claimed: when the checks here are quick (a long history before one change), the two take
    turns instead of this one waiting. The first file is the child's, and this process parses
    none before the child's first parse arrives: until then the child is loading its parser,
    which this process would load too. It runs `meanwhile` instead: what it would load later
    anyway (the checks' tables).

    `paths` may instead be a plan: a function the child runs first, returning what it sends back
    before any parse (`plan()` here) and the files it then parses. The work of listing and
    ordering the files is then the child's too, done while this process runs `meanwhile`."""

    def __init__(
        self,
        paths: list[str] | Callable[[], tuple[object, list[str]]],
        read: Callable[[str], ParsedFile],
        meanwhile: Callable[[], object] | None = None,
    ):
        planning = callable(paths)
        self._read = read
        self._paths: list[str] = []
        self._index: dict[str, int] = {}
        if not planning:
            self._known(paths)
        # shared with the child: who parses each file
        self._claims = mmap.mmap(-1, _PLANNED_MOST if planning else max(len(paths), 1))
        self._got: dict[int, ParsedFile | None] = {}  # parses made ahead, by either process
        self._free_from = 0  # no file before this one is left for this process to claim
        self._alive = True
        self._heard = False  # whether the child has sent a parse yet
        self._planned, self._sent_plan = False, None  # whether the child's plan came, and what it was
        self._buffer, self._at = b"", 0  # what was read from the pipe, and where its next parse starts
        self._claims[0] = _CHILD
        for stream in (sys.stdout, sys.stderr):  # the child must not write a copy of what is buffered
            with contextlib.suppress(Exception):
                stream.flush()
        r, w = os.pipe()
        with contextlib.suppress(AttributeError, OSError):
            fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
        self.pid = os.fork()
        if self.pid == 0:  # the child
            os.close(r)
            _child(paths, read, w, self._claims)
        os.close(w)
        self._fd = r
        if meanwhile is not None:
            try:
                meanwhile()
            except BaseException:  # this run stops (a mistake in its settings): so does the child
                self.close()
                raise

    def _known(self, paths: list[str]) -> None:
        self._paths = paths
        for n, path in enumerate(paths):
            self._index.setdefault(path, n)

    @property
    def paths(self) -> list[str]:
        """The files the child parses (those its plan listed, once `plan()` has returned)."""
        return self._paths

    def plan(self) -> object:
        """What the child's plan sent back (None if it failed or the child is gone); from now on
        the child parses the files the plan listed."""
        while not self._planned and self._alive:
            self._receive()
        if not isinstance(self._sent_plan, tuple):
            return None
        planned, paths = self._sent_plan
        self._sent_plan = None
        self._known(paths[:_PLANNED_MOST])
        return planned

    def take(self, path: str) -> ParsedFile | None:
        """The parse of `path` made ahead, or None when this process must parse it itself."""
        n = self._index.pop(path, None)
        if n is None:
            return None
        if n not in self._got:
            if self._claims[n] == _FREE:
                # the child may claim it in the same instant: its parse then arrives unused
                self._claims[n] = _PARENT
                return None
            while n not in self._got and self._alive:
                if self._heard and self._waiting() and self._parse_later(n):
                    continue
                self._receive()
        parsed = self._got.pop(n, None)
        if parsed is not None:
            resequence(parsed)  # replay order is the order the replay takes the files in
        return parsed

    def _waiting(self) -> bool:
        """Whether the child has sent nothing yet that could be read now."""
        return self._whole() is None and not select.select([self._fd], [], [], 0)[0]

    def _parse_later(self, n: int) -> bool:
        """Claim and parse the first file after `n` nobody has claimed; False if none is left."""
        m = max(self._free_from, n + 1)
        while m < len(self._paths) and self._claims[m] != _FREE:
            m += 1
        self._free_from = m + 1
        if m >= len(self._paths):
            return False
        self._claims[m] = _PARENT
        try:
            self._got[m] = self._read(self._paths[m])
        except Exception:  # met again, in its place, when the replay reaches the file
            self._got[m] = None
        return True

    def _receive(self) -> None:
        try:
            while (end := self._whole()) is None:
                more = os.read(self._fd, _PIPE_SIZE)  # all the pipe holds: a read for many parses
                if not more:
                    raise EOFError
                self._buffer, self._at = self._buffer[self._at :] + more, 0
            body, self._at = self._buffer[self._at + _HEAD.size : end], end
            n, parsed = _OwnClasses(io.BytesIO(body)).load()
        except (OSError, EOFError, pickle.UnpicklingError):
            self._alive = False  # the child is gone: what is left is parsed here
            return
        if n == _PLAN:
            self._planned, self._sent_plan = True, parsed
        else:
            self._got[n] = parsed
            self._heard = True

    def _whole(self) -> int | None:
        """Where the next parse read from the pipe ends, if it was read whole."""
        start = self._at + _HEAD.size
        if start > len(self._buffer):
            return None
        end = start + _HEAD.unpack_from(self._buffer, self._at)[0]
        return end if end <= len(self._buffer) else None

    def close(self) -> None:
        """Stop the child after the file it is parsing, and reap it."""
        # the files the child may still reach: those listed, or, before its plan came, any
        claimed = len(self._paths) if self._planned or self._paths else len(self._claims)
        self._claims[:claimed] = bytes([_PARENT]) * claimed
        with contextlib.suppress(OSError):
            os.close(self._fd)  # a child writing more gets EPIPE and leaves
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(self.pid, 0)
        self._claims.close()


class _OwnClasses(pickle.Unpickler):
    """An unpickler that finds schemacite's own classes only (the records and enums of a parse)."""

    _allowed: dict[tuple[str, str], type] = {}  # each stream names its classes again: checked once

    def find_class(self, module: str, name: str) -> type:
        if (known := self._allowed.get((module, name))) is not None:
            return known
        found = super().find_class(module, name) if module.startswith("schemacite.") else None
        if not isinstance(found, type) or not found.__module__.startswith("schemacite."):
            raise pickle.UnpicklingError(f"{module}.{name} is not a class of schemacite's")
        self._allowed[(module, name)] = found
        return found


def _child(
    paths: list[str] | Callable[[], tuple[object, list[str]]],
    read: Callable[[str], ParsedFile],
    w: int,
    claims: mmap.mmap,
) -> None:
    code = 0
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        with os.fdopen(w, "wb") as out:
            if callable(paths):
                try:
                    planned, paths = paths()
                    paths = paths[:_PLANNED_MOST]
                    body = pickle.dumps((_PLAN, (planned, paths)), protocol=pickle.HIGHEST_PROTOCOL)
                except Exception:  # this process plans for itself, and meets the same failure there
                    body, paths = pickle.dumps((_PLAN, None), protocol=pickle.HIGHEST_PROTOCOL), []
                out.write(_HEAD.pack(len(body)))
                out.write(body)
                out.flush()
            for n, path in enumerate(paths):
                if claims[n] == _PARENT:
                    continue  # the parent reached it first
                claims[n] = _CHILD
                try:
                    body = pickle.dumps((n, read(path)), protocol=pickle.HIGHEST_PROTOCOL)
                except Exception:  # the parent parses it and meets the same failure in its own place
                    body = pickle.dumps((n, None), protocol=pickle.HIGHEST_PROTOCOL)
                out.write(_HEAD.pack(len(body)))
                out.write(body)
    except BaseException:  # the parent stopped reading (EPIPE), or a signal: nothing to report
        code = 1
    finally:
        os._exit(code)
