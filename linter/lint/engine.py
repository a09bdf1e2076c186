"""Run the rules: over SQL files replayed onto a schema, or over a schema read from a server."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from schemacite.lint.config import Config
from schemacite.lint.lock_facts import LockFacts
from schemacite.lint.plugins import loaded, plugin_manager, rule_entries
from schemacite.lint.rule import Context, LazyRule, Rule, check_rule_names
from schemacite.lint.workload import mark_insert_heavy
from schemacite.locks import NO_LOCK_KINDS, load_tables
from schemacite.locks.held import Transaction
from schemacite.model import Location, Schema, Table
from schemacite.model.dialects import Dialect, Target
from schemacite.model.fixes import Applicability
from schemacite.model.listing import first_of
from schemacite.model.record import replace
from schemacite.model.results import Finding, LintResult, RuleInfo, Severity, Source, Suppression
from schemacite.model.statements import ParseError, Statement, needs_own_transaction
from schemacite.sources.dialect import sqlite_note
from schemacite.sources.files import path_matches
from schemacite.sources.names import pg_reserved
from schemacite.sources.replay import EXCLUDED, Replay

if TYPE_CHECKING:
    import pluggy

    from schemacite.sources.cache import ParseCache


def build_rules(config: Config, classes: list[type[Rule] | LazyRule]) -> list[Rule]:
    """Instantiate the rules this configuration turns on, with their severities and options; a rule
    listed lazily is imported only when it is turned on."""
    check_rule_names(config, classes)
    select, disable = [s.lower() for s in config.select], {d.lower() for d in config.disable}
    rules = []
    for cls in classes:
        ids = {cls.name, cls.code.lower(), cls.family}
        if config.dialect not in cls.dialects:
            continue
        selected = any(s in ids or cls.code.lower().startswith(s) for s in select)
        if select and not selected:
            continue
        if (cls.status == "preview" or cls.family == "preferences") and not selected:
            continue
        if ids & disable:
            continue
        rules.append(_configured(loaded(cls), config))
    return rules


def _configured(cls: type[Rule], config: Config) -> Rule:
    """The rule with the severity and options its [rules] table sets, and the options the
    configuration's own settings give it."""
    where = f"{config.where('rules')}: "
    settings = dict(config.rules.get(cls.name, config.rules.get(cls.code.lower(), {})))
    severity = settings.pop("severity", None)
    if severity is not None and not isinstance(severity, str):
        raise ValueError(f"{where}rule {cls.name}: severity must be info, warning or error")
    options = {k.replace("-", "_"): v for k, v in settings.items()}
    declared = {k.replace("-", "_"): o for k, o in cls.options.items()}
    unknown = set(options) - set(declared)
    if unknown:
        raise ValueError(f"{where}rule {cls.name}: unknown option(s) {', '.join(sorted(unknown))}")
    for key, value in options.items():
        if not _of_type(value, declared[key].type):
            raise ValueError(f"{where}rule {cls.name}: {key} must be {declared[key].type.__name__}, not {value!r}")
    for key, option in declared.items():
        if option.setting is not None:
            options.setdefault(key, getattr(config, option.setting))
    try:
        level = Severity.parse(severity) if severity else None
    except ValueError as e:
        raise ValueError(f"{where}rule {cls.name}: {e}") from None
    return cls(level, options)


def _of_type(value: Any, wanted: type) -> bool:
    """Whether a rule option's value has its type (a whole number is a float too; a boolean is no number)."""
    if isinstance(value, bool) and wanted is not bool:
        return False
    return isinstance(value, wanted) or (wanted is float and isinstance(value, int))


