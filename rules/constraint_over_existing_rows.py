"""constraint-over-existing-rows: statements the server refuses when one existing row does not fit."""

from __future__ import annotations

import functools
from collections.abc import Iterator

from schemacite.locks import may_hold_rows
from schemacite.model import Table
from schemacite.model.casts import CastRisk, family, labels_may_fail, lenient, may_fail, none_longer
from schemacite.model.dialects import MYSQL_FAMILY, Dialect
from schemacite.model.record import record
from schemacite.model.schema import Check, Column, ForeignKey, Index
from schemacite.model.statements import (
    Action,
    AddCheck,
    AddColumn,
    AddForeignKey,
    AddKey,
    AlterColumnType,
    ConstraintAction,
    CreateIndex,
    Statement,
)
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.sources.names import in_sql, relation_in_sql, text_of, tokenize, written, written_names

# what each server answers when a row does not fit, by failure: PostgreSQL's SQLSTATE and the
# MySQL/MariaDB error number (the MariaDB ones checked by tests/test_fails_on_rows.py; MySQL's
# from its error reference where they are the same, else left unsaid)
_REFUSAL = {
    "null": {Dialect.POSTGRES: "23502", Dialect.MARIADB: "1265", Dialect.MYSQL: ""},
    "duplicate": {Dialect.POSTGRES: "23505", Dialect.MARIADB: "1062", Dialect.MYSQL: "1062"},
    "check": {Dialect.POSTGRES: "23514", Dialect.MARIADB: "4025", Dialect.MYSQL: ""},
    "foreign_key": {Dialect.POSTGRES: "23503", Dialect.MARIADB: "1452", Dialect.MYSQL: "1452"},
    "exclusion": {Dialect.POSTGRES: "23P01", Dialect.MARIADB: "", Dialect.MYSQL: ""},  # PostgreSQL's alone
    "length": {Dialect.POSTGRES: "22001", Dialect.MARIADB: "1265", Dialect.MYSQL: ""},
    "range": {Dialect.POSTGRES: "22003", Dialect.MARIADB: "1264", Dialect.MYSQL: ""},
    "digits": {Dialect.POSTGRES: "22003", Dialect.MARIADB: "1264", Dialect.MYSQL: ""},
    "members": {Dialect.POSTGRES: "22P02", Dialect.MARIADB: "1265", Dialect.MYSQL: ""},
    "parse": {Dialect.POSTGRES: "22P02", Dialect.MARIADB: "1292", Dialect.MYSQL: ""},
}
# what a server whose sql_mode is not strict refuses all the same: the other kinds it stores
# changed, with a warning of the same number (MariaDB 10.11, tests/test_fails_on_rows.py)
_REFUSED_ANYWAY = frozenset({"duplicate", "check", "foreign_key", "exclusion"})
_STORED_INSTEAD = {  # what the row then holds (MariaDB 10.11, tests/test_fails_on_rows.py)
    "length": "the value cut to fit",
    "range": "the value clipped to the type's range",
    "digits": "the value clipped to the type's range",
    "null": "the type's implicit default in place of NULL",
    "members": "'' in place of a member the type lacks",
    "parse": "0 (the type's zero) in place of a value that does not convert",
}
# MySQL enforces CHECK constraints from 8.0.16 (parsed and ignored before), MariaDB from 10.2.1: a
# target names a series, taken to be a current release of it (a mysql-8.0 target enforces them)
_CHECKS_ENFORCED = {Dialect.MYSQL: (8, 0), Dialect.MARIADB: (10, 2)}


@record(frozen=True)
class _Risk:
    """One way the statement can meet a row that does not fit: what the row holds, the failure's
    kind (a key of _REFUSAL) and a query that finds such a row first."""

    what: str  # the change, in words: `SET NOT NULL email`
    bad: str  # `a row holds NULL in email`
    kind: str
    query: str


