"""prefer-jsonb: json columns on PostgreSQL (a preference)."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.rules.declared_types import declared_types


class PreferJsonb(Rule):
    """Column declared json on PostgreSQL.

    ## What it does
    Flags a `json` column (or `json[]`) that a `CREATE TABLE`, `ADD COLUMN` or
    `ALTER COLUMN ... TYPE` declares on PostgreSQL. A preference: it runs only when selected.

    ## Why is this bad?
    `json` has no equality operator, so whatever compares whole values fails on it: `SELECT
    DISTINCT`, `GROUP BY` and `UNION` (without `ALL`) stop with `could not identify an equality
    operator for type json`, `=` with `operator does not exist`, and a unique index or primary key
    on it is refused (the suite checks each on PostgreSQL). The same queries work on `jsonb`. The manual adds that `json` keeps the input text, reparsed on every use,
    while `jsonb` is faster to process and can be indexed. Keep `json` only where the exact text
    matters: key order, duplicate keys, white space.

    ## Example
    ```sql postgres
    CREATE TABLE webhooks (id bigint PRIMARY KEY, payload json NOT NULL);
    ```

    ## Use instead
    ```sql postgres
    CREATE TABLE webhooks (id bigint PRIMARY KEY, payload jsonb NOT NULL);
    ```

    ## References
    - [PostgreSQL: JSON Types](https://www.postgresql.org/docs/current/datatype-json.html)
    """

    code = "SC207"
    name = "prefer-jsonb"
    family = "preferences"
    summary = "Column {table}.{column} is json: DISTINCT, GROUP BY and UNION fail on it (no equality operator)"
    default_severity = Severity.WARNING
    dialects = frozenset({"postgres"})
    evidence = ("pg-doc-json-types",)
    evidence_note = "A type preference: documented behaviour, and a query failure the suite checks; no cost to measure."

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        for col in declared_types(stmt):
            if col.base_type != "json":
                continue
            yield self.finding(
                stmt.location,
                table=col.table,
                column=col.column,
                suggestion="declare it jsonb, unless the exact input text (key order, duplicate keys) must be kept",
                dialect=ctx.dialect,
                identity=col.column,
            )
