"""Frameworks that mark up the SQL itself: goose, sql-migrate, dbmate and Liquibase formatted SQL."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from schemacite.model.fixes import Edit
from schemacite.sources.files import side_file
from schemacite.sources.frameworks.base import Framework, Unit, _stem, append_to_line
from schemacite.sources.patterns import Pattern

if TYPE_CHECKING:
    from collections.abc import Callable

# ---------------------------------------------------------------- goose

_GOOSE = Pattern(r"^--\s*\+goose\s+(up|down|no\s+transaction)\b", re.I | re.M)
_STATEMENT_BEGIN = Pattern(r"^--\s*\+goose\s+StatementBegin\s*$")
_STATEMENT_END = Pattern(r"^--\s*\+goose\s+StatementEnd\s*$")  # as goose's parser matches it


class Goose(Framework):
    """`-- +goose Up` runs, `-- +goose Down` does not; one transaction per file unless
    `-- +goose NO TRANSACTION` appears anywhere in it (then each statement commits alone)."""

    def opt_out_edit(self, path: str, unit: Unit, text: str) -> Edit | None:
        return Edit.insert(path, max(unit.first - 1, 1), 1, self.opt_out + "\n")

    def units(self, path: str, text: str) -> list[Unit]:
        marks = [(text.count("\n", 0, m.start()) + 1, m.group(1).lower()) for m in _GOOSE.finditer(text)]
        own = any(" " in kind or "\t" in kind for _, kind in marks)
        mode, why = (
            ("script", "goose runs this file without a transaction (-- +goose NO TRANSACTION)")
            if own
            else ("unit", "goose runs each migration in one transaction")
        )
        name = _stem(path)
        up = next((line for line, kind in marks if kind == "up"), None)
        down = next((line for line, kind in marks if kind == "down"), None)
        units = []
        if up is not None:
            units.append(Unit(name, up + 1, (down - 1) if down and down > up else 0, True, mode, why))
        if down is not None:
            units.append(Unit(f"{name} (down)", down + 1, 0 if not up or up < down else up - 1, False))
        if up is None:
            units.insert(0, Unit(f"{name} (before -- +goose Up)", 1, 0, False))
        return units

    def order(self, files: list[str]) -> list[str]:
        return sorted(files, key=lambda f: _leading_number(_stem(f)))

    def sent_together(self, text: Callable[[], str], line: int) -> bool:
        """goose sends a StatementBegin ... StatementEnd block as one query: a statement in a block
        that holds others shares an implicit transaction with them, even under NO TRANSACTION."""
        return block_holds_others(text(), line, _STATEMENT_BEGIN, _STATEMENT_END)

    def prepare(self, path: str, text: str) -> str:
        """goose sends a StatementBegin ... StatementEnd block as it is, `;` or not: its end
        ends the statement."""
        return statement_ends(super().prepare(path, text), _STATEMENT_END)


def block_holds_others(text: str, line: int, begin_mark: Pattern, end_mark: Pattern) -> bool:
    """Whether `line` is in a StatementBegin ... StatementEnd block holding more than one statement
    (the runner sends the block as one query)."""
    if "statementbegin" not in text.lower():
        return False
    lines = text.split("\n")
    begin = None
    for n, row in enumerate(lines, 1):
        if begin_mark.match(row):
            begin = n
        elif end_mark.match(row) and begin is not None:
            if begin < line < n:
                body = "\n".join(lines[begin : n - 1])
                return len([s for s in re.split(r";[ \t]*(?:--[^\n]*)?\n", body + "\n") if s.strip()]) > 1
            begin = None
    return False


def statement_ends(text: str, end_mark: Pattern) -> str:
    """The text with each StatementEnd line made `;` (same length): the block ends there, `;` or not."""
    if "statementend" not in text.lower():
        return text
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if end_mark.match(line):
            lines[n] = ";".ljust(len(line))
    return "\n".join(lines)


def _leading_number(name: str) -> tuple:
    m = re.match(r"(\d+)", name)
    return (0, int(m.group(1)), name) if m else (1, 0, name)


# ---------------------------------------------------------------- sql-migrate (rubenv)

# sql-migrate reads a command only on a line starting with exactly "-- +migrate ", and compares
# the command and its options case-sensitively (sqlparse.go); other lines starting "-- +" are dropped
_SQL_MIGRATE = Pattern(r"^-- \+migrate[ \t]+(Up|Down)(?![^ \t\r\n])(.*)$", re.M)
_MIGRATE_BEGIN = Pattern(r"^-- \+migrate[ \t]+StatementBegin(?![^ \t\r\n])")
_MIGRATE_END = Pattern(r"^-- \+migrate[ \t]+StatementEnd(?![^ \t\r\n])")


class SqlMigrate(Framework):
    """All `-- +migrate Up` sections of a file are one migration, run in one transaction unless
    any Up line says `notransaction` (then each statement commits alone); `-- +migrate Down`
    sections and lines before the first mark never run on deploy. Files run by their leading
    number, then by name."""

    def opt_out_edit(self, path: str, unit: Unit, text: str) -> Edit | None:
        return append_to_line(path, text, unit.first - 1, self.opt_out) if unit.first > 1 else None

    def units(self, path: str, text: str) -> list[Unit]:
        marks = [
            (text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2).split()) for m in _SQL_MIGRATE.finditer(text)
        ]
        name = _stem(path)
        units = []
        for n, (line, kind, _) in enumerate(marks):
            if kind == "Down":
                last = marks[n + 1][0] - 1 if n + 1 < len(marks) else 0
                units.append(Unit(f"{name} (down)", line + 1, last, False))
        # listed after the down sections, which take their own lines first: one deploy of every
        # up section, whatever down sections stand between them
        ups = [line for line, kind, _ in marks if kind == "Up"]
        if not marks or marks[0][0] > 1:
            units.append(Unit(f"{name} (before -- +migrate Up)", 1, (marks[0][0] - 1) if marks else 0, False))
        if ups:
            if any(self.opt_out in options for _, kind, options in marks if kind == "Up"):
                why = "sql-migrate runs this migration without a transaction (-- +migrate Up notransaction)"
                units.append(Unit(name, ups[0] + 1, 0, True, "script", why))
            else:
                units.append(Unit(name, ups[0] + 1, 0, True, self.transaction, self.why))
        return units

    def order(self, files: list[str]) -> list[str]:
        return sorted(files, key=lambda f: _leading_number(f.replace("\\", "/").rsplit("/", 1)[-1]))

    def sent_together(self, text: Callable[[], str], line: int) -> bool:
        """A StatementBegin ... StatementEnd block is sent as one query."""
        return block_holds_others(text(), line, _MIGRATE_BEGIN, _MIGRATE_END)

    def prepare(self, path: str, text: str) -> str:
        return statement_ends(super().prepare(path, text), _MIGRATE_END)


# ---------------------------------------------------------------- dbmate

_DBMATE = Pattern(r"^--\s*migrate:(up|down)(.*)$", re.I | re.M)


class Dbmate(Framework):
    """`-- migrate:up` blocks run (each in its own transaction unless `transaction:false` on the
    directive line); `-- migrate:down` blocks do not. Files run in the order of their names."""

    def opt_out_edit(self, path: str, unit: Unit, text: str) -> Edit | None:
        return append_to_line(path, text, unit.first - 1, self.opt_out) if unit.first > 1 else None

    def units(self, path: str, text: str) -> list[Unit]:
        marks = [(text.count("\n", 0, m.start()) + 1, m.group(1).lower(), m.group(2)) for m in _DBMATE.finditer(text)]
        name = _stem(path)
        units = []
        for n, (line, kind, options) in enumerate(marks):
            last = marks[n + 1][0] - 1 if n + 1 < len(marks) else 0
            if kind == "down":
                units.append(Unit(f"{name} (down)", line + 1, last, False))
                continue
            if re.search(r"\btransaction:\s*false\b", options, re.I):
                units.append(
                    Unit(name, line + 1, last, True, "implicit", "dbmate sends a transaction:false block as one query")
                )
            else:
                units.append(Unit(name, line + 1, last, True, "unit", "dbmate runs each up block in one transaction"))
        if not marks or marks[0][0] > 1:
            units.insert(0, Unit(f"{name} (before -- migrate:up)", 1, (marks[0][0] - 1) if marks else 0, False))
        return units

    def order(self, files: list[str]) -> list[str]:
        return sorted(files, key=lambda f: f.replace("\\", "/").rsplit("/", 1)[-1])  # as dbmate does: by name


# ---------------------------------------------------------------- Liquibase formatted SQL

_CHANGESET = Pattern(r"^\s*--\s*changeset\s+(\S+)(.*)$", re.I | re.M)
LIQUIBASE_HEADER = Pattern(r"\A\s*--\s*liquibase\s+formatted", re.I)


class Liquibase(Framework):
    """Each `--changeset author:id` is a deploy, in one transaction unless `runInTransaction:false`
    (then each statement commits alone; with `splitStatements:false` too, the body is one query).
    `--rollback` lines and `/* liquibase rollback */` blocks are comments to the SQL reader: they
    never run on deploy. Changesets with `ignore:true` do not run."""

    def opt_out_edit(self, path: str, unit: Unit, text: str) -> Edit | None:
        # an included plain file's changeset is written in the changelog, not in SQL
        return append_to_line(path, text, unit.first - 1, self.opt_out) if unit.first > 1 else None

    def units(self, path: str, text: str) -> list[Unit]:
        marks = [(text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)) for m in _CHANGESET.finditer(text)]
        if not marks and not LIQUIBASE_HEADER.match(text):  # a plain SQL file a changelog includes
            return [Unit(_stem(path), transaction="unit", why="Liquibase runs an included SQL file as one changeset")]
        units = []
        if not marks or marks[0][0] > 1:
            units.append(
                Unit(f"{_stem(path)} (before the first changeset)", 1, (marks[0][0] - 1) if marks else 0, False)
            )
        for n, (line, ident, attrs) in enumerate(marks):
            last = marks[n + 1][0] - 1 if n + 1 < len(marks) else 0
            settings = {k.lower(): v.lower() for k, v in re.findall(r"(\w+):(\S+)", attrs)}
            if settings.get("ignore") == "true":
                units.append(Unit(f"changeset {ident} (ignore:true)", line + 1, last, False))
            elif settings.get("runintransaction") == "false":
                split = settings.get("splitstatements") != "false"
                why = "Liquibase runs this changeset without a transaction (runInTransaction:false)"
                units.append(Unit(f"changeset {ident}", line + 1, last, True, "script" if split else "implicit", why))
            else:
                units.append(Unit(f"changeset {ident}", line + 1, last, True, "unit", self.why))
        return units

    def order(self, files: list[str]) -> list[str]:
        """In the order of the master changelog that includes them (XML, YAML or JSON, found in
        the files' folders and up to three folders above); files no changelog names after them,
        by path, as `includeAll` orders a folder."""
        ranks = changelog_ranks(files)
        return sorted(files, key=lambda f: (0, *ranks[k], "") if (k := os.path.abspath(f)) in ranks else (1, 0, 0, f))

    def prepare(self, path: str, text: str) -> str:
        """Placeholders filled in; in a changeset with `endDelimiter:X`, a line holding only X ends
        a statement as `;` would."""
        text = super().prepare(path, text)
        if "enddelimiter" not in text.lower():
            return text
        lines = text.split("\n")
        delimiter = None
        for n, line in enumerate(lines):
            m = _CHANGESET.match(line)
            if m:
                found = re.search(r"\bendDelimiter:(\S+)", m.group(2), re.I)
                delimiter = found.group(1) if found else None
            elif delimiter and line.strip() == delimiter:
                lines[n] = ";".ljust(len(line))
        return "\n".join(lines)


# ---------------------------------------------------------------- Liquibase changelogs

_CHANGELOG_FILES = (".xml", ".yaml", ".yml", ".json")
# one reading for the three formats: <include file="x"/>, `- include: {file: x}`, "include": {"file": "x"}
_INCLUDE = Pattern(r"\b(includeAll|include)\b")
_TARGET = Pattern(r"\b(?:file|path)\b[\"']?\s*[:=]\s*[\"']?([^\"'\s,}>]+)")
_RELATIVE = Pattern(r"\brelativeToChangelogFile\b[\"']?\s*[:=]\s*[\"']?true", re.I)
# XML and YAML comments; an XML comment never closed runs to the end (and is read once, not
# once for each `<!--` in it)
_NOT_READ = Pattern(r"<!--[\s\S]*?(?:-->|\Z)|^[ \t]*#[^\n]*", re.M)


def changelog_ranks(files: list[str]) -> dict[str, tuple[int, int]]:
    """(changelog number, place in it) of each file a master changelog includes, by absolute path.
    A master is a changelog no other one includes; masters are numbered in the order of their paths."""
    changelogs = _changelogs(files)
    if not changelogs:
        return {}
    known = _Known(sorted({os.path.abspath(f) for f in files} | set(changelogs)))
    done: dict[str, list[str]] = {}
    runs = {c: _run_order(c, known, (c,), done) for c in changelogs}
    included = {f for order in runs.values() for f in order}
    ranks: dict[str, tuple[int, int]] = {}
    for n, master in enumerate(c for c in changelogs if c not in included):
        for place, f in enumerate(runs[master]):
            ranks.setdefault(f, (n, place))
    return ranks


def _changelogs(files: list[str]) -> list[str]:
    folders: set[str] = set()
    for f in files:
        folder = os.path.dirname(os.path.abspath(f))
        for _ in range(4):
            folders.add(folder)
            folder = os.path.dirname(folder)
    found = []
    for folder in sorted(folders):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if name.lower().endswith(_CHANGELOG_FILES):
                path = os.path.join(folder, name)
                text = side_file(path)
                if text and "databaseChangeLog" in text:
                    found.append(path)
    return found


class _Known:
    """The files an include may name, by path and by file name (an include names thousands)."""

    def __init__(self, paths: list[str]):
        self.paths = paths
        self.exact = set(paths)
        self.by_name: dict[str, list[str]] = {}
        for path in paths:
            self.by_name.setdefault(os.path.basename(path), []).append(path)


def _run_order(changelog: str, known: _Known, chain: tuple[str, ...], done: dict[str, list[str]]) -> list[str]:
    """The files `changelog` runs, in order, nested changelogs expanded (a loop is cut). A file
    counts once, where it first runs (Liquibase runs a changeset once), and each changelog is
    read once: changelogs that include each other many times cannot multiply the work."""
    if changelog in done:
        return done[changelog]
    text = _NOT_READ.sub("", side_file(changelog) or "")
    marks = list(_INCLUDE.finditer(text))
    out: list[str] = []
    for n, mark in enumerate(marks):
        end = marks[n + 1].start() if n + 1 < len(marks) else len(text)
        part = text[mark.end() : min(end, mark.end() + 500)]
        target = _TARGET.search(part)
        if target is None:
            continue
        found = _resolve(target.group(1), bool(_RELATIVE.search(part)), mark.group(1) == "includeAll", changelog, known)
        for f in found:
            if f.lower().endswith(_CHANGELOG_FILES):
                if f not in chain and len(chain) < 10:
                    out += _run_order(f, known, (*chain, f), done)
            else:
                out.append(f)
    done[changelog] = list(dict.fromkeys(out))
    return done[changelog]


def _resolve(target: str, relative: bool, folder: bool, changelog: str, known: _Known) -> list[str]:
    """The known files an include names: relative to the changelog's folder, or (the classpath's
    own roots being unknown here) any known file whose path ends with it. A folder (includeAll)
    gives its files in the order of their paths."""
    target = target.replace("\\", "/").removeprefix("classpath:").strip("/")
    here = os.path.normpath(os.path.join(os.path.dirname(changelog), target))
    suffix = "/" + target
    if folder:
        inside = [f for f in known.paths if f.startswith(here + os.sep)]
        if not inside and not relative:
            inside = [f for f in known.paths if f"{suffix}/" in f.replace(os.sep, "/")]
        return sorted(inside)
    if here in known.exact or (here.lower().endswith(_CHANGELOG_FILES) and os.path.isfile(here)):
        return [here]  # a nested changelog need not sit beside the SQL
    if relative:
        return []
    ends = [f for f in known.by_name.get(os.path.basename(target), ()) if f.replace(os.sep, "/").endswith(suffix)]
    # several modules may hold db/changelog/x.sql: the one nearest the changelog is its own
    return sorted(ends, key=lambda f: -len(os.path.commonpath([f, changelog])))[:1]


GOOSE = Goose(
    "goose",
    "goose",
    "https://github.com/pressly/goose#sql-migrations",
    "unit",
    "goose runs each migration in one transaction",
    marker=Pattern(r"^--\s*\+goose\s+up\b", re.I | re.M),
    sign="-- +goose Up",
    placeholders=True,
    opt_out="-- +goose NO TRANSACTION",
    opt_out_at="anywhere in the file",
)
SQL_MIGRATE = SqlMigrate(
    "sql-migrate",
    "sql-migrate",
    "https://github.com/rubenv/sql-migrate#writing-migrations",
    "unit",
    "sql-migrate runs each migration in one transaction",
    marker=Pattern(r"^-- \+migrate[ \t]+(?:Up|Down)(?![^ \t\r\n])", re.M),
    sign="-- +migrate Up",
    opt_out="notransaction",
    opt_out_at="a -- +migrate Up line",
)
DBMATE = Dbmate(
    "dbmate",
    "dbmate",
    "https://github.com/amacneil/dbmate#migration-options",
    "unit",
    "dbmate runs each up block in one transaction",
    marker=Pattern(r"^--\s*migrate:up", re.I | re.M),
    sign="-- migrate:up",
    opt_out="transaction:false",
    opt_out_at="the -- migrate:up line",
    opt_out_mode="implicit",
)
LIQUIBASE = Liquibase(
    "liquibase",
    "Liquibase formatted SQL",
    "https://docs.liquibase.com/concepts/changelogs/sql-format.html",
    "unit",
    "Liquibase runs each changeset in one transaction",
    marker=LIQUIBASE_HEADER,
    sign="--liquibase formatted sql",
    placeholders=True,
    opt_out="runInTransaction:false",
    opt_out_at="the --changeset line",
)