class ConstraintOverExistingRows(Rule):
    """Statement fails if one existing row does not fit the new rule.

    ## What it does
    Flags statements that make the server check the rows already in a table and refuse the whole
    statement on the first row that does not fit, on a table that exists before the deploy:

    - `SET NOT NULL` (MySQL/MariaDB `MODIFY`/`CHANGE` of a nullable column to `NOT NULL`): a NULL;
    - `ADD PRIMARY KEY`, `ADD UNIQUE`, `CREATE UNIQUE INDEX` (also `CONCURRENTLY`, which leaves an
      invalid index behind): two rows with the same key, or a NULL in a primary key. Only the rows
      a partial index's `WHERE` admits can collide, and a NULL collides with nothing unless the
      key is `NULLS NOT DISTINCT` (PostgreSQL 15). A key over the columns of a primary key or
      unique index the table already has, and more, cannot meet a duplicate and is not flagged,
      nor one over those of a key the same deploy dropped, with no write to the table since (a
      primary key replaced by a wider one);
    - `ADD CHECK` and `ADD FOREIGN KEY` unless `NOT VALID` (or, on MySQL and MariaDB, after `SET
      foreign_key_checks = 0`), and `VALIDATE CONSTRAINT`: a row the check refuses, a key the
      referenced table lacks (`VALIDATE CONSTRAINT` at info level: see below);
    - `ADD CONSTRAINT ... EXCLUDE` (PostgreSQL): two rows that conflict under its operators (two
      bookings of one room whose periods overlap); it cannot be added `NOT VALID`;
    - a type change whose cast can fail: text to a number, date, uuid, boolean or enum, a shorter
      `varchar(n)`, a narrower integer or numeric, enum members removed (on PostgreSQL, a column
      moved to an enum type lacking labels of its old one, or cast from text to an enum: judged
      where the `USING` only casts the column, since one computing values may map the labels
      that go). A label or MySQL/MariaDB `ENUM` member an UPDATE of the deploy moved every row
      off, `SET status = 'paused' WHERE status = 'scheduled'`, or a DELETE took those rows, is gone
      already, while no statement since wrote the column (an UPDATE setting it to another constant
      can bring back that one alone); likewise a shorter `varchar(n)` after `DELETE ... WHERE
      length(col) > n` (PostgreSQL). A widening cannot fail and is not flagged.

    Each finding gives a query that finds an offending row first. A table a snapshot counts empty
    (0 rows) is not flagged, nor one created earlier in the same deploy; a `SET NOT NULL` that a
    validated `CHECK (col IS NOT NULL)` already proves is not flagged, nor one (or a MySQL `MODIFY
    ... NOT NULL`) of a column an `UPDATE` without a WHERE gave every row a value since its last
    write (`SET grp_id = id`, `SET ctx = '{}'`; not a value that is NULL on some row: a `CASE`
    with no `ELSE`, `NULLIF`, a copy of a nullable column, a subquery finding its row by one), or
    whose NOT NULL the same deploy dropped (a
    MySQL `CHANGE` or `MODIFY` leaving it out) with no write to the table since, or that the deploy
    added with a constant default (every old row holds it), nor a key over a column the
    same statement adds with nothing to fill it (every row holds NULL there), nor one of a column already
    NOT NULL, nor a statement that does nothing: `ALTER TABLE IF EXISTS` of a table the history
    does not hold, `CREATE UNIQUE INDEX IF NOT EXISTS` of a name taken. Nor is a foreign key the
    rows already satisfy: the table has it, validated, or the same deploy dropped it (to change
    its `ON DELETE`, to widen its integer columns or, on PostgreSQL, a `varchar`) and no statement
    since wrote either table; renaming a column or a table keeps what is known of its rows, and an
    ALTER TABLE changing other columns' values (a type change, MySQL's `CONVERT TO CHARACTER SET`
    of string columns) or none (a table option, a new column) keeps what is known through the rest.
    On PostgreSQL the same holds for a column an `UPDATE` of the deploy filled from the key it
    references, or from a column whose validated foreign key references that key (`SET account_id
    = posts.account_id FROM posts WHERE posts.id = comments.post_id`); and where that `WHERE` joins
    by a NOT NULL column whose foreign key references the source, and the source column is NOT
    NULL, every row got a value, so a `SET NOT NULL` of the column is not flagged either. A key
    whose orphans the deploy took away first is not flagged: a `DELETE`, or an `UPDATE` setting
    the column to NULL, whose WHERE is only `NOT EXISTS (SELECT 1 FROM parent WHERE parent.id =
    t.parent_id)`, with no write to the parent, nor one of the column, since.
    Likewise a check the rows already pass (PostgreSQL): over columns holding only NULL where it is
    then NULL or true (`char_length(c) <= 10`, `(a IS NULL AND b IS NULL) OR ...`, in SQL's
    three-valued logic), or implied by a validated check of the table, or by one the deploy dropped
    with no write to the table since (`kind IN ('a', 'b')` dropped, `kind IN ('a', 'b', 'c')`
    added), or passed by the one constant every row holds in a column (added by the deploy with
    `DEFAULT 'DISABLED'`, or set by an `UPDATE` without a WHERE), with no write of the column or
    new row since: `CHECK (status IN ('DISABLED', 'ENABLED'))`, `CHECK (type = 'STANDARD' OR
    status = 'DISABLED')` (a PostgreSQL DO block counts as a write only when its body may write
    rows: INSERT, UPDATE, DELETE, MERGE, COPY, TRUNCATE, PERFORM, CALL); and a partial unique
    index over the columns of a unique index with the very same `WHERE`, and more; and a key over
    a column the deploy added giving each row a value of its own (serial, identity, a random UUID),
    or that an `UPDATE` of every row gave one (`SET uuid = gen_random_uuid() WHERE uuid IS NULL` of
    a column just added), while no statement since wrote the column (an `UPDATE` forgets only what
    was known through the columns it sets). A column added
    NOT NULL without a default holds no row to judge (PostgreSQL adds it only to an empty table:
    `not-null-without-default` reports the refusal).

    ## Why is this bad?
    The statement works on a copy of production that happens to be clean and fails on production:
    PostgreSQL and MariaDB refuse it (checked on both by the suite: 23502, 23505, 23514, 23503,
    23P01, 22001, 22003, 22P02 on PostgreSQL; 1265, 1062, 4025, 1452, 1264, 1292 on MariaDB), and MySQL
    does the same in strict mode per its documentation. The deploy stops half done: on MySQL and
    MariaDB every DDL statement before it has committed; on PostgreSQL whatever ran outside the
    failing transaction stays.

    Where the session's `sql_mode` is not strict (`SET SESSION sql_mode = ''`, as PrestaShop's
    upgrade files begin; no `STRICT_TRANS_TABLES`, `STRICT_ALL_TABLES` or `TRADITIONAL`), MySQL and
    MariaDB do not refuse a value that does not fit: the statement passes with a warning and the row
    keeps a changed value (cut to fit, clipped to the type's range, the implicit default in place of
    NULL, `''` in place of an enum member the type lacks; checked on MariaDB). The finding says so:
    the deploy goes on, and the data is changed without anyone being told. A duplicate key, a
    missing parent row or a failed CHECK is refused all the same.

    How long the statement blocks traffic while it checks is the lock rules' part
    (`access-exclusive-lock`, `write-blocking-lock`): they say how long it blocks, this rule says
    whether the rows let it finish. The two are reported apart because the fixes differ: a
    weaker lock does not make bad rows fit, and clean rows do not shorten the lock.

    ## Example
    ```sql postgres
    ALTER TABLE accounts ALTER COLUMN balance SET NOT NULL;
    ```

    ## Use instead
    ```sql postgres
    -- SELECT 1 FROM accounts WHERE balance IS NULL LIMIT 1 found no row, and the application
    -- no longer writes NULL
    ALTER TABLE accounts ADD CONSTRAINT accounts_balance_not_null CHECK (balance IS NOT NULL) NOT VALID;
    ALTER TABLE accounts VALIDATE CONSTRAINT accounts_balance_not_null;
    ALTER TABLE accounts ALTER COLUMN balance SET NOT NULL;
    ```
    The `VALIDATE CONSTRAINT` still reads the rows and is reported at info level: a failure there
    leaves only a `NOT VALID` constraint that new writes already obey, and the retry, once the
    rows are fixed, is that one statement.

    ## References
    - [PostgreSQL: ALTER TABLE](https://www.postgresql.org/docs/current/sql-altertable.html)
    - [MySQL: CHECK Constraints](https://dev.mysql.com/doc/refman/8.0/en/create-table-check-constraints.html)
    - [MySQL: FOREIGN KEY Constraints](https://dev.mysql.com/doc/refman/8.0/en/create-table-foreign-keys.html)
    """

    code = "SC112"
    name = "constraint-over-existing-rows"
    family = "fails-on-rows"
    summary = "{what} on {table} fails if {bad}: {server} refuses the statement{code}"
    statement_kinds = frozenset({"alter_table", "create_index"})
    evidence = ("pg-doc-alter-table-not-null",)
    evidence_note = (
        "A refusal, not a cost: the suite runs each statement over rows that do not fit on PostgreSQL and "
        "MariaDB (tests/test_fails_on_rows.py); MySQL's answer rests on its documentation."
    )

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        if not may_hold_rows(stmt.table, ctx.schema):
            return  # a table the change created, or one a snapshot counts empty
        name = stmt.table
        table = ctx.schema.tables.get(name)
        if stmt.if_exists and table is None:
            return  # ALTER TABLE IF EXISTS of a table the history does not hold: it changes nothing
        sql = _Sql(ctx.dialect, stmt.sql, name, table, _added_null(stmt))
        risks: list[list[_Risk]] = []
        if isinstance(stmt.op, CreateIndex):
            if stmt.op.index.unique and not _index_exists(stmt.op, table, ctx):
                risks.append(_key_risks(stmt.op.index, sql, "CREATE UNIQUE INDEX", table, ctx))
        else:
            risks += [_action_risks(a, sql, table, stmt, ctx) for a in stmt.actions]
        for found in risks:
            if found and ctx.dialect in MYSQL_FAMILY and lenient(stmt.sql_mode):
                refused = [r for r in found if r.kind in _REFUSED_ANYWAY]
                if not refused:
                    yield self._changed(stmt, found, ctx)
                    continue
                found = refused
            if found:
                finding = self._finding(stmt, found, ctx)
                if found[0].what.startswith("VALIDATE CONSTRAINT"):
                    finding.severity = Severity.INFO  # the NOT VALID step already guards new writes
                yield finding

    def _finding(self, stmt: Statement, risks: list[_Risk], ctx: Context) -> Finding:
        server = {Dialect.POSTGRES: "PostgreSQL", Dialect.MARIADB: "MariaDB"}.get(ctx.server, "MySQL")
        codes = ", ".join(dict.fromkeys(c for r in risks if (c := _REFUSAL[r.kind][ctx.server])))
        return self.finding(
            stmt.location,
            table=stmt.table,
            sql=stmt.sql,
            dialect=ctx.dialect,
            what=risks[0].what,
            bad=_bad(risks),
            server=server,
            code=f" ({codes})" if codes else "",
            suggestion=f"{_look_first(risks)}; fix those rows (and the code writing them) before the deploy",
        )

    def _changed(self, stmt: Statement, risks: list[_Risk], ctx: Context) -> Finding:
        """The finding where the session's sql_mode is not strict: the statement passes and the
        rows that do not fit are kept with their values changed."""
        server = "MariaDB" if ctx.server is Dialect.MARIADB else "MySQL"
        stored = ", or ".join(dict.fromkeys(_STORED_INSTEAD.get(r.kind, "a changed value") for r in risks))
        return self.finding(
            stmt.location,
            table=stmt.table,
            sql=stmt.sql,
            dialect=ctx.dialect,
            message=(
                f"{risks[0].what} on {written(stmt.table or '', ctx.dialect)} does not fail if {_bad(risks)}: the "
                f"session's sql_mode {stmt.sql_mode!r} is not strict, so {server} stores {stored} in such a "
                "row, with a warning only"
            ),
            suggestion=f"{_look_first(risks)}; fix those rows before the deploy, or leave sql_mode strict so "
            "the statement refuses them instead of changing them",
        )


