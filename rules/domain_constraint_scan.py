"""domain-constraint-scan: a domain constraint checked over every table that uses the domain."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.listing import first_of
from schemacite.model.statements import AlterDomain, Statement
from schemacite.rule import Context, Finding, Rule, Severity

SHOWN = 3  # tables named in a message; the rest are counted


class DomainConstraintScan(Rule):
    """Domain constraint checked over every table that uses the domain, blocking writes.

    ## What it does
    Flags `ALTER DOMAIN ... ADD CONSTRAINT` (without `NOT VALID`), `ALTER DOMAIN ... SET NOT
    NULL` and `ALTER DOMAIN ... VALIDATE CONSTRAINT` when tables that exist before the change
    have columns of that domain, and names those tables from the replayed schema; also when the
    history never shows the domain created (it is older than the history, so the tables using it
    are unknown). A domain created in the history or the same deploy with no column of an older
    table is left alone.

    ## Why is this bad?
    PostgreSQL checks the constraint against every stored value of every column of the domain,
    holding a SHARE lock on each of those tables while it reads them all: writes to them wait
    until the statement (and the transaction it runs in) ends. Unlike a table's
    `VALIDATE CONSTRAINT`, which takes SHARE UPDATE EXCLUSIVE, a domain's `VALIDATE CONSTRAINT`
    takes the same SHARE lock on PostgreSQL 12 to 18, so `NOT VALID` followed by `VALIDATE` only
    moves the scan: the `ADD ... NOT VALID` returns at once and checks new values from then on,
    and the later `VALIDATE` still blocks writes while it reads the tables.

    ## Example
    ```sql postgres
    -- order_lines.qty is of domain quantity
    ALTER DOMAIN quantity ADD CONSTRAINT quantity_positive CHECK (VALUE > 0);
    ```

    ## Use instead
    ```sql postgres
    ALTER DOMAIN quantity ADD CONSTRAINT quantity_positive CHECK (VALUE > 0) NOT VALID;
    -- then, when writes may wait for the scan, with a lock_timeout:
    -- ALTER DOMAIN quantity VALIDATE CONSTRAINT quantity_positive;
    ```
    To check the stored rows without blocking writes, give each table a `CHECK ... NOT VALID`
    constraint and `VALIDATE` it (`ALTER TABLE ... VALIDATE CONSTRAINT` takes SHARE UPDATE
    EXCLUSIVE).

    ## References
    - [PostgreSQL: ALTER DOMAIN](https://www.postgresql.org/docs/current/sql-alterdomain.html)
    - [PostgreSQL: Table-Level Locks](https://www.postgresql.org/docs/current/explicit-locking.html#LOCKING-TABLES)
    """

    code = "SC129"
    name = "domain-constraint-scan"
    family = "locks"
    status = "preview"  # runs only when selected, until a sample of its findings on unseen projects holds no false one
    summary = "{what} checks every value of {columns} under a SHARE lock that blocks writes to {tables}"
    default_severity = Severity.WARNING
    dialects = frozenset({"postgres"})
    statement_kinds = frozenset({"alter_domain"})
    evidence = ("pg-doc-alter-domain-add-constraint",)
    evidence_note = (
        "The SHARE lock on each table using the domain, for ADD CONSTRAINT, SET NOT NULL and VALIDATE "
        "CONSTRAINT alike, is checked on PostgreSQL 12 and 18 by the suite's tests; how long it lasts "
        "follows the tables' size, not measured here."
    )

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        op = stmt.op
        if not isinstance(op, AlterDomain) or op.action == "other" or (op.action == "add_constraint" and op.not_valid):
            return
        used = [(t, c) for t, c in ctx.schema.columns_of_type(op.name) if not t.new]
        if used:
            tables = list(dict.fromkeys(t.qualified_name for t, _ in used))
            shown = first_of(tables, SHOWN)
            columns = ", ".join(f"{t.qualified_name}.{c.name}" for t, c in used[:SHOWN])
            if len(used) > SHOWN:
                columns += f" and {len(used) - SHOWN} more columns"
        elif op.name not in ctx.schema.domains:  # made before the history begins: its columns are unknown
            tables, shown = [None], "every table with a column of it (the history shows none)"
            columns = f"every column of domain {op.name}"
        else:
            return
        what = {
            "add_constraint": f"ALTER DOMAIN {op.name} ADD CONSTRAINT",
            "set_not_null": f"ALTER DOMAIN {op.name} SET NOT NULL",
            "validate": f"ALTER DOMAIN {op.name} VALIDATE CONSTRAINT {op.constraint or ''}".rstrip(),
        }[op.action]
        if op.action == "validate":
            suggestion = (
                "a domain's VALIDATE blocks writes too: run it when writes may wait for the scan, with a "
                "lock_timeout, or validate a NOT VALID CHECK on each table instead (it lets writes through)"
            )
        elif op.action == "set_not_null":
            suggestion = (
                "add CHECK (VALUE IS NOT NULL) NOT VALID instead and VALIDATE CONSTRAINT it later, when writes "
                "may wait for the scan; or validate a NOT VALID CHECK on each table, which lets writes through"
            )
        else:
            suggestion = (
                "add it NOT VALID (new values are checked at once) and VALIDATE CONSTRAINT later, when writes "
                "may wait for the scan; or validate a NOT VALID CHECK on each table, which lets writes through"
            )
        yield self.finding(
            stmt.location,
            table=tables[0],
            sql=stmt.sql,
            what=what,
            columns=columns,
            tables=shown,
            suggestion=suggestion,
        )
