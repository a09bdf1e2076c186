"""prefer-identity: serial columns on PostgreSQL (a preference)."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.rules.declared_types import declared_types

_IDENTITY_TYPE = {"int2": "smallint", "int4": "integer", "int8": "bigint"}


class PreferIdentity(Rule):
    """Column declared serial, bigserial or smallserial on PostgreSQL.

    ## What it does
    Flags a `serial`, `bigserial` or `smallserial` column that a `CREATE TABLE` or `ADD COLUMN`
    declares on PostgreSQL (every target schemacite supports has identity columns, added in
    PostgreSQL 10). A preference: it runs only when selected.

    ## Why is this bad?
    A serial column is an integer with a `nextval()` default on a sequence created beside it as
    an object of its own. Another role needs `USAGE` on that sequence as well as `INSERT` on the
    table before it can add rows, and an `INSERT` that writes the column itself leaves the sequence
    behind, so a later default value collides with it. An identity column (SQL standard) ties
    the sequence to the column: no separate grant, and `GENERATED ALWAYS` refuses values written
    by hand unless the statement says `OVERRIDING SYSTEM VALUE`. Turn it on for new tables; changing
    an existing serial column is a catalog change (drop the default, `ADD GENERATED ... AS
    IDENTITY`, restart it past the current maximum), not a rewrite.

    ## Example
    ```sql postgres
    CREATE TABLE invoices (id bigserial PRIMARY KEY, total numeric(12, 2) NOT NULL);
    ```

    ## Use instead
    ```sql postgres
    CREATE TABLE invoices (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, total numeric(12, 2) NOT NULL);
    ```

    ## References
    - [PostgreSQL: CREATE TABLE, GENERATED ... AS IDENTITY](https://www.postgresql.org/docs/current/sql-createtable.html)
    - [PostgreSQL: Serial Types](https://www.postgresql.org/docs/current/datatype-numeric.html#DATATYPE-SERIAL)
    - [PostgreSQL wiki: Don't Do This, Don't use serial](https://wiki.postgresql.org/wiki/Don't_Do_This#Don.27t_use_serial)
    """

    code = "SC204"
    name = "prefer-identity"
    family = "preferences"
    summary = "Column {table}.{column} is serial: its sequence is a separate object with its own grants"
    default_severity = Severity.WARNING
    dialects = frozenset({"postgres"})
    evidence_note = "A schema-management preference: documented behaviour, no cost to measure."

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        for col in declared_types(stmt):
            if not col.serial:
                continue
            integer = _IDENTITY_TYPE.get(col.base_type, col.base_type)
            yield self.finding(
                stmt.location,
                table=col.table,
                column=col.column,
                suggestion=f"declare it {integer} GENERATED ALWAYS AS IDENTITY (or BY DEFAULT, if code writes ids itself)",
                dialect=ctx.dialect,
                identity=col.column,
            )