def _bad(risks: list[_Risk]) -> str:
    """What the rows that do not fit hold, each way once."""
    return " or ".join(dict.fromkeys(r.bad for r in risks))


def _look_first(risks: list[_Risk]) -> str:
    """The queries that find such rows, each once."""
    queries = "; ".join(dict.fromkeys(r.query for r in risks if r.query))
    return f"look first: {queries}" if queries else "look for such rows first"


class _Sql:
    """Names as the finding's queries must write them for the server (quoted where it needs
    it; on MySQL and MariaDB in the case the statement writes them), and as its message shows them."""

    def __init__(
        self,
        dialect: Dialect,
        text: str,
        table: str | None,
        model: Table | None = None,
        added: frozenset[str] = frozenset(),
    ):
        self.dialect, self.text, self.key = dialect, text, table or ""
        self.model = model
        self.added_null = added  # columns the statement itself adds, holding only NULL

    @functools.cached_property
    def table(self) -> str:
        # most statements risk nothing: the name is found in the text only for a finding's query
        return relation_in_sql(self.key, self.dialect, self.text)

    def relation(self, key: str) -> str:
        return relation_in_sql(key, self.dialect, self.text)

    def col(self, name: str) -> str:
        return in_sql(name, self.dialect, self.text)

    def expression(self, name: str) -> bool:
        """Whether a key's part is an expression (`lower(email)`), kept as text, not a column."""
        known = self.model is not None and name in self.model.columns
        return not known and any(c in name for c in " ()")

    def terms(self, names: tuple[str, ...]) -> str:
        """A key's columns and expressions as a query writes them."""
        return ", ".join(n if self.expression(n) else self.col(n) for n in names)

    def shown(self, names: tuple[str, ...]) -> str:
        """The same, as a message shows them."""
        return ", ".join(n if self.expression(n) else written_names((n,), self.dialect) for n in names)

    def predicate(self) -> str:
        """A partial index's WHERE, as the statement writes it ("" without one): only the rows it
        holds go into the index, so only they can collide."""
        if "WHERE" not in self.text.upper():
            return ""
        toks = tokenize(self.text)
        depth = 0
        for i, tok in enumerate(toks):
            depth += tok.kind == "lparen"
            depth -= tok.kind == "rparen"
            if depth == 0 and tok.upper == "WHERE":
                rest = toks[i + 1 :]
                while rest and rest[-1].text == ";":
                    rest = rest[:-1]
                return text_of(rest, self.text)
        return ""

    def nulls_not_distinct(self) -> bool:
        """PostgreSQL 15's UNIQUE NULLS NOT DISTINCT: two NULLs collide like two equal values."""
        if "NULLS" not in self.text.upper():
            return False  # the words cannot be there: no need to tokenize the statement
        words = [t.upper for t in tokenize(self.text)]
        return any(words[i : i + 3] == ["NULLS", "NOT", "DISTINCT"] for i in range(len(words) - 2))


