"""lock-timeout-missing: a deploy takes brief blocking locks with no lock timeout in force."""

from __future__ import annotations

import os
from collections.abc import Iterator

from schemacite.model.dialects import LOCK_WAIT, Dialect
from schemacite.model.fixes import Applicability, Edit, Fix
from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding, Option, Rule, Severity
from schemacite.rules.lock_findings import brief_lock
from schemacite.rules.rewrites import generated
from schemacite.sources.names import written

SETTING = {dialect: wait.setting for dialect, wait in LOCK_WAIT.items()}
SET = {dialect: wait.statement() for dialect, wait in LOCK_WAIT.items()}
FIX = {
    "postgres": f"{SET['postgres']} at the head of the deploy (SET LOCAL inside its transaction) and retry "
    "the deploy when it times out: a wait for a lock then fails in seconds instead of stopping traffic",
    "mysql": f"{SET['mysql']} (seconds) at the head of the deploy and retry it when it "
    "times out: a wait for the metadata lock then fails in seconds instead of stopping traffic",
}
FIX["mariadb"] = FIX["mysql"] + f" (or `{LOCK_WAIT['mariadb'].one_statement()}` for one statement)"


class LockTimeoutMissing(Rule):
    """Deploy takes brief blocking locks with no lock timeout in force.

    ## What it does
    Flags, once per deploy (a migration file, a changeset, an up block), the statements that
    take a lock blocking reads or writes of an existing table only briefly (they change the
    catalog: ADD COLUMN without a rewrite, SET DEFAULT, DROP COLUMN, RENAME, DROP TABLE, a
    foreign key `NOT VALID`, ...) while no lock timeout is in force: PostgreSQL's
    `lock_timeout`, MySQL's and MariaDB's `lock_wait_timeout`. The finding stands at the first
    such statement and lists each one with its line and tables.

    A timeout is in force after `SET lock_timeout` (or `SET SESSION lock_wait_timeout`) earlier
    in the same file, until a `SET ... = 0`, `DEFAULT` or `RESET` turns it off; `SET LOCAL`
    holds until its transaction ends. `ALTER ROLE ... SET` changes only later sessions, so it
    does not count. When the deploy's connection sets it outside the SQL (the runner's migrate
    script, the connection string's `options`, the role), say so with `lock_timeout = "5s"` in
    the config: each deploy then starts with it in force. A suppression belongs on the first statement listed (or is an
    `ignore-file`).

    Statements that hold their lock over real work (a rewrite, a scan, an index build) or lock a
    table a snapshot shows to be large are findings of their own (`access-exclusive-lock`,
    `write-blocking-lock`) and are not repeated here. A brief statement whose transaction keeps
    its lock through later long work (`lock-held-during-long-work`) is still listed, since the
    wait for the lock is the same, but it is not called brief: the listing says how long it is held.
    A statement whose locks its transaction already holds at that strength or stronger (a second
    `DROP INDEX` on a table the first one locked) is left out: it waits for nobody.

    On MySQL and MariaDB every DDL statement on an existing table takes an exclusive metadata
    lock at its start and end, whatever its `LOCK` level (`LOCK=NONE`, `ALGORITHM=INSTANT`
    included): each is listed, unless it blocks traffic while it works (a table copy), which
    is a finding of its own.

    ## Why is this bad?
    A lock request waits behind every transaction already using the table, and every query that
    arrives after it waits behind the request: one long report or idle transaction turns a
    statement that needs the lock for milliseconds into an outage of the table for as long as
    that transaction runs. With a lock timeout the statement gives up instead, the deploy fails
    and can be retried. On MySQL and MariaDB every DDL statement takes an exclusive metadata
    lock at its start and end, which queues the same way ("Waiting for table metadata lock");
    the default `lock_wait_timeout` is a year on MySQL and a day on MariaDB.

    ## Fix
    PostgreSQL: `SET lock_timeout = '2s'` (`SET LOCAL` inside the runner's transaction) at
    the head of the deploy, or just before the statement inside the file's own `BEGIN`. Unsafe: the deploy then fails instead of
    waiting, and has to be retried. Two seconds lets a brief catalog change get its lock on a
    healthy server while capping how long the queries queued behind it wait.

    MySQL/MariaDB: `SET SESSION lock_wait_timeout = 5` at the head of the deploy (they have no
    setting for one transaction; the session's holds for the rest of the connection). Unsafe, for
    the same reason; proven on MariaDB 10.11.

    The suggestion says what a retry takes besides running the deploy again: on MySQL and
    MariaDB, where a deploy holds several DDL statements, that each commits as it runs (a retry
    meets those done before the timeout); and where the runner records the failure, its way to
    clear it (golang-migrate `migrate force <previous version>`, Prisma `prisma migrate resolve
    --rolled-back`, on MySQL and MariaDB Flyway `flyway repair` and sqlx's `_sqlx_migrations` row).

    The value the fix sets is the rule's `fix_timeout_seconds` option
    (`[rules.lock-timeout-missing]` in the config); a file sent as one query (golang-migrate, Prisma)
    gets `SET LOCAL`, since the statement it adds makes the file one transaction.

    ## Example
    ```sql postgres
    ALTER TABLE accounts ADD COLUMN nickname text;
    ALTER TABLE accounts ALTER COLUMN plan SET DEFAULT 'free';
    ```

    ## Use instead
    ```sql postgres
    SET lock_timeout = '2s';
    ALTER TABLE accounts ADD COLUMN nickname text;
    ALTER TABLE accounts ALTER COLUMN plan SET DEFAULT 'free';
    ```
    """

    code = "SC110"
    name = "lock-timeout-missing"
    family = "locks"
    summary = "{count} with no {setting} in force: {listing}"
    default_severity = Severity.WARNING
    evidence = (
        "pg-doc-lock-timeout",
        "pg-doc-explicit-locking",
        "mysql-doc-metadata-locking",
        "mysql-doc-lock-wait-timeout",
        "mariadb-doc-metadata-locking",
    )
    evidence_note = (
        "Documented server behaviour: how long a lock request waits depends on the transactions already "
        "running, not on the statement, so there is no cost of the statement to measure."
    )
    needs_locks = True
    # reads `held_through` (a lock kept through long work is not called brief) and `held_modes`
    # (a lock the transaction holds already waits for nobody)
    reads_earlier = True
    options = {
        "fix_timeout_seconds": Option(
            float,
            None,
            "the lock timeout the fix sets, in seconds (default: 2 on PostgreSQL, 5 on MySQL and MariaDB)",
        ),
    }

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        if ctx.lock_timeout_set:
            return
        brief = brief_lock(stmt, ctx)
        if brief is None:
            return
        entry = f"line {stmt.location.line} {brief.operation} takes {brief.mode} on {', '.join(written(r, ctx.dialect) for r in brief.relations)}"
        finding = self.finding(
            stmt.location,
            table=", ".join(brief.tables) or None,
            index=", ".join(brief.indexes) or None,
            dialect=ctx.dialect,
            sql=stmt.sql,
            suggestion=FIX[ctx.dialect] + _retry(ctx),
            count="A brief lock blocking " + brief.blocks.replace("+", " and "),
            setting=SETTING[ctx.dialect],
            listing=entry + brief.unseen,
        )
        finding.entry = entry + brief.unseen
        finding.fix = generated(_set_timeout(stmt, ctx, self.option_values["fix_timeout_seconds"]), ctx)
        yield finding

    def combine(self, findings: list[Finding], ctx: Context) -> Iterator[Finding]:
        """The deploy's findings as one, at its first lock, listing them all. A lock its transaction
        keeps through later long work (`lock-held-during-long-work`) is not brief: the listing says
        how long it is held, and the message calls none brief."""
        first = findings[0]
        entries = [f.entry + _kept(f, ctx) for f in findings]
        kept = any(_kept(f, ctx) for f in findings)
        if len(findings) > 1:
            first.message = self.summary.format(
                count=f"{len(findings)} {'' if kept else 'brief '}locks blocking traffic",
                setting=SETTING[ctx.dialect],
                listing="; ".join(entries),
            )
            first.table = _joined(f.table for f in findings)
            first.index = _joined(f.index for f in findings)
        elif kept:  # check_statement's words, with the lock's length said instead of "brief"
            first.message = "A lock" + first.message.removeprefix("A brief lock") + _kept(first, ctx)
        yield first


