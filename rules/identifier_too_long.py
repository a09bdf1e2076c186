"""identifier-too-long: names longer than the server keeps."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model import Schema
from schemacite.model.statements import (
    AddCheck,
    AddColumn,
    AddForeignKey,
    AddKey,
    AlterIndex,
    AlterTable,
    CreateIndex,
    CreateSequence,
    CreateTable,
    CreateTableLike,
    CreateView,
    Op,
    Rename,
    RenameTable,
    Statement,
)
from schemacite.rule import Context, Finding, Rule, Severity

MYSQL_NAME_CHARS = 64  # MySQL and MariaDB refuse a longer table, column, index or constraint name
# names that share one namespace with tables, per schema (PostgreSQL): a second one truncating
# alike is refused as existing
RELATIONS = frozenset({"table", "index", "view", "sequence"})


class IdentifierTooLong(Rule):
    """Name longer than the server keeps.

    ## What it does
    Flags a table, column, index, constraint, view or sequence name written in a statement that
    is longer than the server allows: over 63 bytes on PostgreSQL (a multibyte character counts
    each of its bytes), over 64 characters on MySQL and MariaDB. Names the server makes up itself
    (`orders_pkey`, `orders_ibfk_1`) are not flagged.

    ## Why is this bad?
    PostgreSQL truncates the name to 63 bytes with only a NOTICE: the catalog holds a name the
    migration does not show, so a tool or query that looks the object up by the name as written
    finds nothing. Two names that truncate alike collide: the second `CREATE` is refused as
    existing (or skipped, with `IF NOT EXISTS`), and that is reported as an error. MySQL and
    MariaDB do not truncate: they refuse the statement (error 1059, 1103 for a table name).

    ## Example
    ```sql postgres
    CREATE INDEX orders_customer_id_created_at_status_including_the_archived_ones_idx ON orders (customer_id);
    ```

    ## Use instead
    ```sql postgres
    CREATE INDEX orders_customer_created_status_idx ON orders (customer_id);
    ```

    ## References
    - [PostgreSQL: Identifiers and Key Words](https://www.postgresql.org/docs/current/sql-syntax-lexical.html#SQL-SYNTAX-IDENTIFIERS)
    - [MySQL: Identifier Length Limits](https://dev.mysql.com/doc/refman/8.4/en/identifier-length.html)
    """

    code = "SC126"
    name = "identifier-too-long"
    family = "silent-changes"
    status = "preview"  # runs only when selected, until a sample of its findings on unseen projects holds no false one
    summary = "{message}"
    default_severity = Severity.WARNING
    evidence = ("pg-doc-identifier-length", "mysql-doc-identifier-length")
    evidence_note = (
        "Documented limits; PostgreSQL's truncation and collision and MariaDB's refusal are checked on "
        "the real servers by the suite's tests."
    )

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        names = defined_names(stmt.op)
        if not names:
            return
        if ctx.dialect.is_mysql_family:
            for what, name in names:
                if len(name) > MYSQL_NAME_CHARS:
                    yield self._finding(
                        stmt,
                        Severity.ERROR,
                        f"{what.capitalize()} name {_short(name)} is {len(name)} characters: the server refuses "
                        f"names over {MYSQL_NAME_CHARS} (error {1103 if what == 'table' else 1059})",
                        f"shorten it to {MYSQL_NAME_CHARS} characters or fewer",
                    )
            return
        referred = _referred(stmt.op)
        space = _schema_of(stmt)
        for what, kept in dict.fromkeys(names):
            # the parser already cut them: every name written that it kept as `kept`, less one the
            # statement only refers to (`CREATE INDEX <long>_idx ON <long>`), which it gives nothing
            written = list(dict.fromkeys(w for k, w in stmt.long_names if k == kept))
            if not written:
                continue
            name = written[0]
            if len(written) - (kept in referred) > 1:
                yield self._finding(
                    stmt,
                    Severity.ERROR,
                    f"{what.capitalize()} names {_short(written[0])} and {_short(written[1])} are cut to the same "
                    "63 bytes: PostgreSQL refuses the second as existing",
                    "shorten them so that they differ in their first 63 bytes",
                )
            elif what in RELATIONS and not _if_not_exists(stmt.op) and _existing_relation(ctx.schema, kept, space):
                yield self._finding(
                    stmt,
                    Severity.ERROR,
                    f"{what.capitalize()} name {_short(name)} is cut to {kept}, which names an existing relation: "
                    "PostgreSQL refuses it as existing",
                    "shorten it so that its first 63 bytes differ from every other relation's name",
                )
            else:
                yield self._finding(
                    stmt,
                    None,
                    f"{what.capitalize()} name {_short(name)} is {len(name.encode())} bytes: PostgreSQL stores it "
                    f"cut to {kept}",
                    "shorten it to 63 bytes or fewer, so the catalog holds the name the migration shows",
                )

    def _finding(self, stmt: Statement, severity: Severity | None, message: str, suggestion: str) -> Finding:
        return self.finding(
            stmt.location,
            table=stmt.table,
            sql=stmt.sql,
            severity=severity,
            message=message,
            suggestion=suggestion,
        )


def defined_names(op: Op) -> list[tuple[str, str]]:
    """(what, name) of each name the statement gives an object, as written (without a schema)."""
    out: list[tuple[str, str | None]] = []
    if isinstance(op, CreateTable):
        t = op.model
        out.append(("table", t.name))
        out += [("column", c) for c in t.columns]
        out += [("index", i.name) for i in ([t.primary_key] if t.primary_key else []) + t.indexes]
        out += [("constraint", c.name) for c in t.checks if not c.not_null]
        out += [("constraint", f.name) for f in t.foreign_keys]
    elif isinstance(op, CreateTableLike):
        out.append(("table", op.name))
    elif isinstance(op, CreateIndex):
        out.append(("index", op.index.name))
    elif isinstance(op, CreateView):
        out.append(("view", op.name))
    elif isinstance(op, CreateSequence) and op.kind == "create_sequence":
        out.append(("sequence", op.name))
    elif isinstance(op, RenameTable):
        out += [("table", new) for _, new in op.pairs]
    elif isinstance(op, AlterIndex) and op.action == "rename":
        out.append(("index", op.new_name))
    elif isinstance(op, AlterTable):
        for a in op.actions:
            if isinstance(a, AddColumn) and a.op in ("add_column", "change_column"):
                out.append(("column", a.definition.name))
            elif isinstance(a, AddKey) and not a.using_index:
                out.append(("index", a.index.name))
            elif isinstance(a, AddForeignKey):
                out.append(("constraint", a.key.name))
            elif isinstance(a, AddCheck) and a.op != "add_not_null":
                out.append(("constraint", a.constraint.name))
            elif isinstance(a, Rename):
                what = {"rename_column": "column", "rename_table": "table", "rename_index": "index"}
                out.append((what.get(a.op, "constraint"), a.new_name))
    return [(what, name.rpartition(".")[2]) for what, name in out if name]


def _referred(op: Op) -> set[str]:
    """The relations the statement names without defining them, cut as keys hold them, bare."""
    keys: list[str] = []
    if isinstance(op, CreateIndex):
        keys.append(op.on)
    elif isinstance(op, AlterTable):
        keys += [op.name, *(a.key.references for a in op.actions if isinstance(a, AddForeignKey))]
    elif isinstance(op, CreateTable):
        keys += [fk.references for fk in op.model.foreign_keys]
    elif isinstance(op, CreateView):
        keys += op.reads or ()
    return {k.rpartition(".")[2] for k in keys if k}


def _schema_of(stmt: Statement) -> str:
    """The PostgreSQL schema the statement's relation lives in, as keys write it ("" for public)."""
    return (stmt.table or "").rpartition(".")[0]


def _existing_relation(schema: Schema, kept: str, space: str) -> bool:
    """Whether a table, index, view or sequence of PostgreSQL schema `space` is already named `kept`
    (a relation of that name in another schema is no clash)."""

    def here(key: str) -> bool:
        return key.rpartition(".")[0] == space

    tables = [(k, t) for k, t in schema.tables.items() if here(k)]
    if any(k.rpartition(".")[2] == kept for k, _ in tables):
        return True
    if any(i and i.name == kept for _, t in tables for i in [*t.indexes, t.primary_key]):
        return True
    return any(here(k) and k.rpartition(".")[2] == kept for k in (*schema.views, *schema.sequences))


def _if_not_exists(op: Op) -> bool:
    return bool(getattr(op, "if_not_exists", False))


def _short(name: str) -> str:
    return name if len(name) <= 40 else name[:30] + "…" + name[-8:]