def _action_risks(action: Action, sql: _Sql, model: Table | None, stmt: Statement, ctx: Context) -> list[_Risk]:
    column = model.columns.get(action.column or "") if model is not None and action.column else None
    if action.op == "set_not_null" and action.column:
        if model is not None and model.proven_not_null(action.column) or _no_null(column, sql, ctx):
            return []  # a validated CHECK already proves it, an UPDATE filled every NULL, or it was NOT NULL
        if column is not None and not column.nullable:
            return []  # already NOT NULL: the server reads no row
        return [_null_risk(f"SET NOT NULL {sql.shown((action.column,))}", sql, action.column)]
    if isinstance(action, AddCheck) and not action.not_valid:
        if action.op == "add_not_null" and action.column:
            return [_null_risk(f"ADD NOT NULL {sql.shown((action.column,))}", sql, action.column)]
        if _checks_enforced(ctx) and action.constraint.enforced:
            if _passes_over_null(model, action.constraint, sql) or _held_passes(action.constraint, sql, ctx):
                return []  # NULL on every row, and a CHECK that is NULL passes; or a constant it allows
            if _implied(action.constraint, model, ctx.schema.dropped_checks.get(sql.key, [])):
                return []
            return [_check_risk(action.constraint, sql, "ADD CHECK")]
        return []
    if isinstance(action, AddForeignKey) and not action.not_valid and stmt.foreign_key_checks:
        key = action.key
        if (
            key.enforced
            and not _only_null(model, key.columns, sql)
            and not _foreign_key_holds(key, sql.key, model, ctx)
        ):
            return [_foreign_key_risk(key, sql, "ADD FOREIGN KEY", ctx)]
        return []
    if isinstance(action, AddKey) and action.op in ("add_primary_key", "add_unique") and not action.using_index:
        return _key_risks(action.index, sql, action.text.split("(")[0].strip() or action.op, model, ctx)
    if isinstance(action, AddKey) and action.op == "add_exclude":
        return [] if _only_null(model, action.index.columns, sql) else [_exclusion_risk(action, sql)]
    if isinstance(action, ConstraintAction) and action.op == "validate_constraint":
        return _validate_risks(action.name, sql, model, ctx)
    if isinstance(action, AlterColumnType) and column is not None:
        risk = may_fail(column, action.base_type, action.type_args, dialect=ctx.dialect)
        cleared = ctx.schema.cleared_values.get((sql.key, column.name))
        if risk is not None and risk.test == "length" and action.using is None and none_longer(cleared, risk.bound):
            risk = None  # a DELETE of the deploy took every row holding a longer value
        elif risk is None and ctx.dialect is Dialect.POSTGRES and (action.using is None or action.using_only_column):
            # a USING that computes values may map the labels that go: only a cast of the column is judged
            risk = labels_may_fail(column, action.base_type, ctx.schema.enum_labels, cleared)
        return [_cast_risk(risk, sql, column, action.type, ctx, using=action.using)] if risk else []
    if isinstance(action, AddColumn) and action.op in ("modify_column", "change_column") and column is not None:
        new = action.definition
        out = []
        shown = sql.shown((column.name,))
        if column.nullable and not new.nullable and not _no_null(column, sql, ctx):
            out.append(_null_risk(f"{action.op.split('_')[0].upper()} {shown} NOT NULL", sql, column.name))
        cleared = ctx.schema.cleared_values.get((sql.key, column.name))
        risk = may_fail(column, new.base_type, new.type_args, new.unsigned, dialect=ctx.dialect, cleared=cleared)
        if risk is not None:
            out.append(_cast_risk(risk, sql, column, new.type, ctx, what=f"MODIFY {shown} {new.type}"))
        return out
    return []


