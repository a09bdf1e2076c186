"""require-schema-qualified-names: DDL naming relations without their schema (a preference)."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.statements import CreateTable, CreateTableAs, CreateView, Op, Statement
from schemacite.rule import Context, Finding, Rule, Severity

# statements that create, change or drop tables, indexes, views and sequences
_DDL = frozenset(
    {
        "create_table",
        "create_table_as",
        "create_partition",
        "create_table_like",
        "alter_table",
        "drop_table",
        "create_index",
        "drop_index",
        "alter_index",
        "create_view",
        "create_matview",
        "alter_view",
        "drop_view",
        "create_sequence",
        "alter_sequence",
        "drop_sequence",
    }
)
# how a message names the kinds whose words differ from their key
_SAID = {
    "create_table_as": "CREATE TABLE ... AS",
    "create_partition": "CREATE TABLE ... PARTITION OF",
    "create_table_like": "CREATE TABLE ... LIKE",
    "create_matview": "CREATE MATERIALIZED VIEW",
}


class RequireSchemaQualifiedNames(Rule):
    """DDL names a table, index, view or sequence without its schema.

    ## What it does
    Flags a `CREATE`, `ALTER` or `DROP` of a table, index, view or sequence on PostgreSQL that
    names a relation without a schema (`orders` rather than `public.orders`), including the
    tables it references or attaches. Temporary tables, which always live in the session's own
    schema, are not flagged. A preference: it runs only when selected.

    ## Why is this bad?
    PostgreSQL looks an unqualified name up along the session's `search_path`, and its manual says
    a `CREATE` of one makes the object in the path's first schema. The same migration then acts on different tables depending on
    who runs it: a role whose name is a schema (`"$user"` comes first in the default path), a
    runner or connection string that sets `search_path`, or a `SET search_path` earlier in the
    file. Turn it on for databases with several schemas, or where migrations run under roles
    whose `search_path` you do not control.

    ## Example
    ```sql postgres
    CREATE TABLE invoices (id bigint PRIMARY KEY, total numeric(12, 2) NOT NULL);
    ```

    ## Use instead
    ```sql postgres
    CREATE TABLE public.invoices (id bigint PRIMARY KEY, total numeric(12, 2) NOT NULL);
    ```

    ## References
    - [PostgreSQL: CREATE SCHEMA](https://www.postgresql.org/docs/current/sql-createschema.html)
    - [PostgreSQL: Schemas, The Schema Search Path](https://www.postgresql.org/docs/current/ddl-schemas.html#DDL-SCHEMAS-PATH)
    - [PostgreSQL: search_path](https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-SEARCH-PATH)
    """

    code = "SC205"
    name = "require-schema-qualified-names"
    family = "preferences"
    summary = "{what} names {names} without a schema: which relation it means depends on search_path"
    default_severity = Severity.WARNING
    dialects = frozenset({"postgres"})
    statement_kinds = _DDL
    evidence = ("pg-doc-create-schema-unqualified-names",)
    evidence_note = "A naming preference: documented behaviour of search_path, no cost to measure."

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        op = stmt.op
        if isinstance(op, CreateTable) and op.model.temporary:
            return
        table = ctx.schema.table(op.table) if op.table else None
        if table is not None and table.temporary:
            return
        names = [n for n in _named(op) if n in stmt.unqualified]
        if not names:
            return
        shown = ", ".join(names)
        yield self.finding(
            stmt.location,
            table=op.table,
            what=_SAID.get(stmt.kind, stmt.kind.replace("_", " ").upper()),
            names=shown,
            suggestion=f"qualify {shown} with its schema (public.{names[0]} if that is where it lives)",
            dialect=ctx.dialect,
        )


def _named(op: Op) -> list[str]:
    """The relations a DDL statement acts on by name; not those the query of a view or CREATE TABLE
    ... AS reads, whose names PostgreSQL resolves once, when it runs."""
    if isinstance(op, (CreateTableAs, CreateView)):
        own = [op.table or op.target]
    else:
        own = [*op.relations(), op.target]
    return list(dict.fromkeys(n for n in own if n))
