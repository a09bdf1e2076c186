"""The rewrites MySQL and MariaDB lock findings offer as fixes (not a plugin itself).

A statement that blocks traffic only because of its own `ALGORITHM=` / `LOCK=` clause (a
`ALGORITHM=COPY`, a `LOCK=SHARED`) while the target does the operation online gets the online
clause pinned: `ALGORITHM=INSTANT`, or `ALGORITHM=INPLACE, LOCK=NONE`. The pin keeps the final
schema and takes weaker locks (safe); and should production differ from what the history says (a
FULLTEXT index the history does not hold, an older server), the server refuses the statement
instead of silently copying the table. The lock table decides (locks/mysql.py): the statement is
read again without its clauses, and again with the pin, and the pin is offered only when that
reading is online and not refused.

Where no online algorithm exists on the target, the fix is display-only: the command line of an
online schema change tool, filled in: gh-ost on MySQL for a table with no foreign keys on either
side (gh-ost supports none), pt-online-schema-change otherwise and on MariaDB (gh-ost is built and
tested against MySQL only). Both copy the table in chunks while it stays writable.
"""

from __future__ import annotations

import shlex

from schemacite.locks import LockImpact, impacts_for
from schemacite.model.dialects import Dialect
from schemacite.model.fixes import Applicability, Fix
from schemacite.model.statements import PARTITION_OPS, AlterTable, CreateIndex, Statement
from schemacite.rule import Context
from schemacite.rules.rewrites import generated
from schemacite.sources.edits import code_of, replace_span
from schemacite.sources.mysql.clauses import ALTER_HEAD, CLAUSE, clause_spans
from schemacite.sources.read import parse_text
from schemacite.sources.search_path import in_database

_ONLINE = ("INSTANT", "NOCOPY", "INPLACE")


def online_fix(stmt: Statement, ctx: Context) -> Fix | None:
    """The fix a MySQL/MariaDB lock finding offers: the online clause pinned, or an online schema
    change tool's command line when the target has no online algorithm for the statement."""
    if not isinstance(stmt.op, (AlterTable, CreateIndex)):
        return None
    if isinstance(stmt.op, AlterTable) and any(a.op in PARTITION_OPS for a in stmt.op.actions):
        return None  # partition clauses end the statement, and no clause may follow them
    comma = isinstance(stmt.op, AlterTable)
    code = code_of(stmt.sql)
    bare = [(start, stop, "") for start, stop in clause_spans(code, comma)]
    online = _algorithm(_impacts(stmt, ctx, _applied(stmt.sql, bare)))
    if online is None:
        return generated(_tool(stmt, ctx, _applied(stmt.sql, bare)), ctx) if comma else None
    pin = "ALGORITHM=INSTANT" if online == "INSTANT" else "ALGORITHM=INPLACE" + (", " if comma else " ") + "LOCK=NONE"
    spans = _pinned(code, pin, comma)
    if _algorithm(_impacts(stmt, ctx, _applied(stmt.sql, spans)), pinned=True) is None:
        return None  # the server would refuse the pin, or still block: nothing safe to offer
    edits = tuple(replace_span(stmt, start, stop, text) for start, stop, text in spans)
    return generated(Fix(f"pin {pin}", Applicability.SAFE, edits), ctx)


# ---------------------------------------------------------------- reading the statement again

Span = tuple[int, int, str]  # replace sql[start:stop] with the text


def _pinned(code: str, pin: str, comma: bool) -> list[Span]:
    """The spans that put `pin` where the first clause stood (or at the statement's end) and
    remove the others."""
    found = list(CLAUSE.finditer(code))
    if not found:
        end = len(code.rstrip())
        return [(end, end, (", " if comma else " ") + pin)]
    first = found[0]
    return [(first.start(), first.end(), pin)] + [(a, b, "") for a, b in clause_spans(code, comma)[1:]]


def _applied(sql: str, spans: list[Span]) -> str:
    for start, stop, text in sorted(spans, reverse=True):
        sql = sql[:start] + text + sql[stop:]
    return sql


def _impacts(stmt: Statement, ctx: Context, sql: str) -> list[LockImpact]:
    """The lock table's reading of `sql` in the statement's place (same schema, same target)."""
    parsed = parse_text(sql, stmt.location.file, ctx.dialect)
    if parsed.errors or len(parsed.statements) != 1:
        return []
    again = parsed.statements[0]
    database, _, _ = (stmt.table or "").rpartition(".")
    if database:  # a table of another database than the run's first (USE): the replay's key
        again = in_database(again, database)
    again.foreign_key_checks = stmt.foreign_key_checks
    return impacts_for(again, ctx.schema, ctx.target)


def _algorithm(impacts: list[LockImpact], pinned: bool = False) -> str | None:
    """The algorithm the statement runs with when it runs online (no lock but the brief metadata
    lock, nothing refused), else None. The statement's own reading is its last impact (several
    actions add one for the whole)."""
    if not impacts or any(i.refused or "server refuses" in (i.note or "") for i in impacts):
        return None
    whole = impacts[-1]
    if whole.algorithm not in _ONLINE or any(lk.mode != "NONE" for lk in whole.locks):
        return None
    if not pinned and "copies the table anyway" in (whole.note or ""):
        return None
    return whole.algorithm


# ---------------------------------------------------------------- no online algorithm


def _tool(stmt: Statement, ctx: Context, bare: str) -> Fix | None:
    """An online schema change tool's command line for the ALTER TABLE (its clauses removed). The
    table is the one the reader named; the reader drops a database qualifier (a migration runs in
    the database its runner connects to), so the database is left for the user to fill in."""
    m = ALTER_HEAD.match(code_of(bare))  # only where the sub-commands start
    alter = bare[m.end() :].strip() if m else ""
    if m is None or not alter or stmt.table is None:
        return None
    # a key `database.table` is a table of another database than the run's first (USE)
    database, _, name = stmt.table.rpartition(".")
    database = shlex.quote(database) if database else "<database>"
    table = shlex.quote(name)
    known = ctx.schema.tables.get(stmt.table)
    foreign = known is None or bool(known.foreign_keys) or bool(ctx.schema.foreign_keys_to(stmt.table))
    if ctx.dialect is Dialect.MYSQL and not foreign:
        template = (
            "# gh-ost copies the table in chunks and applies the binlog's changes to the copy, then swaps them\n"
            f"gh-ost --host=<host> --user=<user> --ask-pass --database={database} "
            f"--table={table} --alter={shlex.quote(alter)} --execute"
        )
        return Fix("run it with gh-ost", Applicability.DISPLAY_ONLY, template=template)
    children = " --alter-foreign-keys-method=auto" if known is None or ctx.schema.foreign_keys_to(stmt.table) else ""
    template = (
        "# pt-online-schema-change copies the table in chunks, triggers keep the copy current, then it swaps them\n"
        f"pt-online-schema-change --alter {shlex.quote(alter)}{children} "
        f"h=<host>,u=<user>,D={database},t={table} --ask-pass --execute"
    )
    return Fix("run it with pt-online-schema-change", Applicability.DISPLAY_ONLY, template=template)