def _index_exists(op: CreateIndex, table: Table | None, ctx: Context) -> bool:
    """Whether CREATE INDEX IF NOT EXISTS finds its name taken, and so does nothing: on PostgreSQL
    by any relation of the table's schema, on MySQL and MariaDB by an index of the table."""
    name = op.index.name
    if not op.if_not_exists or not name:
        return False
    if ctx.dialect is Dialect.POSTGRES:
        return ctx.schema.relation_in_schema_of(op.on, name)
    return table is not None and any(i.name == name for i in table.indexes)


def _checks_enforced(ctx: Context) -> bool:
    since = _CHECKS_ENFORCED.get(ctx.server)
    return since is None or ctx.version >= since


def _no_null(column: Column | None, sql: _Sql, ctx: Context) -> bool:
    """Whether no row holds NULL in the column: an UPDATE filled every NULL, every row holds one
    constant there, or the deploy dropped its NOT NULL and nothing wrote the table since."""
    if column is None:
        return False
    return (
        column.backfilled
        or (sql.key, column.name) in ctx.schema.held_values
        or any(c.not_null == column.name for c in ctx.schema.dropped_checks.get(sql.key, ()))
    )


def _held_passes(check: Check, sql: _Sql, ctx: Context) -> bool:
    """Whether every row holds, in one column, a constant that makes the check true (a column the
    deploy added with `DEFAULT 'DISABLED'`, then `CHECK (status IN ('DISABLED', 'ENABLED'))`)."""
    held = ctx.schema.held_values
    return any(held.get((sql.key, column)) == value for column, value in check.passes_when)