class Linter:
    def __init__(self, config: Config, pm: pluggy.PluginManager | None = None):
        self.config = config
        self.pm = pm or plugin_manager()
        classes = rule_entries(self.pm)
        self.rules = build_rules(config, classes)
        self.table_rules = [r for r in self.rules if r.defines("check_table")]
        self.statement_rules = [r for r in self.rules if r.defines("check_statement")]
        self._by_kind: dict[str, list[Rule]] = {}  # the statement rules each kind goes to (_rules_for)
        self.suppression_rules = [r for r in self.rules if r.defines("check_suppression")]
        self.deploy_rules = {r for r in self.statement_rules if r.defines("combine")}
        self.known_ids = {i for c in classes for i in (c.name, c.code.lower())}
        self.active_ids = frozenset(i for r in self.rules for i in (r.name, r.code.lower()))
        # the locks each transaction holds are followed only for a rule that reads them
        self.follow_transactions = any(r.reads_earlier for r in self.statement_rules)

    def _context(self, schema: Schema, **kw: Any) -> Context:
        return Context(
            dialect=self.config.dialect,
            target=self.config.target,
            schema=schema,
            max_lock_seconds=self.config.max_lock_seconds,
            active=self.active_ids,
            **kw,
        )

    def check_schema(self, schema: Schema, origin: list[str] | None = None) -> LintResult:
        """Table rules over a schema read from a server or a snapshot."""
        mark_insert_heavy(schema, self.config.insert_heavy)
        result = LintResult(files=origin or [schema.origin])
        ctx = self._context(schema)
        for table in sorted(schema.tables.values(), key=lambda t: t.qualified_name):
            for rule in self.table_rules:
                result.findings.extend(_run(rule, "check_table", table, ctx, result, table.defined_at))
        result.findings.sort(key=Finding.sort_key)
        result.rules = self.described(result)
        return result

    def described(self, result: LintResult) -> list[RuleInfo]:
        """The rules that found something in `result` (reported or suppressed), as reports describe
        them; only those: describing one reads its doc and the evidence catalogue."""
        found = {f.code for f in result.findings} | {f.code for f in result.suppressed}
        return [r.info() for r in self.rules if r.code in found]

    def lint(
        self,
        paths: Iterable[str],
        history: Iterable[str] = (),
        base: Schema | None = None,
        cache: ParseCache | None = None,
        stdin: tuple[str, bytes] | None = None,
        overlay: dict[str, bytes] | None = None,
    ) -> LintResult:
        """Lint `paths` replayed after `history`; `stdin` is (display name, bytes) of a file read
        from standard input, named among `paths` by that display name. (A run that parses in a
        second process is the CLI's: `Project.lint`, which builds the rules meanwhile.)"""
        return self.check(self.config.replay(paths, history, base, cache, stdin, overlay))

    def check(self, run: Replay) -> LintResult:
        """Run the rules over a replay (`Config.replay`): its statements as it walks them, then the
        schema it leaves, then the comments that silence findings."""
        result = LintResult(files=run.reported, errors=run.errors)
        statements = self._check_statements(run, result)
        _history_and_file_notes(
            run, result, "--exclude" if "exclude" in self.config.from_cli else "the config's exclude"
        )
        ctx = self._check_tables(run, result)
        self._check_suppressions(result, statements, run, ctx)
        if run.sqlite:
            _shown_only(run, result, self.config.target.dialect)
        # files in the order the runner deploys them (Flyway's V10 after V2), then line by line
        rank = {os.path.abspath(path): n for n, path in enumerate(run.order)}
        result.findings.sort(key=lambda f: (rank.get(os.path.abspath(f.location.file), len(rank)), f.sort_key()))
        result.rules = self.described(result)
        return result

    def load_for_checks(self) -> None:
        """Load what the checks load on first use: the lock tables, the evidence catalogue and the
        records the rules cite, the words a PostgreSQL name is quoted for. Called while the
        read-ahead process plans the run, loads its parser and parses the first file, which this
        one would otherwise wait for."""
        dialect, target = self.config.dialect, self.config.target
        load_tables(target.dialect)
        # start-up: the evidence catalogue loads only when something cites it
        from schemacite.evidence import measurements, read_catalogue

        catalogue = read_catalogue()
        for rule in self.rules:  # as a finding of each asks (`Rule.finding`, `cite_measurements`)
            catalogue.holding(tuple(rule.evidence), dialect)
            measurements(rule.name, dialect, target)
        if target.dialect is Dialect.POSTGRES:
            pg_reserved()

    def _check_statements(self, run: Replay, result: LintResult) -> dict[tuple[str, int], Statement]:
        """Run the statement rules over the replay, following transactions and deploys; returns the
        statements reported, by (file, line)."""
        statements: dict[tuple[str, int], Statement] = {}
        texts = functools.cache(run.text_of)  # read again only for a fix that needs the file's text
        transaction: int | None = None
        held = Transaction()  # the locks the current transaction holds, not yet outlasted by long work
        deploy: dict[Rule, list[Finding]] = {}  # findings of the rules that report once per deploy
        through: dict[tuple[str, int], Location] = {}  # the deploy's locks kept through long work: where it is
        unit = None
        head: Location | None = None  # where the current deploy's first statement stands
        for step in run.from_change():  # the history before the change adds no finding
            if step.unit is not unit:
                unit, head = step.unit, step.statement.location
                self._combine(deploy, result, step.schema, through)
            if not step.reported:
                continue
            stmt = step.statement
            if stmt.transaction != transaction or stmt.transaction is None:
                transaction, held = stmt.transaction, Transaction()
            result.statements += 1
            statements[(stmt.location.file, stmt.location.line)] = stmt
            rules = self._rules_for(stmt.kind)
            if not rules:
                continue
            # a statement refused in a transaction (SC106) does no work there
            runs = transaction is not None and not needs_own_transaction(stmt.op)
            facts = LockFacts(stmt, step.schema, self.config.target, runs)
            ctx = self._context(
                step.schema,
                in_transaction=step.in_transaction,
                transaction_why=step.transaction_why,
                earlier=held.pending,
                held_modes=held.modes,
                facts=facts,
                lock_timeout_set=step.lock_timeout_set,
                framework=run.framework,
                unit=step.unit,
                unit_size=step.unit_size,
                unit_ddl=step.unit_ddl,
                explicit_transaction=step.explicit,
                found_transaction=step.found,
                found_why=step.found_why,
                closed_by=step.closed_by,
                after_close=step.after_close,
                later=step.later,
                deploy_head=head,
                file_text=functools.partial(texts, stmt.location.file),
            )
            for rule in rules:
                if not rule.needs_locks or facts.locks:
                    found = _run(rule, "check_statement", stmt, ctx, result, stmt.location)
                    (deploy.setdefault(rule, []) if rule in self.deploy_rules else result.findings).extend(found)
            if transaction is not None and self.follow_transactions:
                for earlier in held.took(facts.held()):
                    through[(earlier.statement.location.file, earlier.statement.location.line)] = stmt.location
        self._combine(deploy, result, run.schema, through)
        return statements

    def _rules_for(self, kind: str) -> list[Rule]:
        """The statement rules a statement of this kind goes to: those that name its kind, and, unless
        it takes no lock, those that name none."""
        rules = self._by_kind.get(kind)
        if rules is None:
            lockless = kind in NO_LOCK_KINDS
            rules = self._by_kind[kind] = [
                r for r in self.statement_rules if kind in r.statement_kinds or not (r.statement_kinds or lockless)
            ]
        return rules

    def _check_tables(self, run: Replay, result: LintResult) -> Context:
        """Run the table rules over the schema the replay ends with, keeping the findings in the files
        linted; returns the context they ran in."""
        schema = run.schema
        mark_insert_heavy(schema, self.config.insert_heavy)
        result.sources.append(
            Source(
                label=_names(run.reported, 3) if run.reported else "nothing",
                location="",
                schema=schema,
                dialect=self.config.dialect,
                target=self.config.target,
            )
        )
        ctx = self._context(schema)
        for table in sorted(schema.tables.values(), key=lambda t: t.name):
            for rule in self.table_rules:
                for f in _run(rule, "check_table", table, ctx, result, table.defined_at):
                    if os.path.abspath(f.location.file) in run.reported_set:
                        result.findings.append(f)
        return ctx

    def _check_suppressions(
        self, result: LintResult, statements: dict[tuple[str, int], Statement], run: Replay, ctx: Context
    ) -> None:
        """Move what comments and per_file_ignores silence to `result.suppressed`; run the rules on
        the comments themselves."""
        for suppression in self._suppress(result, statements, run):
            for rule in self.suppression_rules:
                result.findings.extend(_run(rule, "check_suppression", suppression, ctx, result, suppression.location))
        if self.config.per_file_ignores:
            kept: list[Finding] = []
            for f in result.findings:
                (result.suppressed if self._ignored_in_file(f) else kept).append(f)
            result.findings = kept

    def _ignored_in_file(self, f: Finding) -> bool:
        """Whether per_file_ignores silences the finding's rule in its file."""
        ids = (f.rule, f.code.lower())
        return any(
            any(r.lower() in ids or f.code.lower().startswith(r.lower()) for r in rules)
            and path_matches(f.location.file, [pattern], self.config.root)
            for pattern, rules in self.config.per_file_ignores.items()
        )

    def _combine(
        self,
        deploy: dict[Rule, list[Finding]],
        result: LintResult,
        schema: Schema,
        through: dict[tuple[str, int], Location],
    ) -> None:
        """A deploy ended: the findings of the rules that report once per deploy, combined."""
        if any(deploy.values()):  # most deploys leave none
            ctx = self._context(schema, held_through=dict(through))
            for rule, found in deploy.items():
                if found:
                    result.findings.extend(_run(rule, "combine", found, ctx, result, found[0].location))
        deploy.clear()
        through.clear()

    def _suppress(
        self, result: LintResult, statements: dict[tuple[str, int], Statement], run: Replay
    ) -> list[Suppression]:
        """Move the findings that comments silence to `result.suppressed`; return the comments,
        each with what it silenced."""
        used: dict[tuple[str, int], set[str]] = {}
        kept: list[Finding] = []
        for f in result.findings:
            ids = {f.rule, f.code.lower()}
            file_ids, file_at = run.file_ignores.get(f.location.file, (frozenset(), 0))
            stmt = statements.get((f.location.file, f.location.line))
            hit = False
            for where, listed in (
                ((f.location.file, file_at), file_ids),
                ((f.location.file, stmt.suppressed_at if stmt else 0), stmt.suppressed if stmt else ()),
            ):
                matched = ids & set(listed)
                if matched:
                    used.setdefault(where, set()).update(matched)
                    hit = True
            (result.suppressed if hit else kept).append(f)
        result.findings = kept
        comments = [
            (Location(path, at), "file", ids)
            for path, (ids, at) in run.file_ignores.items()
            if ids and os.path.abspath(path) in run.reported_set
        ]
        comments += [
            (Location(s.location.file, s.suppressed_at), "statement", s.suppressed)
            for s in statements.values()
            if s.suppressed
        ]
        found = [
            Suppression(
                location=at,
                scope=scope,
                rules=frozenset(ids),
                used=frozenset(used.get((at.file, at.line), ())),
                unknown=frozenset(i for i in ids if i not in self.known_ids),
                inactive=frozenset(i for i in ids if i in self.known_ids and i not in self.active_ids),
            )
            for at, scope, ids in comments
        ]
        found += [
            Suppression(Location(bad.file, bad.line), "comment", problem=bad.message)
            for path, problems in run.bad_directives.items()
            if os.path.abspath(path) in run.reported_set
            for bad in problems
        ]
        return found


