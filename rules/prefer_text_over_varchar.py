"""prefer-text-over-varchar: varchar(n) columns on PostgreSQL (a preference)."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.rules.declared_types import declared_types


class PreferTextOverVarchar(Rule):
    """Column declared varchar(n) on PostgreSQL.

    ## What it does
    Flags a `varchar(n)` (`character varying(n)`) column that a `CREATE TABLE`, `ADD COLUMN` or
    `ALTER COLUMN ... TYPE` declares on PostgreSQL. `varchar` without a length is `text` under
    another name and is not flagged. A preference: it runs only when selected.

    ## Why is this bad?
    It is not slower: on PostgreSQL `varchar(n)` is `text` with a length check, and the manual
    says the three string types perform alike. Nor does raising the limit rewrite the table:
    widening a `varchar` is binary coercible, so PostgreSQL leaves the rows where they are (the
    suite checks the table keeps its file), although `ALTER COLUMN ... TYPE` still takes ACCESS
    EXCLUSIVE briefly and fails while a view reads the column. The usual argument (squawk's
    `prefer-text-field`: a rewrite to change the limit) is therefore weaker than it sounds.

    Turn it on for one string type everywhere and limits stated as constraints: a
    `CHECK (length(col) <= n)` has a name, can be lowered with `ADD CONSTRAINT ... NOT VALID`
    and `VALIDATE CONSTRAINT` (no ACCESS EXCLUSIVE while rows are checked), and changes
    without touching views that read the column; lowering a `varchar(n)` limit rewrites the table.

    ## Example
    ```sql postgres
    CREATE TABLE users (id bigint PRIMARY KEY, email varchar(255) NOT NULL);
    ```

    ## Use instead
    ```sql postgres
    CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL CONSTRAINT email_length CHECK (length(email) <= 255));
    ```

    ## References
    - [PostgreSQL: Character Types](https://www.postgresql.org/docs/current/datatype-character.html)
    - [PostgreSQL: ALTER TABLE, Notes (which type changes rewrite)](https://www.postgresql.org/docs/current/sql-altertable.html#SQL-ALTERTABLE-NOTES)
    - [PostgreSQL wiki: Don't Do This, Don't use varchar(n) by default](https://wiki.postgresql.org/wiki/Don't_Do_This#Don.27t_use_varchar.28n.29_by_default)
    """

    code = "SC202"
    name = "prefer-text-over-varchar"
    family = "preferences"
    summary = "Column {table}.{column} is varchar({n}); the limit lives in the type instead of a named CHECK"
    default_severity = Severity.WARNING
    dialects = frozenset({"postgres"})
    evidence = ("pg-doc-character-types", "pg10-doc-alter-table-rewrite")
    evidence_note = "A type preference: documented behaviour of the type, no cost to measure."

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        for col in declared_types(stmt):
            if col.base_type != "varchar" or not col.type_args:
                continue
            yield self.finding(
                stmt.location,
                table=col.table,
                column=col.column,
                n=col.type_args,
                suggestion=f"declare it text with CHECK (length({col.column}) <= {col.type_args}); "
                "raising a varchar limit needs no rewrite, lowering one does",
                dialect=ctx.dialect,
                identity=col.column,
            )