def _null_risk(what: str, sql: _Sql, column: str) -> _Risk:
    return _Risk(
        what,
        f"a row holds NULL in {sql.shown((column,))}",
        "null",
        f"SELECT 1 FROM {sql.table} WHERE {sql.col(column)} IS NULL LIMIT 1",
    )


def _only_null(model: Table | None, columns: tuple[str, ...], sql: _Sql) -> bool:
    """Whether one of the columns holds only NULL (or is one the same statement adds with nothing to
    fill it): a key with a NULL in it is neither a duplicate nor checked against its parent."""
    if any(n in sql.added_null for n in columns):
        return True
    return model is not None and any((c := model.columns.get(n)) is not None and c.only_null for n in columns)


def _passes_over_null(model: Table | None, check: Check, sql: _Sql) -> bool:
    """Whether each column of one of the sets that make the check pass holds only NULL."""
    return any(all(_only_null(model, (n,), sql) for n in group) for group in check.null_passes)


def _added_null(stmt: Statement) -> frozenset[str]:
    """The columns an ALTER TABLE adds nullable with nothing to fill them: every row holds NULL."""
    out = []
    for a in stmt.actions:
        if isinstance(a, AddColumn) and a.op == "add_column" and not a.primary:
            c = a.definition
            empty = c.default is None or c.default.strip().upper() == "NULL"
            if c.nullable and empty and not (c.identity or c.serial or c.auto_increment or c.generated):
                out.append(c.name)
    return frozenset(out)


def _key_risks(index: Index, sql: _Sql, what: str, model: Table | None, ctx: Context) -> list[_Risk]:
    # NULLs are distinct in a unique key (a NULL in it collides with nothing) unless it says otherwise
    distinct = not index.primary and not sql.nulls_not_distinct()
    if not index.columns or distinct and _only_null(model, index.columns, sql):
        return []
    cols, shown = sql.terms(index.columns), sql.shown(index.columns)
    tests = [f"{sql.terms((n,))} IS NOT NULL" for n in index.columns] if distinct else []
    if index.partial:
        # only the rows the index holds can collide; without its WHERE, all of them (the safe side)
        predicate = sql.predicate()
        tests = ([f"({predicate})"] if predicate else []) + tests
    where = f" WHERE {' AND '.join(tests)}" if tests else ""
    out = []
    if not _proven_unique(index, model, distinct, ctx.schema.dropped_keys.get(sql.key, [])):
        out.append(
            _Risk(
                f"{what} ({shown})",
                f"two rows share one ({shown})",
                "duplicate",
                f"SELECT {cols}, count(*) FROM {sql.table}{where} GROUP BY {cols} HAVING count(*) > 1 LIMIT 1",
            )
        )
    nullable = [c for c in index.columns if model is None or (col := model.columns.get(c)) is None or col.nullable]
    if index.primary and nullable:
        holes = " OR ".join(f"{sql.col(c)} IS NULL" for c in nullable)
        out.append(
            _Risk(
                f"{what} ({shown})",
                f"a row holds NULL in {sql.shown(tuple(nullable))}",
                "null",
                f"SELECT 1 FROM {sql.table} WHERE {holes} LIMIT 1",
            )
        )
    return out