def _history_and_file_notes(run: Replay, result: LintResult, excluder: str) -> None:
    """Notes on what the run read but did not lint, left out, or could not read in the history;
    `excluder` names the exclude list that left files out (`the config's exclude`, `--exclude`)."""
    # a statement of an old migration that cannot be read is not the change's fault: said, not failed
    history_errors = [e for e in result.errors if e.line > 0 and os.path.abspath(e.file) not in run.reported_set]
    for e in history_errors:
        result.errors.remove(e)
        result.notes.append(f"history {e}; its changes are not replayed")
    for why, files in run.unlinted.items():
        why = f"{excluder}; replayed as history" if why == EXCLUDED else why
        result.notes.append(f"{len(files)} file(s) read but not linted ({why}): {_names(files)}")
    for why, files in run.skipped.items():
        result.notes.append(f"{len(files)} file(s) left out ({why}): {_names(files)}")
    result.framework = (run.framework.name, run.framework_why)
    result.units = run.units


def _shown_only(run: Replay, result: LintResult, server: Dialect) -> None:
    """Files that carry SQLite syntax a MySQL server refuses are rewritten by their application for
    each server it runs them on (PostgreSQL and SQLite too, which refuse MySQL's statements and
    clauses: `SET SESSION lock_wait_timeout`, `ALGORITHM=INSTANT`): a fix proven on MySQL alone is
    shown, never applied to them, and a note says why."""
    title = {Dialect.MARIADB: "MariaDB"}.get(server, "MySQL")
    result.notes.append(sqlite_note(run.sqlite, title))
    why = "shown only: the application runs these files on other servers too"
    for f in result.findings:
        if f.fix is not None and f.fix.applicability != Applicability.DISPLAY_ONLY:
            f.fix = replace(f.fix, title=f"{f.fix.title} ({why})", applicability=Applicability.DISPLAY_ONLY)