def _retry(ctx: Context) -> str:
    """What a retry of the deploy takes besides running it again: on MySQL and MariaDB each DDL
    statement commits as it runs, so a deploy of several is left half done by a timeout; and a
    runner that records the failure must be told before it runs the migration again."""
    mysql = ctx.dialect.is_mysql_family
    steps = []
    if mysql and ctx.unit_ddl > 1:
        steps.append(
            "each DDL statement commits as it runs, so a retry meets those done before the timeout: "
            "one DDL statement per migration, or statements that can run twice"
        )
    framework = ctx.framework
    if framework is not None and (framework.after_failure or mysql and framework.after_failure_mysql):
        steps.append("to retry, " + (framework.after_failure or framework.after_failure_mysql))
    return "".join(f"; {step}" for step in steps)


def _set_timeout(stmt: Statement, ctx: Context, seconds: float | None) -> Fix | None:
    """The timeout set at the head of the deploy: for the runner's transaction (SET LOCAL) or the
    session; in the file's own transaction, just before the statement, inside it. A deploy then
    fails instead of waiting, so the fix is unsafe: the deploy must be retried. MySQL and MariaDB
    have no setting for one transaction (their DDL commits the one open anyway): the session's
    holds for the rest of the connection."""
    # a file sent as one query runs as one implicit transaction once the SET makes it two statements:
    # SET LOCAL then ends with it instead of staying on the runner's connection for later migrations
    one_query = ctx.unit is not None and ctx.unit.transaction == "implicit"
    local = (stmt.transaction is not None or one_query) and ctx.dialect is Dialect.POSTGRES
    # zero would turn the timeout off: the fix then sets the advised bound
    setting = LOCK_WAIT[ctx.dialect].statement(local=local, seconds=seconds if seconds and seconds > 0 else None)
    at = stmt.location if ctx.explicit_transaction or ctx.deploy_head is None else ctx.deploy_head
    if at.file != stmt.location.file:
        return None
    edit = Edit.insert(at.file, at.line, at.column, f"{setting};\n" + " " * (at.column - 1))
    return Fix(f"{setting} at the head of the deploy", Applicability.UNSAFE, (edit,))


def _kept(f: Finding, ctx: Context) -> str:
    """`, held through the long work of line 3` when the finding's transaction keeps its lock that long."""
    work = ctx.held_through.get((f.location.file, f.location.line))
    if work is None:
        return ""
    where = f"line {work.line}" if work.file == f.location.file else f"{os.path.basename(work.file)}:{work.line}"
    return f", held until the transaction ends, through the long work of {where}"


def _joined(lists) -> str | None:
    """Comma-separated names, each once."""
    return ", ".join(dict.fromkeys(n for names in lists if names for n in names.split(", "))) or None