def _proven_unique(index: Index, model: Table | None, distinct: bool, dropped: list[Index]) -> bool:
    """Whether a key the table already has proves the new one holds no two rows alike: a primary
    key or unique index over some of its columns, whole (not partial, no expression) or partial
    with the new one's very WHERE, or one the deploy dropped with no write to the table since (a
    primary key replaced by a wider one). Two rows alike in the new key are alike in that one,
    which the server already refused. Where the new key counts NULLs as equal (NULLS NOT
    DISTINCT), the old key's columns must be NOT NULL too: there, two NULLs collide in the new key
    and not in the old."""
    if model is None:
        return False
    wanted = set(index.columns)
    for key in ([model.primary_key] if model.primary_key is not None else []) + model.unique_keys + dropped:
        columns = [model.columns.get(c) for c in key.columns]
        same_rows = not key.partial or bool(key.predicate) and key.predicate == index.predicate
        if not key.columns or not same_rows or None in columns or not set(key.columns) <= wanted:
            continue
        if distinct or index.primary or all(c is not None and not c.nullable for c in columns):
            return True
    return False


def _exclusion_risk(action: AddKey, sql: _Sql) -> _Risk:
    """ADD CONSTRAINT ... EXCLUDE: two rows whose elements all match under the constraint's
    operators conflict. The query joins the table to itself on those operators where each element
    is a column and each operator is known (a NULL matches nothing, as in the constraint; a partial
    constraint's WHERE limits both sides); else the advice stays plain."""
    index = action.index
    named = f" {sql.shown((index.name,))}" if index.name else ""
    shown = sql.shown(index.columns)
    query = ""
    simple = len(action.operators) == len(index.columns) and all(action.operators)
    if simple and index.columns and not any(sql.expression(c) for c in index.columns):
        on = " AND ".join(
            f"a.{sql.col(c)} {f'OPERATOR({op})' if '.' in op else op} b.{sql.col(c)}"
            for c, op in zip(index.columns, action.operators, strict=True)
        )
        predicate = sql.predicate()
        side = f"(SELECT ctid, * FROM {sql.table} WHERE {predicate})" if predicate else sql.table
        query = f"SELECT a.ctid, b.ctid FROM {side} a JOIN {side} b ON a.ctid < b.ctid AND {on} LIMIT 1"
    return _Risk(f"ADD EXCLUDE{named} ({shown})", f"two rows conflict on ({shown})", "exclusion", query)


def _check_risk(check: Check, sql: _Sql, what: str) -> _Risk:
    named = f" {sql.shown((check.name,))}" if check.name else ""
    query = f"SELECT * FROM {sql.table} WHERE NOT ({check.expression}) LIMIT 1" if check.expression else ""
    return _Risk(f"{what}{named}", "a row breaks the check", "check", query)


def _foreign_key_risk(key: ForeignKey, sql: _Sql, what: str, ctx: Context) -> _Risk:
    ref_cols = ctx.schema.referenced_columns(key)
    query = ""
    if ref_cols and len(ref_cols) == len(key.columns):
        on = " AND ".join(f"p.{sql.col(r)} = c.{sql.col(c)}" for c, r in zip(key.columns, ref_cols, strict=True))
        filled = " AND ".join(f"c.{sql.col(c)} IS NOT NULL" for c in key.columns)
        query = (
            f"SELECT {', '.join('c.' + sql.col(c) for c in key.columns)} FROM {sql.table} c "
            f"LEFT JOIN {sql.relation(key.references)} p ON {on} WHERE {filled} AND p.{sql.col(ref_cols[0])} IS NULL LIMIT 1"
        )
    named = f" {sql.shown((key.name,))}" if key.name else ""
    shown = sql.shown(key.columns)
    return _Risk(
        f"{what}{named} ({shown})",
        f"a row's ({shown}) is missing from {written(key.references, sql.dialect)}",
        "foreign_key",
        query,
    )


def _foreign_key_holds(key: ForeignKey, table: str, model: Table | None, ctx: Context) -> bool:
    """Whether the rows already satisfy the key: the table has it, validated (its columns
    referencing the same columns), or this deploy dropped it and no statement since changed the
    rows or the key columns of either table (a key dropped and added back to change ON DELETE)."""
    known = [*(model.foreign_keys if model is not None else ()), *ctx.schema.dropped_foreign_keys.get(table, ())]
    want = ctx.schema.referenced_columns(key)
    return _filled_from_key(key, table, want, ctx) or any(
        k.validated and k.enforced and (k.columns, k.references) == (key.columns, key.references)
        for k in known
        if ctx.schema.referenced_columns(k) == want
    )