def _names(files: list[str], shown: int = 5) -> str:
    return first_of(files, shown)


def _run(
    rule: Rule,
    method: str,
    subject: Statement | Table | Suppression | list[Finding],
    ctx: Context,
    result: LintResult,
    where: Location | None,
) -> list[Finding]:
    """A rule's findings, each citing its measurements; a rule that raises (a plugin bug) becomes
    a located error, and the other rules and files still run."""
    try:
        findings: list[Finding] = list(getattr(rule, method)(subject, ctx))
    except Exception as e:
        file, line = (where.file, where.line) if where is not None else (getattr(subject, "name", "?"), 0)
        result.errors.append(ParseError(file, line, f"rule {rule.name} ({rule.code}) failed: {e!r}"))
        return []
    for f in findings:
        cite_measurements(f, rule, ctx.dialect, ctx.target)
        if f.fix is not None and ctx.framework is not None and not ctx.framework.editable(f.location.file):
            f.fix = None  # a migration the runner checks against what it applied (its hash) stays as it is
    return findings


def cite_measurements(f: Finding, rule: Rule, dialect: Dialect, target: Target) -> None:
    """Add the measurements of one's own that back the rule (the user's saved runs first, else the
    run nearest the target); a finding left citing no measurement says why."""
    # start-up: the evidence catalogue loads only when something cites it
    from schemacite.evidence import measured_on, measurements

    f.evidence = tuple(dict.fromkeys((*f.evidence, *measurements(f.rule, dialect, target))))
    measured = measured_on(f.evidence, dialect)
    f.evidence_note = None if measured else rule.why_unmeasured(dialect)
