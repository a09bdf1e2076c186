"""type-change-visible-to-clients: a column's type changes to one its readers get other values from."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model import Column
from schemacite.model.dialects import Dialect
from schemacite.model.fixes import Applicability, Fix
from schemacite.model.statements import Action, AddColumn, AlterColumnType, Statement
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.rules.running_release import NOTHING_TO_MEASURE, used_column
from schemacite.sources.names import in_sql, relation_in_sql

# what a client's driver hands back for a type, by the readers' normalised base type; a change
# within one kind (int to bigint, varchar to text, json to jsonb) reads the same, and a type not
# listed (arrays, enums and other user-defined types) is never judged
_KINDS = {
    Dialect.POSTGRES: {
        **dict.fromkeys(("int2", "int4", "int8"), "integer"),
        "numeric": "decimal",
        **dict.fromkeys(("float4", "float8"), "floating-point"),
        **dict.fromkeys(("varchar", "bpchar", "text", "citext"), "text"),
        "bool": "boolean",
        "date": "date",
        "timestamp": "timestamp without time zone",
        "timestamptz": "timestamp with time zone",
        "time": "time without time zone",
        "timetz": "time with time zone",
        "uuid": "uuid",
        "bytea": "binary",
    },
    Dialect.MYSQL: {
        **dict.fromkeys(("tinyint", "smallint", "mediumint", "int", "bigint"), "integer"),
        "decimal": "decimal",
        **dict.fromkeys(("float", "double"), "floating-point"),
        **dict.fromkeys(("char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set"), "text"),
        "date": "date",
        # TIMESTAMP and DATETIME print alike; TIMESTAMP converts through the session's time zone
        **dict.fromkeys(("datetime", "timestamp"), "timestamp"),
        "time": "time",
        **dict.fromkeys(("binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"), "binary"),
    },
}
# kinds read alike enough that old code keeps working: an integer widened to a decimal of scale 0
# prints the same digits (json, left out above, is a string to Go's database/sql and JDBC's getString)
_ALIKE = {frozenset({"integer", "decimal"})}


def kinds(dialect: Dialect) -> dict[str, str]:
    return _KINDS[Dialect.POSTGRES if dialect == Dialect.POSTGRES else Dialect.MYSQL]


def new_type(action: Action) -> tuple[str, str, str] | None:
    """(type as written, base type, arguments) an ALTER COLUMN TYPE, MODIFY or CHANGE gives."""
    if isinstance(action, AlterColumnType):
        return action.type, action.base_type, action.type_args
    if isinstance(action, AddColumn) and action.op in ("modify_column", "change_column"):
        d = action.definition
        return d.type, d.base_type, d.type_args
    return None


def scale(base: str, args: str, dialect: Dialect) -> int | None:
    """The decimal places a DECIMAL/NUMERIC prints; None when the type leaves them to each value."""
    parts = [a for a in args.split(",") if a.strip()]
    if len(parts) == 2 and parts[1].strip().isdigit():
        return int(parts[1])
    if len(parts) == 1 or dialect != Dialect.POSTGRES:
        return 0  # numeric(p), and MySQL's DECIMAL and DECIMAL(M), have no decimals
    return None  # PostgreSQL's numeric with no arguments keeps each value's own scale


class TypeChangeVisibleToClients(Rule):
    """Column type changed to one the previous release reads other values from.

    ## What it does
    Flags `ALTER COLUMN ... TYPE` (PostgreSQL) and `MODIFY` / `CHANGE` (MySQL, MariaDB) of a
    column of a table that existed before the deploy when the new type hands clients another
    kind of value: a number becomes text or text a number, a timestamp gains or loses its time
    zone, a date becomes a timestamp, a boolean something else (warning); or a DECIMAL/NUMERIC
    keeps its kind but prints a different number of decimals, `12.50` becoming `12.5000`
    (info). Changes within a kind (int to bigint, varchar(50) to text, json to jsonb, a higher
    precision with the same scale) and types it does not know (arrays, enums, domains) are not
    flagged; neither is a column the deploy added.

    `DROP NOT NULL`, and a `MODIFY` that leaves NOT NULL out, are not flagged here: the type
    reads the same, and drop-not-null (SC133) is the rule for the NULLs new code may then write.

    ## Why is this bad?
    During a rolling deploy the previous release keeps serving while the migration runs, and
    its code was written for the old values: a driver that returned an `int` returns a `str`,
    PostgreSQL's `timestamptz` comes back with an offset (Python's psycopg then hands out aware
    datetimes that refuse comparison with naive ones), a number prints with more decimals.
    Its writes can fail too (`invalid input syntax for type integer` after text becomes int).
    Whether it breaks depends on the code, so this is a warning to check, not a certainty.
    On PostgreSQL, `timestamp` to `timestamptz` also reads the stored values in the session's
    `TimeZone`: set it to the zone the application wrote them in.

    ## Fix
    A display-only template: a column of the new type beside the old one, written by both
    releases, backfilled, and the old one dropped once no release reads it.

    ## Example
    ```sql postgres
    ALTER TABLE orders ALTER COLUMN customer_id TYPE text;
    ```

    ## Use instead
    ```sql postgres
    ALTER TABLE orders ADD COLUMN customer_ref text;
    -- release N writes both columns; backfill customer_ref in batches;
    -- release N+1 reads customer_ref; a later release drops customer_id
    ```

    ## References
    - [django-migration-linter: Altering a column](https://github.com/3YOURMIND/django-migration-linter/blob/main/docs/incompatibilities.md)
    - [PostgreSQL: Date/Time Types, time zones](https://www.postgresql.org/docs/current/datatype-datetime.html#DATATYPE-TIMEZONES)
    - [PostgreSQL: ALTER TABLE, SET DATA TYPE](https://www.postgresql.org/docs/current/sql-altertable.html)
    - [MySQL: ALTER TABLE, changing column types](https://dev.mysql.com/doc/refman/8.4/en/alter-table.html#alter-table-redefine-column)
    """

    code = "SC118"
    name = "type-change-visible-to-clients"
    summary = "Column {table}.{column} changes from {old} to {new}: the release still running {what}"
    family = "breaks-running-code"
    status = "preview"  # runs only when selected, until a sample of its findings on unseen projects holds no false one
    statement_kinds = frozenset({"alter_table"})
    evidence = ("django-migration-linter-incompatibilities",)
    evidence_note = NOTHING_TO_MEASURE

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        known = kinds(ctx.dialect)
        changed = []  # (column, written type, what the old release reads differently, severity)
        for action in stmt.actions:
            typed = new_type(action)
            if typed is None or action.op == "add_column":
                continue
            old_name = action.old_name if isinstance(action, AddColumn) else action.column
            column = used_column(ctx.schema, stmt.table, old_name)
            if column is None or not column.base_type or (stmt.if_exists and stmt.table not in ctx.schema.tables):
                continue
            written, base, args = typed
            what, severity = self.judge(column, base, args, known, ctx.dialect)
            if what:
                changed.append((column, written or base, what, severity))
        if not changed:
            return
        # one statement changing several columns is one risk: one finding naming them all
        (column, new, what, _), more = changed[0], changed[1:]
        also = "".join(
            f"; and column {stmt.table}.{c.name} changes from {c.type or c.base_type} to {n}: it {w}"
            for c, n, w, _ in more
        )
        finding = self.finding(
            stmt.location,
            table=stmt.table,
            sql=stmt.sql,
            severity=max(s for *_, s in changed),
            identity=",".join(c.name for c, *_ in changed),
            column=column.name,
            old=column.type or column.base_type,
            new=new,
            what=what + also,
            suggestion=(
                "check that the code still running reads the new values; otherwise add a column of the new "
                "type, write both, backfill, move reads, and drop the old one in a later release"
            ),
        )
        table = relation_in_sql(stmt.table or "", ctx.dialect, stmt.sql)

        def col(name: str) -> str:
            return in_sql(name, ctx.dialect, stmt.sql)

        adds = "\n".join(f"ALTER TABLE {table} ADD COLUMN {col(c.name + '_new')} {n};" for c, n, *_ in changed)
        names = ", ".join(c.name for c, *_ in changed)
        news = ", ".join(f"{c.name}_new" for c, *_ in changed)
        drops = ", ".join(f"DROP COLUMN {col(c.name)}" for c, *_ in changed)
        finding.fix = Fix(
            "a column of the new type beside the old one",
            Applicability.DISPLAY_ONLY,
            template=(
                f"{adds}\n"
                f"-- release N writes {names} and {news}; backfill {news} in batches\n"
                f"-- release N+1 reads {news} only; then, once no older release runs:\n"
                f"ALTER TABLE {table} {drops};"
            ),
        )
        yield finding

    def judge(
        self, column: Column, base: str, args: str, known: dict[str, str], dialect: Dialect
    ) -> tuple[str, Severity]:
        """What the old release reads differently, and how sure that is to matter ("" when nothing)."""
        was, becomes = known.get(column.base_type), known.get(base)
        if was is None or becomes is None:
            return "", self.severity
        if was != becomes:
            if frozenset({was, becomes}) in _ALIKE:
                return "", self.severity
            return f"reads {becomes} values where it read {was} ones", self.severity
        if was == "decimal":
            before, after = scale(column.base_type, column.type_args, dialect), scale(base, args, dialect)
            if before is not None and after is not None and before != after:
                return f"reads numbers printed with {after} decimals instead of {before}", Severity.INFO
        return "", self.severity