def _filled_from_key(key: ForeignKey, table: str, want: tuple[str, ...], ctx: Context) -> bool:
    """Whether an UPDATE of this deploy filled the key's one column from the key it references, or
    from a column whose validated foreign key references that same key (and nothing wrote either
    table since): every value it holds is one the referenced table has."""
    if len(key.columns) != 1 or len(want) != 1:
        return False
    fill = ctx.schema.filled_from.get((table, key.columns[0]))
    if fill is None:
        return False
    relation, column, _ = fill
    if (relation, column) == (key.references, want[0]):
        return True
    source = ctx.schema.tables.get(relation)
    return source is not None and any(
        fk.validated and fk.enforced and fk.columns == (column,) and fk.references == key.references
        for fk in source.foreign_keys
        if ctx.schema.referenced_columns(fk) == want
    )


def _implied(check: Check, model: Table | None, dropped: list[Check]) -> bool:
    """Whether a check every row already passes implies the new one: one of the table's validated
    checks, or one the deploy dropped with no write to the table since (a list of allowed values
    dropped and added again with one more), with the same expression, or holding the same column
    to some of the new one's constants. A row passing it has NULL there (the new check is NULL
    too: it passes) or one of its constants, which the new check allows."""
    kept = [c for c in model.checks if c.validated and c.enforced and not c.not_null] if model is not None else []
    words = " ".join(check.expression.split())
    for old in [*kept, *dropped]:
        if words and " ".join(old.expression.split()) == words:
            return True
        if check.allows and old.allows[:1] == check.allows[:1] and set(old.allows[1:]) <= set(check.allows[1:]):
            return True
    return False


def _validate_risks(name: str | None, sql: _Sql, model: Table | None, ctx: Context) -> list[_Risk]:
    what = f"VALIDATE CONSTRAINT {sql.shown((name,)) if name else name}"
    if model is not None and name:
        check = next((c for c in model.checks if c.name == name), None)
        if check is not None:
            if check.not_null:
                return [_null_risk(what, sql, check.not_null)]
            if _passes_over_null(model, check, sql) or _held_passes(check, sql, ctx):
                return []
            return [_Risk(what, "a row breaks the check", "check", _check_risk(check, sql, "").query)]
        key = next((k for k in model.foreign_keys if k.name == name), None)
        # as when the key is added valid: a NULL in its columns is not checked against the parent
        if key is not None and (_only_null(model, key.columns, sql) or _foreign_key_holds(key, sql.key, model, ctx)):
            return []
        if key is not None:
            risk = _foreign_key_risk(key, sql, "", ctx)
            return [_Risk(what, risk.bad, "foreign_key", risk.query)]
    return [_Risk(what, "a row breaks the constraint", "check", "")]


def _cast_risk(
    risk: CastRisk, sql: _Sql, column: Column, type_: str, ctx: Context, what: str = "", using: str | None = ""
) -> _Risk:
    c = sql.col(column.name)
    postgres = ctx.dialect is Dialect.POSTGRES
    tests = {
        "length": f"{'length' if risk.unit == 'bytes' else 'char_length'}({c}) > {risk.bound}",
        "range": f"{c} NOT BETWEEN {risk.low} AND {risk.high}",
        "digits": f"abs({c}) >= 1e{risk.bound}",
        "members": f"{c}{'::text' if postgres else ''} NOT IN ({risk.members})",
    }
    if risk.test in tests:
        query = f"SELECT {c} FROM {sql.table} WHERE {tests[risk.test]} LIMIT 1"
    elif postgres:
        # the cast itself (the statement's USING, when it has one) errs on the first bad value, and locks nothing
        query = f"SELECT {using or f'{c}::{type_}'} FROM {sql.table}"
    elif _family_of(type_) == "integer":
        query = f"SELECT {c} FROM {sql.table} WHERE {c} NOT REGEXP '^[+-]?[0-9]+$' LIMIT 1"
    else:
        query = ""
    bad = f"a row holds {risk.why}"
    if postgres and risk.test == "parse" and using is None:
        # no assignment cast from text: the server wants USING before it reads a row
        bad += f", and with no USING {c}::{type_} it fails whatever the rows hold (42804)"
    return _Risk(what or f"ALTER COLUMN {sql.shown((column.name,))} TYPE {type_}", bad, risk.test, query)


def _family_of(type_: str) -> str:
    """The family of a type as written (MySQL `INT UNSIGNED`, `varchar(20)`)."""
    return family(type_.split("(")[0].split()[0].lower()) if type_.strip() else ""
