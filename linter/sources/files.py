"""Which files a run reads, in which order, and where they may come from.

`expand` turns paths, folders and globs into the SQL files to read, in version order.

A pull request controls every file of its checkout, symbolic links included. A link from
`migrations/x.sql` to `~/.pgpass`, an include of `/etc/...` or a config `history` pointing out of
the tree would make a CI job read, and quote in its error messages, files the pull request
does not own. So inside a git work tree, every file schemacite reads on a repository's behalf
(SQL files, their includes, paths a config file names) must resolve inside that work tree.
Outside any work tree nothing is confined: the user named the files themselves.
"""

from __future__ import annotations

import contextlib
import contextvars
import fnmatch
import functools
import glob
import os
import re
from collections.abc import Iterable, Iterator

from schemacite.model.statements import ParseError
from schemacite.sources.engines import variant
from schemacite.sources.patterns import Pattern


@functools.lru_cache(maxsize=4096)
def _root_of(folder: str) -> str | None:
    if os.path.exists(os.path.join(folder, ".git")):
        return folder
    parent = os.path.dirname(folder)
    return None if parent == folder else _root_of(parent)  # sibling folders share their parents' answer


def repository_root(path: str | os.PathLike) -> str | None:
    """The git work tree holding `path` (as written, links not followed), if any."""
    full = os.path.abspath(path)
    return _root_of(full if os.path.isdir(full) else os.path.dirname(full))


def escapes(path: str | os.PathLike, root: str | None = None, real: dict[str, str] | None = None) -> str | None:
    """Why reading `path` would leave the repository it belongs to (or `root`), else None. `real`
    keeps folders' resolved paths for a caller checking many files of the same folders, all of
    them known not to be folders (the repository is then its folder's)."""
    full = os.path.abspath(path)
    folder, name = os.path.split(full)
    if real is None:
        real = {}
        root = root or repository_root(full)
    else:
        root = root or _root_of(folder)
    if root is None:
        return None
    try:
        if os.path.islink(full):
            resolved = os.path.realpath(full)
        else:  # resolved through its folder's links
            resolved = os.path.join(_resolved(folder, real), name)
    except (OSError, RuntimeError):
        return None  # a loop: reading it fails with its own error
    real_root = _resolved(root, real)  # a folder `_root_of` found: absolute already
    if resolved == real_root or resolved.startswith(real_root.rstrip(os.sep) + os.sep):
        return None
    return f"resolves to {resolved}, outside the repository {root}: not read"


def _resolved(folder: str, known: dict[str, str]) -> str:
    """`os.path.realpath` of an absolute, normalized folder; a folder that is no link resolves
    through its parent's answer, so a walk's folders cost a stat each, not one a component."""
    found = known.get(folder)
    if found is None:
        parent, name = os.path.split(folder)
        if name and parent != folder and not os.path.islink(folder):
            found = os.path.join(_resolved(parent, known), name)
        else:
            found = os.path.realpath(folder)
        known[folder] = found
    return found


def read_bytes(path: str) -> bytes:
    """A whole file's bytes, read without a buffered file object: a run reads hundreds of small
    migrations, and `open()` costs more than the read itself (4.2 against 1.9 ms for 495 files)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


# a file starting with either is UTF-16 (Windows editors write it so); any other is read as UTF-8
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def head(path: str, size: int) -> str:
    """The first `size` bytes of a file as text ("" when it cannot be read): enough to look for the
    marks a framework or a dialect leaves, without reading a dump whole."""
    try:
        with open(path, "rb") as f:
            raw = f.read(size)
    except OSError:
        return ""
    if raw[:2] in UTF16_BOMS:  # decoded as read_sql_file decodes the whole file
        return raw.decode("utf-16", "replace")
    return raw.decode("utf-8-sig", "replace")  # a byte order mark is not the file's first character


# files a run reads from memory instead of the disk, by absolute path: the changes `lint --diff`
# makes without writing them (a Flyway .conf, a Diesel metadata.toml the fixes create)
OVERLAY: contextvars.ContextVar[dict[str, bytes] | None] = contextvars.ContextVar("overlay", default=None)


@contextlib.contextmanager
def overlaid(files: dict[str, bytes]) -> Iterator[None]:
    token = OVERLAY.set(files)
    try:
        yield
    finally:
        OVERLAY.reset(token)


def exists(path: str) -> bool:
    """Whether the file exists, on disk or in the run's overlay."""
    return os.path.abspath(path) in (OVERLAY.get() or {}) or os.path.exists(path)


