"""Run the rules: over SQL files replayed onto a schema, or over a schema read from a server."""
from __future__ import annotations

import fnmatch
import glob
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemacite.config import Config, find_config, load_config
from schemacite.errors import reading
from schemacite.paths import escapes, repository_root
from schemacite.model import Location, Schema
from schemacite.result import LintResult
from schemacite.rule import Context, Finding, Rule, Severity, Suppression
from schemacite.sql.statement import ParseError, Statement
from schemacite.workload import is_insert_heavy

# names that say a table only ever grows; matches are reported as inferred
APPEND_ONLY_NAMES = (
    "*_log", "*_logs", "*_events", "*_history", "*_audit", "audit_*", "*_audit_log", "*_journal", "*_metrics",
)
LOCK_TIMEOUT_VARIABLES = {"lock_timeout", "lock_wait_timeout", "innodb_lock_wait_timeout"}
NO_LOCK_KINDS = frozenset({"other", "set", "begin", "commit", "create_view", "drop_view"})


def natural_key(path: str) -> list:
    """Sort key putting 2 before 10, so golang-migrate, Flyway and numbered files replay in order."""
    return [int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", path)]


def expand(paths: Iterable[str]) -> tuple[list[str], list[ParseError]]:
    """Files named by paths (files, folders, globs): folders give their *.sql files, without *.down.sql.

    A name that leads nowhere (missing, a broken or looping symlink) and a folder or pattern
    holding no SQL file to lint are errors: checking nothing is not a pass.
    """
    files: list[str] = []
    errors: list[ParseError] = []
    for p in paths:
        if os.path.isdir(p):
            found, skipped = [], 0
            for root, dirs, names in os.walk(p):
                dirs.sort()
                if any(part.startswith(".") for part in Path(root).parts[1:]):
                    continue
                for f in names:
                    low = f.lower()
                    if low.endswith(".down.sql"):
                        skipped += 1
                    elif low.endswith(".sql"):
                        found.append(os.path.join(root, f))
            if not found:
                why = f"only down migrations ({skipped})" if skipped else "no .sql file"
                errors.append(ParseError(p, 0, f"nothing to lint in this folder: {why}"))
            files.extend(sorted(found, key=natural_key))
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
    seen: set[str] = set()
    unique = []
    for f in files:
        key = os.path.abspath(f)
        if key in seen:
            continue
        seen.add(key)
        why = escapes(f)
        if why:
            errors.append(ParseError(f, 0, why))
            continue
        unique.append(f)
    return unique, errors


def build_rules(config: Config, classes: list[type[Rule]]) -> list[Rule]:
    """Instantiate the rules this configuration turns on, with their severities and options."""
    known = {c.name for c in classes} | {c.code.lower() for c in classes}
    for key in ("disable", "select", "rules"):
        for name in getattr(config, key):
            if name not in known and not any(c.code.lower().startswith(name) for c in classes):
                raise ValueError(f"{config.where(key)}: unknown rule {name!r} (see `schemacite rules`)")
    where = f"{config.where('rules')}: "
    rules = []
    for cls in classes:
        ids = {cls.name, cls.code.lower()}
        if config.dialect not in cls.dialects:
            continue
        selected = any(s in ids or cls.code.lower().startswith(s) for s in config.select)
        if config.select and not selected:
            continue
        if cls.status == "preview" and not selected:
            continue
        if ids & set(config.disable):
            continue
        settings = dict(config.rules.get(cls.name, config.rules.get(cls.code.lower(), {})))
        severity = settings.pop("severity", None)
        if severity is not None and not isinstance(severity, str):
            raise ValueError(f"{where}rule {cls.name}: severity must be info, warning or error")
        options = {k.replace("-", "_"): v for k, v in settings.items()}
        unknown = set(options) - {k.replace("-", "_") for k in cls.options}
        if unknown:
            raise ValueError(f"{where}rule {cls.name}: unknown option(s) {', '.join(sorted(unknown))}")
        if cls.name == "insert-heavy-indexes":
            options.setdefault("max_secondary_indexes", config.max_secondary_indexes)
        try:
            level = Severity.parse(severity) if severity else None
        except ValueError as e:
            raise ValueError(f"{where}rule {cls.name}: {e}") from None
        rules.append(cls(level, options))
    return rules


def mark_insert_heavy(schema: Schema, config: Config) -> None:
    for table in schema.tables.values():
        if table.insert_heavy:
            continue
        names = (table.name, table.qualified_name)
        if any(fnmatch.fnmatchcase(n, pat.lower()) for pat in config.insert_heavy for n in names):
            table.insert_heavy = "config"
        elif table.workload is not None and is_insert_heavy(table.workload):
            table.insert_heavy = "workload"
        elif config.infer_insert_heavy and table.workload is None and any(
            fnmatch.fnmatchcase(table.name, pat) for pat in APPEND_ONLY_NAMES
        ):
            table.insert_heavy = "name"


@dataclass
class Step:
    """One statement on its way through a replay, with the schema as it was before it."""

    statement: Statement
    schema: Schema
    reported: bool
    in_transaction: bool = False
    lock_timeout_set: bool = False


class Replay:
    """Walk history and reported files in replay order.

    Iterating yields a Step per statement, then applies the statement to `schema`.
    History files come first in their version order; reported files follow unless
    the history already names them, in which case they keep their place there and
    are not applied twice. `*.down.sql` files are checked on a copy and never kept.
    """

    def __init__(self, dialect: str, paths: Iterable[str], history: Iterable[str] = (), base: Schema | None = None,
                 cache=None):
        self.dialect = dialect
        self.cache = cache
        self.reported, self.errors = expand(paths)
        past, history_errors = expand(history)
        self.errors += history_errors
        as_given = {os.path.abspath(f): f for f in self.reported}
        self.reported_set = set(as_given)
        past = [as_given.get(os.path.abspath(f), f) for f in past]
        self.order = past + [f for f in self.reported if f not in past]
        self.schema = base.copy() if base is not None else Schema(dialect)
        self.file_ignores: dict[str, tuple[frozenset[str], int]] = {}  # ids, line of the comment

    def __iter__(self) -> Iterator[Step]:
        from schemacite.replay import apply
        from schemacite.sql.parse import read_sql_file

        for path in self.order:
            with reading(path):
                yield from self._file(path, apply, read_sql_file)

    def _file(self, path: str, apply, read_sql_file, reported: bool | None = None,
              including: tuple[str, ...] = ()) -> Iterator[Step]:
        if reported is None:
            reported = os.path.abspath(path) in self.reported_set
        parsed = read_sql_file(path, self.dialect, self.cache)
        self.errors.extend(parsed.errors)
        self.file_ignores.setdefault(path, (parsed.ignore_file, parsed.ignore_file_at))
        if reported:
            self.reported_set.add(os.path.abspath(path))  # included files are part of the change
        schema = self.schema.copy() if path.lower().endswith(".down.sql") else self.schema
        in_tx = lock_timeout = False
        fk_checks = True
        includes = list(parsed.includes)
        for stmt in [*parsed.statements, None]:
            while includes and (stmt is None or includes[0][0] < stmt.location.line):
                line, target, relative = includes.pop(0)
                yield from self._include(path, line, target, relative, apply, read_sql_file, reported, including)
            if stmt is None:
                break
            if stmt.kind == "begin":
                in_tx = True
            elif stmt.kind == "commit":
                in_tx = False
            elif stmt.kind == "set":
                var = stmt.details["variable"]
                lock_timeout = lock_timeout or var in LOCK_TIMEOUT_VARIABLES
                if var == "foreign_key_checks":
                    fk_checks = stmt.details["value"].strip("'\" ").upper() not in ("0", "OFF", "FALSE")
            if not fk_checks:
                stmt.details["foreign_key_checks"] = False
            yield Step(stmt, schema, reported, in_tx, lock_timeout)
            apply(schema, stmt, new=reported)

    def _include(self, path: str, line: int, target: str, relative: bool, apply, read_sql_file, reported: bool,
                 including: tuple[str, ...]) -> Iterator[Step]:
        """The statements of a file `path` includes at `line` (psql \\i, \\ir; mysql source), in place."""
        base = os.path.dirname(path) if relative else os.getcwd()
        full = os.path.normpath(os.path.join(base, os.path.expanduser(target)))
        chain = (*including, os.path.abspath(path))
        if not os.path.isfile(full):
            where = "the including file's folder" if relative else "the working directory"
            self.errors.append(ParseError(path, line, f"included file {target} not found (looked in {where}: {full})"))
        elif os.path.abspath(full) in chain:
            self.errors.append(ParseError(path, line, f"included file {target} includes itself (through {len(chain)} file(s))"))
        elif why := escapes(full, repository_root(path)):
            self.errors.append(ParseError(path, line, f"included file {target} {why}"))
        else:
            with reading(full):
                yield from self._file(full, apply, read_sql_file, reported, chain)


class Linter:
    def __init__(self, config: Config, pm=None):
        from schemacite.plugins import plugin_manager, rule_classes

        self.config = config
        self.pm = pm or plugin_manager()
        classes = rule_classes(self.pm)
        self.rules = build_rules(config, classes)
        self.table_rules = [r for r in self.rules if r.defines("check_table")]
        self.statement_rules = [r for r in self.rules if r.defines("check_statement")]
        self.suppression_rules = [r for r in self.rules if r.defines("check_suppression")]
        self.known_ids = {i for c in classes for i in (c.name, c.code.lower())}
        self.active_ids = {i for r in self.rules for i in (r.name, r.code.lower())}

    def _context(self, schema: Schema, **kw: Any) -> Context:
        return Context(dialect=self.config.dialect, target=self.config.target, schema=schema, **kw)

    def check_schema(self, schema: Schema, origin: list[str] | None = None) -> LintResult:
        """Table rules over a schema read from a server or a snapshot."""
        mark_insert_heavy(schema, self.config)
        result = LintResult(rules=self.rules, files=origin or [schema.origin])
        ctx = self._context(schema)
        for table in sorted(schema.tables.values(), key=lambda t: t.qualified_name):
            for rule in self.table_rules:
                result.findings.extend(_run(rule, "check_table", table, ctx, result, table.defined_at))
        result.findings.sort(key=Finding.sort_key)
        return result

    def lint(self, paths: Iterable[str], history: Iterable[str] = (), base: Schema | None = None,
             cache=None) -> LintResult:
        from schemacite.locks import impacts_for

        run = Replay(self.config.dialect, paths, history, base, cache)
        result = LintResult(rules=self.rules, files=run.reported, errors=run.errors)
        statements: dict[tuple[str, int], Statement] = {}
        for step in run:
            if not step.reported:
                continue
            stmt = step.statement
            result.statements += 1
            statements[(stmt.location.file, stmt.location.line)] = stmt
            if self.statement_rules and stmt.kind not in NO_LOCK_KINDS:
                impacts = impacts_for(stmt, step.schema, self.config.target) if locks_existing(stmt, step.schema) else []
                ctx = self._context(step.schema, in_transaction=step.in_transaction,
                                    lock_timeout_set=step.lock_timeout_set, impacts=impacts)
                for rule in self.statement_rules:
                    if not rule.statement_kinds or stmt.kind in rule.statement_kinds:
                        result.findings.extend(_run(rule, "check_statement", stmt, ctx, result, stmt.location))
        schema = run.schema
        mark_insert_heavy(schema, self.config)
        ctx = self._context(schema)
        for table in sorted(schema.tables.values(), key=lambda t: t.name):
            for rule in self.table_rules:
                for f in _run(rule, "check_table", table, ctx, result, table.defined_at):
                    if os.path.abspath(f.location.file) in run.reported_set:
                        result.findings.append(f)
        suppressions = self._suppress(result, statements, run)
        for suppression in suppressions:
            for rule in self.suppression_rules:
                result.findings.extend(_run(rule, "check_suppression", suppression, ctx, result, suppression.location))
        result.findings.sort(key=Finding.sort_key)
        return result

    def _suppress(self, result: LintResult, statements: dict, run: Replay) -> list[Suppression]:
        """Move the findings that comments silence to `result.suppressed`; return the comments,
        each with what it silenced."""
        used: dict[tuple[str, int], set[str]] = {}
        kept = []
        for f in result.findings:
            ids = {f.rule, f.code.lower(), "*"}
            file_ids, file_at = run.file_ignores.get(f.location.file, (frozenset(), 0))
            stmt = statements.get((f.location.file, f.location.line))
            hit = False
            for where, listed in (((f.location.file, file_at), file_ids),
                                  ((f.location.file, stmt.suppressed_at if stmt else 0), stmt.suppressed if stmt else ())):
                matched = ids & set(listed)
                if matched:
                    used.setdefault(where, set()).update(matched)
                    hit = True
            (result.suppressed if hit else kept).append(f)
        result.findings = kept
        comments = [(Location(path, at), "file", ids) for path, (ids, at) in run.file_ignores.items()
                    if ids and os.path.abspath(path) in run.reported_set]
        comments += [(Location(s.location.file, s.suppressed_at), "statement", s.suppressed)
                     for s in statements.values() if s.suppressed]
        return [
            Suppression(
                location=at,
                scope=scope,
                rules=frozenset(ids),
                used=frozenset(used.get((at.file, at.line), ())),
                unknown=frozenset(i for i in ids if i != "*" and i not in self.known_ids),
                inactive=frozenset(i for i in ids if i in self.known_ids and i not in self.active_ids),
            )
            for at, scope, ids in comments
        ]


_CREATES = frozenset({"create_table", "create_table_as", "create_table_like"})
_OTHER_RELATIONS = ("references", "partition", "parent")


def locks_existing(stmt: Statement, schema: Schema) -> bool:
    """Whether the statement can lock a relation that exists before this change.

    A schema dump or a first migration creates tables and indexes on tables it just
    created: their locks harm nobody, so the lock tables need not be consulted.
    """
    if stmt.details.get("references") or stmt.details.get("parent"):
        return True
    if stmt.kind in _CREATES:
        return False
    table = schema.tables.get(stmt.table) if stmt.table else None
    if table is None or not table.new or stmt.kind not in ("create_index", "alter_table"):
        return True
    return any(a.details.get(k) for a in stmt.actions for k in _OTHER_RELATIONS)


def _run(rule: Rule, method: str, subject: Any, ctx: Context, result: LintResult, where) -> list[Finding]:
    """A rule's findings; a rule that raises (a plugin bug) becomes a located error, and the
    other rules and files still run."""
    try:
        return list(getattr(rule, method)(subject, ctx))
    except Exception as e:
        file, line = (where.file, where.line) if where is not None else (getattr(subject, "name", "?"), 0)
        result.errors.append(ParseError(file, line, f"rule {rule.name} ({rule.code}) failed: {e!r}"))
        return []


def resolve_config(paths: list[str], config_path: str | None = None, overrides: dict[str, Any] | None = None) -> Config:
    path = Path(config_path) if config_path else find_config(Path(paths[0]) if paths else Path.cwd())
    if path is None:
        path = find_config(Path.cwd())
    return load_config(path, overrides)


def lint_paths(
    paths: Iterable[str] | str,
    *,
    config_path: str | None = None,
    config: Config | None = None,
    history: Iterable[str] = (),
    **overrides: Any,
) -> LintResult:
    """Lint SQL files the way `schemacite lint` does and return the LintResult.

    `overrides` take the config file's keys (dialect="mysql", target="mysql-8.0", ...).
    """
    paths = [paths] if isinstance(paths, str) else list(paths)
    config = config or resolve_config(paths, config_path, overrides)
    base = None
    if config.snapshot:
        from schemacite.snapshot import load_snapshot

        base = load_snapshot(config.snapshot)
    linter = Linter(config)
    return linter.lint(paths, [*config.history, *history], base)