def side_file(path: str, limit: int = 1_000_000) -> str | None:
    """The text of a file read beside the SQL (a sqitch plan, Prisma's migration_lock.toml, a
    Flyway .conf), or None when it is missing, not a regular file, or outside the repository.
    At most `limit` bytes are read: a link to /dev/zero or a huge file must not stall a run."""
    held = (OVERLAY.get() or {}).get(os.path.abspath(path))
    if held is not None:
        return held[:limit].decode("utf-8", "replace")
    if not _side_file_at(path):
        return None
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def nearest(path: str, name: str, levels: int = 8) -> str | None:
    """The file called `name` in the folder of `path` or the nearest folder above it, among those
    `side_file` may read (a project's sqitch.plan, a Go module's go.mod)."""
    folder = os.path.dirname(os.path.abspath(path))
    for _ in range(levels):
        candidate = os.path.join(folder, name)
        if _side_file_at(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None


def _side_file_at(path: str) -> bool:
    """Whether `path` is a file `side_file` may read: there, and inside the repository."""
    return os.path.isfile(path) and not escapes(path)


def path_matches(path: str, patterns: Iterable[str], root: str | os.PathLike) -> bool:
    """Whether `path` matches one of `patterns` (globs relative to `root`, as ruff's exclude and
    gitignore take them): the whole relative path, one of its folders, or, for a pattern without
    a `/`, its name or any folder's name."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root)).replace(os.sep, "/")
    parts = rel.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    for pattern in patterns:
        pattern = pattern.strip("/")
        if any(fnmatch.fnmatchcase(p, pattern) for p in prefixes):
            return True
        if "/" not in pattern and any(fnmatch.fnmatchcase(part, pattern) for part in parts):
            return True
    return False


# folders whose scripts run once, on a new empty cluster, before anything else: the postgres and
# mysql images' docker-entrypoint-initdb.d, and init-scripts folders of the same use
INIT_FOLDERS = ("docker-entrypoint-initdb.d", "initdb.d", "init-scripts")


def init_folder(path: str) -> str | None:
    """The folder of a script that runs only on a new, empty cluster, else None."""
    folder = os.path.dirname(path)
    return _init_folder(folder if os.path.isabs(folder) else os.path.join(os.getcwd(), folder))


@functools.lru_cache(maxsize=1024)
def _init_folder(folder: str) -> str | None:
    # asked of every file, twice a run: answered once a folder
    folder = os.path.normpath(folder)
    return folder if os.path.basename(folder).lower() in INIT_FOLDERS else None


_DIGITS = re.compile(r"(\d+)")


def natural_key(path: str) -> list:
    """Sort key putting 2 before 10, so golang-migrate, Flyway and numbered files replay in order."""
    return [int(p) if p.isdigit() else p.lower() for p in _DIGITS.split(path)]


# where a project tells Flyway which file endings are SQL migrations besides .sql (Spring Boot's
# application settings, Flyway's own config), looked for in the folder and the ones above it
SUFFIX_SETTINGS = ("application.properties", "application.yml", "application.yaml", "flyway.conf", "flyway.toml")
_SUFFIXES = Pattern(
    r"^[ \t]*(?:spring\.flyway\.|flyway\.)?sql[-_]?migration[-_]?suffixes[ \t]*[:=][ \t]*(?P<value>[^\n]*)"
    r"(?P<items>(?:\n[ \t]*-[ \t]*[^\n]*)*)",
    re.I | re.M,
)


def _suffixes(folder: str, present: dict[str, tuple[str, ...]] | None) -> tuple[str, ...]:
    """The file endings a project's Flyway settings name as SQL migrations (`.sql` always);
    `present` keeps the settings files each folder holds, for a walk whose
    folders share their parents (a diesel project has a folder a migration)."""
    folder = os.path.abspath(folder)
    nearest_of: dict[str, str] = {}  # each settings file's name -> the nearest one, six folders up at most
    for _ in range(6):
        for name in _settings_in(folder, present):
            nearest_of.setdefault(name, os.path.join(folder, name))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    found = [".sql"]
    for name in SUFFIX_SETTINGS:
        setting = nearest_of.get(name)
        for m in _SUFFIXES.finditer((side_file(setting) if setting else None) or ""):
            listed = re.split(r"[,\n]", m.group("value") + m.group("items"))
            for suffix in listed:
                suffix = suffix.strip().lstrip("-").strip().strip("[]'\"").strip()
                suffix = suffix.rsplit("}", 1)[-1]  # `${spring.jpa.database}.sql`: its fixed end
                if suffix.startswith(".") and len(suffix) > 1 and suffix.lower() not in found:
                    found.append(suffix.lower())
    return tuple(found)


def _settings_in(folder: str, present: dict[str, tuple[str, ...]] | None) -> tuple[str, ...]:
    names = present.get(folder) if present is not None else None
    if names is None:
        names = tuple(n for n in SUFFIX_SETTINGS if _side_file_at(os.path.join(folder, n)))
        if present is not None:
            present[folder] = names
    return names


# why a folder's templates are left out: the runner renders them into SQL, which no file holds
RENDERED = "templates the application renders into SQL before it runs them; schemacite reads SQL files"


def _template(name: str) -> bool:
    return name.endswith(".tmpl") and not name.removesuffix(".tmpl").removesuffix(".sql").endswith(".down")


def walk(folder: str) -> Iterator[tuple[str, list[str]]]:
    """(folder, its files) for `folder` and those below it, in name order. A hidden folder inside
    the one named is not walked (.git, .venv); the folder named is, wherever it stands
    (`../../db/migrations`, a checkout under ~/.cache)."""
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        yield root, names


def expand(
    paths: Iterable[str], stdin_name: str | None = None, rendered: list[str] | None = None
) -> tuple[list[str], list[ParseError]]:
    """Files named by paths (files, folders, globs): folders give their SQL files, without *.down.sql.

    A folder's SQL files are those ending in .sql (or in an ending the project's Flyway settings
    name) and the engine variants named after it (`x.sql.postgres`): which engine's run reads
    them is the run's to say, and what it leaves out it names. `rendered` gets the up migrations
    a folder holds as templates (`x.up.tmpl`, `x.sql.tmpl`: Go's text/template, which
    rudder-server's migrator renders) beside SQL migrations (down ones count): a folder of
    templates alone has nothing to lint, and says so.

    A name that leads nowhere (missing, a broken or looping symlink) and a folder or pattern
    holding no SQL file to lint are errors: checking nothing is not a pass. `stdin_name` is the
    name standard input is read under: it is taken as given, whether or not a file has it.
    """
    files: list[str] = []
    errors: list[ParseError] = []
    present: dict[str, tuple[str, ...]] = {}  # settings files by folder, each looked for once
    for p in paths:
        if p == stdin_name:
            files.append(p)
        elif os.path.isdir(p):
            found, skipped, templated = [], 0, []
            for root, names in walk(p):
                if names and (here := os.path.abspath(root)) not in present:  # the walk knows its files
                    # (compared without case, as a file system may find them, then asked as before)
                    listed = {n.lower() for n in names}
                    present[here] = tuple(
                        n for n in SUFFIX_SETTINGS if n in listed and _side_file_at(os.path.join(here, n))
                    )
                suffixes = _suffixes(root, present) if names else ()
                for f in names:
                    low = f.lower()
                    if low.endswith(".down.sql"):
                        skipped += 1
                    elif low.endswith(suffixes) or variant(low):  # .sql among the endings
                        found.append(os.path.join(root, f))
                    elif rendered is not None and _template(low):
                        templated.append(os.path.join(root, f))
            if not found:
                why = f"only down migrations ({skipped})" if skipped else "no .sql file"
                errors.append(ParseError(p, 0, f"nothing to lint in this folder: {why}"))
            files.extend(sorted(found, key=natural_key))
            if rendered is not None and templated and (found or skipped):
                rendered.extend(sorted(templated, key=natural_key))
        elif os.path.exists(p):
            files.append(p)
        elif os.path.islink(p):
            errors.append(ParseError(p, 0, "symbolic link to nothing (broken, or a loop)"))
        elif glob.has_magic(p):
            matched = [f for f in sorted(glob.glob(p, recursive=True), key=natural_key) if os.path.isfile(f)]
            if not matched:
                errors.append(ParseError(p, 0, "pattern matched no file"))
            files.extend(matched)
        else:
            errors.append(ParseError(p, 0, "no such file or directory"))
    taken: set[str] = set()
    real: dict[str, str] = {}  # folders resolved, for the files of each (every one a file, not a folder)
    unique = []
    for f in files:
        key = os.path.abspath(f)
        if key in taken:
            continue
        taken.add(key)
        why = escapes(key, real=real) if f != stdin_name else None
        if why:
            errors.append(ParseError(f, 0, why))
            continue
        unique.append(f)
    return unique, errors
