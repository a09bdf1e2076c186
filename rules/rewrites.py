"""The rewrites lock findings offer as fixes (not a plugin itself): which safer form replaces which
statement, and what it takes for the runner to run it.

Each rewrite keeps the final schema and takes weaker locks; the suite proves that on the real
servers (tests/test_fixes_proven.py). A rewrite whose statements must run outside a transaction
(CONCURRENTLY), or in transactions of their own (NOT VALID, then VALIDATE), is offered only where
the runner allows it: outside any transaction it is safe; inside the runner's transaction it adds
the runner's own way to leave it out (safe when the deploy holds only this statement, unsafe when
that changes how its other statements commit); a file's own BEGIN, or a runner with no way out,
gets no fix. Where the SQL was generated from code, the fix is display-only and says where to
change it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from schemacite.model import Table
from schemacite.model.dialects import LOCK_WAIT
from schemacite.model.fixes import Applicability, Edit, Fix
from schemacite.model.statements import (
    AddCheck,
    AddColumn,
    AddForeignKey,
    AddKey,
    AlterColumnType,
    AlterTable,
    CreateIndex,
    DropIndex,
    PartitionAction,
    RefreshMatview,
    Reindex,
    Statement,
)
from schemacite.rule import Context
from schemacite.sources.edits import (
    at_end,
    code_of,
    find,
    insert_at,
    replace_offsets,
    replace_span,
    rewrite_within,
    statement_span,
)
from schemacite.sources.files import exists
from schemacite.sources.names import quoted_name
from schemacite.sources.patterns import Pattern

# a name as written: bare or quoted, optionally qualified
NAME = r'(?:"(?:[^"]|"")+"|[\w$]+)(?:\s*\.\s*(?:"(?:[^"]|"")+"|[\w$]+))*'
MAX_NAME = 63  # PostgreSQL's NAMEDATALEN - 1: a longer default name is truncated, and ours would differ


def fix_for(stmt: Statement, ctx: Context) -> Fix | None:
    """The fix the statement's lock finding offers, if any."""
    if ctx.dialect.is_mysql_family:
        return None
    rewrite = _REWRITES.get(type(stmt.op))
    return rewrite(stmt, ctx) if rewrite else None


def out_of_transaction(stmt: Statement, ctx: Context, statements: int = 1) -> tuple[list[Edit], Applicability] | None:
    """What lets the statement, rewritten into `statements` statements, run with each statement
    committing alone (or, for one statement, outside any transaction block): the edits to the
    runner's settings and the fix's applicability; None when nothing can."""
    unit = ctx.unit
    size_after = ctx.unit_size - 1 + statements
    if ctx.framework is not None and ctx.framework.sent_together(ctx.file_text, stmt.location.line):
        return None  # one query with the statements around it: one transaction, whatever the opt-out
    if stmt.transaction is None:
        if unit is not None and unit.transaction == "implicit" and size_after > 1:
            return None  # the file would become a multi-statement query: one implicit transaction
        return [], Applicability.SAFE
    if ctx.explicit_transaction or unit is None or ctx.framework is None:
        return None
    if unit.transaction == "flyway" and size_after == 1:
        return [], Applicability.SAFE  # Flyway leaves its transaction out for a lone CONCURRENTLY
    if not ctx.framework.opt_out:
        return None
    if ctx.framework.opt_out_mode == "implicit" and size_after > 1:
        return None
    edit = ctx.framework.opt_out_edit(stmt.location.file, unit, ctx.file_text())
    if edit is None:
        return None
    # leaving the runner's transaction out changes how the deploy's other statements commit
    return [edit], Applicability.SAFE if ctx.unit_size == 1 else Applicability.UNSAFE


def where_alone(stmt: Statement, ctx: Context) -> str:
    """Where a statement PostgreSQL refuses in a transaction block (a CONCURRENTLY form) must go
    to run, in the runner's words, as the fixes place one; empty where it stands already runs
    outside any (a lone statement the runner sends alone)."""
    placement = out_of_transaction(stmt, ctx)
    framework = ctx.framework
    if placement is not None and not placement[0]:
        return ""
    if placement is not None and framework is not None and ctx.unit_size == 1:
        return f"with {framework.opt_out} ({framework.opt_out_at})"
    if ctx.explicit_transaction and (framework is None or not framework.generated_from):
        return "outside BEGIN ... COMMIT"
    if framework is None:
        return "outside any transaction"
    return framework.own_migration() or f"by hand outside the deploy ({framework.title} has no way to run it so)"


def opt_out_fix(stmt: Statement, ctx: Context, consequence: str = "", unsafe: bool = False) -> Fix | None:
    """The runner's own way out of its transaction as the whole fix, the statement left as it is."""
    placement = out_of_transaction(stmt, ctx)
    if placement is None or not placement[0] or ctx.framework is None:
        return None
    edits, applicability = placement
    title = f"leave the runner's transaction out ({ctx.framework.opt_out})" + consequence
    fix = Fix(title, Applicability.UNSAFE if unsafe else applicability, tuple(edits), changes_transaction=True)
    return generated(fix, ctx)


def generated(fix: Fix | None, ctx: Context, alone: bool = False) -> Fix | None:
    """The fix as shown for SQL generated from code: display-only, naming the code to change, and
    the framework's opt-out when the rewrite's statements must each commit alone (`alone`)."""
    if fix is None or ctx.framework is None or not ctx.framework.generated_from:
        return fix
    where = ctx.framework.generated_from
    if ctx.framework.opt_out and alone:
        where += f" ({ctx.framework.opt_out} where it must run outside a transaction)"
    return Fix(f"{fix.title}, in {where}", Applicability.DISPLAY_ONLY, fix.edits, fix.template, fix.changes_transaction)


def _placed(stmt: Statement, ctx: Context, title: str, edits: list[Edit], statements: int) -> Fix | None:
    if ctx.framework is not None and ctx.framework.generated_from:
        # the printed SQL is not what deploys: the rewrite is shown for the code it comes from,
        # printed as it would be once the migration opts out of its transaction
        around = _printed_transaction(stmt, ctx) if ctx.explicit_transaction else []
        shown = [*around[:1], *edits, *around[1:]]
        return generated(Fix(title, Applicability.SAFE, tuple(shown)), ctx, alone=True)
    placement = out_of_transaction(stmt, ctx, statements)
    if placement is None:
        return _moved(stmt, ctx, title, edits) if statements == 1 else None
    extra, applicability = placement
    return Fix(title, applicability, (*extra, *edits), changes_transaction=bool(extra))


_PRINTED_BEGIN = Pattern(r"^[ \t]*BEGIN[ \t]*;[ \t]*\r?\n", re.I | re.M)
_PRINTED_COMMIT = Pattern(r"^[ \t]*COMMIT[ \t]*;[ \t]*(?:\r?\n|\Z)", re.I | re.M)


def _printed_transaction(stmt: Statement, ctx: Context) -> list[Edit]:
    """The lines `BEGIN;` and `COMMIT;` around the statement in SQL a framework printed (sqlmigrate,
    `alembic upgrade --sql`), removed: the migration opted out of its transaction prints none."""
    text = ctx.file_text()
    span = statement_span(stmt, text)
    if span is None:
        return []
    begins = list(_PRINTED_BEGIN.finditer(text, 0, span[0]))
    commit = _PRINTED_COMMIT.search(text, span[1])
    if not begins or commit is None:
        return []
    path = stmt.location.file
    return [
        replace_offsets(path, text, begins[-1].start(), begins[-1].end(), ""),
        replace_offsets(path, text, commit.start(), commit.end(), ""),
    ]


def _moved(stmt: Statement, ctx: Context, title: str, edits: list[Edit]) -> Fix | None:
    """The rewritten statement moved into a migration of its own after this one, for a runner
    that sends a file as one query and has no way to leave its transaction out (golang-migrate,
    Prisma).
    Unsafe: the statement then runs after the rest of its file, in a deploy of its own; offered
    only for the last statement of the file, so nothing after it in the file meets the change."""
    if ctx.framework is None or ctx.explicit_transaction or ctx.unit is None or ctx.unit.transaction != "implicit":
        return None
    text = ctx.file_text()
    span = statement_span(stmt, text)
    if span is None or code_of(text[span[1] :]).strip():
        return None
    name = ctx.framework.next_migration(stmt.location.file, "concurrently")
    if name is None or exists(name):
        return None
    start, stop = span
    rewritten = rewrite_within(stmt, text, edits)
    remove = replace_offsets(stmt.location.file, text, start, stop, "")
    shown = os.path.relpath(name, os.path.commonpath([os.path.abspath(name), os.path.abspath(stmt.location.file)]))
    made = f" (as `{ctx.framework.new_migration}` makes one, then edited)" if ctx.framework.new_migration else ""
    return Fix(
        f"{title}, in a new migration {shown.replace(os.sep, '/')}{made}",
        Applicability.UNSAFE,
        (remove, Edit.new_file(name, rewritten + ";\n")),
        changes_transaction=True,
    )


def _partitioned(ctx: Context, key: str | None) -> bool:
    """Whether the table is, or may be, partitioned (or a partition): unknown to the history counts,
    since CONCURRENTLY and NOT VALID are refused on some partitioned tables."""
    table = ctx.schema.tables.get(key) if key else None
    return table is None or not ctx.schema.knows(key) or table.partitioning is not None or bool(table.partition_of)


def _cased(stmt: Statement, keywords: str) -> str:
    """Keywords in the statement's own case: a file written in lower case gets lower case."""
    return keywords.lower() if stmt.sql[:1].islower() else keywords


# ---------------------------------------------------------------- statements


def _concurrently(stmt: Statement, ctx: Context, head: str, title: str) -> Fix | None:
    """CONCURRENTLY inserted after `head`, the statement placed to run outside a transaction."""
    m = find(stmt, head)
    if m is None:
        return None
    return _placed(stmt, ctx, title, [insert_at(stmt, m.end(), _cased(stmt, "CONCURRENTLY "))], 1)


def _create_index(stmt: Statement, ctx: Context) -> Fix | None:
    op = stmt.op
    assert isinstance(op, CreateIndex)
    if op.concurrently or op.only or _partitioned(ctx, op.on):
        return None  # a partitioned table's index is built ON ONLY the parent, then per partition
    fix = _concurrently(stmt, ctx, r"^CREATE\s+(?:UNIQUE\s+)?INDEX\s+", "CREATE INDEX CONCURRENTLY")
    if fix is None or not op.if_not_exists:
        return fix
    # a concurrent build that fails leaves an INVALID index behind (a plain one leaves nothing),
    # which IF NOT EXISTS then takes for done: a retry skips it without a word
    applicability = Applicability.UNSAFE if fix.applicability is Applicability.SAFE else fix.applicability
    return Fix(f"{fix.title} ({_INVALID_LEFT})", applicability, fix.edits, fix.template, fix.changes_transaction)


_INVALID_LEFT = (
    "if it fails, DROP INDEX CONCURRENTLY the INVALID index it leaves before a retry: IF NOT EXISTS skips it"
)


def _drop_index(stmt: Statement, ctx: Context) -> Fix | None:
    op = stmt.op
    assert isinstance(op, DropIndex)
    if op.concurrently or op.cascade or len(op.names) != 1:
        return None  # CONCURRENTLY drops one index, without CASCADE
    owner = ctx.schema.index_owner_key(op.names[0])
    if owner is None or _partitioned(ctx, owner):
        return None  # a partitioned table's index cannot be dropped concurrently
    return _concurrently(stmt, ctx, r"^DROP\s+INDEX\s+", "DROP INDEX CONCURRENTLY")


def _reindex(stmt: Statement, ctx: Context) -> Fix | None:
    op = stmt.op
    assert isinstance(op, Reindex)
    if op.concurrently or op.object not in ("index", "table") or ctx.version < (12,):
        return None
    key = op.name if op.object == "table" else ctx.schema.index_owner_key(op.name or "")
    if _partitioned(ctx, key) or (key or "").startswith(("pg_catalog.", "information_schema.")):
        return None
    return _concurrently(stmt, ctx, r"^REINDEX\s+(?:\([^)]*\)\s*)?(?:INDEX|TABLE)\s+", "REINDEX CONCURRENTLY")


def _alter_table(stmt: Statement, ctx: Context) -> Fix | None:
    op = stmt.op
    assert isinstance(op, AlterTable)
    if len(op.actions) != 1 or op.if_exists:
        return None
    table = find(stmt, rf"^ALTER\s+TABLE\s+(?:ONLY\s+)?({NAME})")
    if table is None:
        return None
    # names go into the rewrite as the server stores them, taken from the text: the model folds case
    written = stmt.sql[table.start(1) : table.end(1)]
    base = _true(re.split(r"\s*\.\s*(?=[\w$\"])", written)[-1])
    action = op.actions[0]
    if isinstance(action, AddForeignKey) and not action.not_valid:
        columns = _column_list(stmt, r"\bFOREIGN\s+KEY")
        default = _default_name(base, columns, "fkey") if columns else None
        return _validate_later(stmt, ctx, written, _constraint_named(stmt, "FOREIGN"), default)
    if isinstance(action, AddCheck) and action.op == "add_check" and not action.not_valid:
        # PostgreSQL names an unnamed check after the one column it reads, else after the table alone
        default = _default_name(base, action.reads if len(action.reads) == 1 else (), "check")
        return _validate_later(stmt, ctx, written, _constraint_named(stmt, "CHECK"), default)
    if action.op == "set_not_null" and ctx.version >= (12,) and not _partitioned(ctx, op.name):
        column = _group(stmt, rf"\bALTER\s+(?:COLUMN\s+)?({IDENT})\s+SET\s+NOT\s+NULL\b")
        return _set_not_null(stmt, ctx, written, base, _true(column)) if column else None
    if isinstance(action, AddKey) and action.using_index is None and (action.index.primary or action.index.unique):
        return _key_from_index(stmt, ctx, written, base, action)
    if isinstance(action, PartitionAction) and action.op == "detach_partition":
        return _detach_concurrently(stmt, ctx, action)
    rewrites = any(i.rewrite for i in ctx.impacts)
    if isinstance(action, AlterColumnType) and rewrites:
        column = _group(stmt, rf"\bALTER\s+(?:COLUMN\s+)?({IDENT})\s+(?:SET\s+DATA\s+)?TYPE\b")
        return _expand_and_swap(written, op.name, base, _true(column), action, ctx) if column else None
    if isinstance(action, AddColumn) and action.op == "add_column" and action.definition.default and rewrites:
        column = _group(stmt, rf"\bADD\s+(?:COLUMN\s+)?({IDENT})")
        if ctx.version < (12,) or _partitioned(ctx, op.name) or column is None:
            return None
        return _add_then_backfill(stmt, ctx, written, base, _true(column), action)
    return None


IDENT = r'(?:"(?:[^"]|"")+"|[\w$]+)'


def _true(written: str) -> str:
    """The name the server stores for a name as written: a quoted one as it is, a bare one folded."""
    return written[1:-1].replace('""', '"') if written.startswith('"') else written.lower()


def _group(stmt: Statement, pattern: str) -> str | None:
    m = find(stmt, pattern)
    return stmt.sql[m.start(1) : m.end(1)] if m else None


def _constraint_named(stmt: Statement, kind: str) -> str | None:
    """The stored name of `ADD CONSTRAINT <name> <kind>`, or None when it is unnamed."""
    written = _group(stmt, rf"\bCONSTRAINT\s+({IDENT})\s+{kind}")
    return _true(written) if written else None


def _column_list(stmt: Statement, head: str) -> tuple[str, ...] | None:
    """The stored names of the plain column list after `head` (None if it holds anything else)."""
    listed = _group(stmt, rf"{head}\s*\(([^()]*)\)")
    names = [n.strip() for n in (listed or "").split(",")]
    if not listed or not all(re.fullmatch(IDENT, n) for n in names):
        return None
    return tuple(_true(n) for n in names)


def _detach_concurrently(stmt: Statement, ctx: Context, action: PartitionAction) -> Fix | None:
    """DETACH PARTITION → CONCURRENTLY (14+). The server then adds a CHECK constraint matching the
    bound to the detached table (named as an unnamed check is: after the one key column, else the
    table alone), which the fix drops again so the end state is the same; not where a DEFAULT
    partition exists (refused), nor where the partition's own checks might imply the bound
    (then none is added, and which would be the server's judgement)."""
    if action.concurrently or action.finalize or ctx.version < (14,):
        return None
    parent = ctx.schema.tables.get(stmt.table or "")
    part = ctx.schema.tables.get(action.partition)
    if parent is None or parent.partitioning is None or part is None:
        return None
    if any(not c.not_null for c in part.checks):  # NOT NULL alone never implies a bound
        return None
    if any(t.partition_of == parent.name and t.default_partition for t in ctx.schema.tables.values()):
        return None
    if '"' in code_of(stmt.sql):
        return None  # a quoted name: the key column's stored case, which the name depends on, is not kept
    columns = parent.partitioning.columns
    name = _default_name(action.partition.rsplit(".", 1)[-1], columns if len(columns) == 1 else (), "check")
    written = find(stmt, rf"\bDETACH\s+PARTITION\s+({NAME})")
    if name is None or written is None or _name_taken(ctx, name):
        return None
    partition = stmt.sql[written.start(1) : written.end(1)]
    edits = [at_end(stmt, f" CONCURRENTLY;\nALTER TABLE {partition} DROP CONSTRAINT {quoted_name(name)}")]
    return _placed(stmt, ctx, "DETACH PARTITION CONCURRENTLY, then drop the CHECK it leaves", edits, 2)


_BATCH = "10000"  # rows per backfill batch: short transactions, few row locks held at once


def _expand_and_swap(table: str, key: str, base: str, column: str, action: AlterColumnType, ctx: Context) -> Fix:
    """A type change that rewrites the table: a template (a new column, a backfill, a swap), since
    how new writes reach the new column (a trigger, the application) is the user's choice. The new
    column gets the old one's DEFAULT (converted as the type change converts it: an assignment
    cast) and NOT NULL (proven by a validated CHECK first, so SET NOT NULL skips its scan on 12+);
    indexes, constraints and views keep following the old column, renamed: the template names them."""
    known = ctx.schema.tables.get(key)
    old = known.columns.get(action.column or "") if known is not None else None
    col = quoted_name(column)
    new = quoted_name(f"{column}_new")
    kept = quoted_name(f"{column}_old")
    using = action.using or f"{col}::{action.type}"
    alter = f"ALTER TABLE {table}"
    steps = [f"{alter} ADD COLUMN {new} {action.type};"]
    if old is not None and old.default is not None:
        steps.append(f"{alter} ALTER COLUMN {new} SET DEFAULT {old.default};")
    steps += [
        f"-- keep {new} in step with {col} for new writes (a trigger or the application), then backfill",
        "-- in batches until no row is left:",
        f"UPDATE {table} SET {new} = {using} WHERE ctid IN (SELECT ctid FROM {table} "
        f"WHERE {new} IS NULL AND {col} IS NOT NULL LIMIT {_BATCH});",
    ]
    swap = []
    model = action.column or ""  # the column's key in the model, which folds case
    in_key = known is not None and known.primary_key is not None and model in known.primary_key.columns
    if old is not None and not old.nullable:
        check = quoted_name(f"{base}_{column}_new_not_null")
        steps += [
            f"-- prove {new} NOT NULL without a long lock"
            + (" (before 12, SET NOT NULL still scans the table)" if ctx.version < (12,) else "")
            + ":",
            f"{alter} ADD CONSTRAINT {check} CHECK ({new} IS NOT NULL) NOT VALID;",
            f"{alter} VALIDATE CONSTRAINT {check};",
        ]
        swap += [f"{alter} ALTER COLUMN {new} SET NOT NULL;", f"{alter} DROP CONSTRAINT {check};"]
        if not in_key:  # new rows no longer fill the old column
            swap.append(f"{alter} ALTER COLUMN {col} DROP NOT NULL;")
    elif old is None:
        steps.append(f"-- give {new} the NOT NULL and DEFAULT of {col}, which the history does not show")
    steps += [
        "-- then swap the names in one short transaction:",
        "BEGIN;",
        f"{LOCK_WAIT['postgres'].statement(local=True)};",
        *swap,
        f"{alter} RENAME COLUMN {col} TO {kept};",
        f"{alter} RENAME COLUMN {new} TO {col};",
        "COMMIT;",
        f"-- these stay with the old column, now {kept}: {_following(known, model, in_key)};",
        f"-- make them again on {col} before {kept} is dropped",
    ]
    return Fix("a new column, a batched backfill, a swap", Applicability.DISPLAY_ONLY, template="\n".join(steps))


def _following(table: Table | None, column: str, in_key: bool) -> str:
    """What uses the column and does not move to the new one: the indexes, keys and foreign keys the
    history shows, and whatever else reads it (views, the sequence of a serial or identity column)."""
    if table is None:
        return "indexes, constraints, views and sequences on it"
    named = ["the primary key"] if in_key else []
    named += [f"index {i.name}" for i in table.indexes if column in i.columns and i.name]
    named += [f"foreign key {fk.name}" for fk in table.foreign_keys if column in fk.columns and fk.name]
    col = table.columns.get(column)
    if col is not None and (col.serial or col.identity):
        named.append("its sequence (ALTER SEQUENCE ... OWNED BY)")
    return ", ".join([*named, "any view or check reading it"])


def _add_then_backfill(
    stmt: Statement, ctx: Context, table: str, base: str, name: str, action: AddColumn
) -> Fix | None:
    """ADD COLUMN with a volatile default rewrites the table under its lock: add the column
    without it (a catalog change), give new rows the default, fill the old rows in batches that
    each commit (a DO block's COMMIT, 11+, outside any transaction block), and a NOT NULL column
    gets its constraint the way `SET NOT NULL`'s fix gives it. Unsafe: for a while the column holds
    NULLs, and its values come from another moment than one statement's."""
    column = action.definition
    if action.if_not_exists or action.references or action.check or action.primary or action.unique:
        return None
    if column.identity or column.generated or column.serial:
        return None
    col = quoted_name(name)
    steps = [
        f"ALTER TABLE {table} ADD COLUMN {col} {column.type}",
        f"ALTER TABLE {table} ALTER COLUMN {col} SET DEFAULT {column.default}",
        f"DO $backfill$\nBEGIN\n  LOOP\n    UPDATE {table} SET {col} = DEFAULT WHERE ctid IN "
        f"(SELECT ctid FROM {table} WHERE {col} IS NULL LIMIT {_BATCH});\n"
        f"    EXIT WHEN NOT FOUND;\n    COMMIT;\n  END LOOP;\nEND\n$backfill$",
    ]
    if not column.nullable:
        check = quoted_name(f"{base}_{name}_not_null_check")
        steps += [
            f"ALTER TABLE {table} ADD CONSTRAINT {check} CHECK ({col} IS NOT NULL) NOT VALID",
            f"ALTER TABLE {table} VALIDATE CONSTRAINT {check}",
            f"ALTER TABLE {table} ALTER COLUMN {col} SET NOT NULL",
            f"ALTER TABLE {table} DROP CONSTRAINT {check}",
        ]
    edits = [replace_span(stmt, 0, len(stmt.sql), ";\n".join(steps))]
    placement = out_of_transaction(stmt, ctx, len(steps))
    if placement is None:
        return None
    title = "add the column without its default, then backfill in batches"
    return generated(Fix(title, Applicability.UNSAFE, (*placement[0], *edits)), ctx)


def _default_name(table_key: str, columns: tuple[str, ...], suffix: str) -> str | None:
    """The name PostgreSQL gives an unnamed constraint (ChooseConstraintName), when it is not cut short."""
    name = "_".join([table_key.rsplit(".", 1)[-1], *columns, suffix])
    return name if len(name) <= MAX_NAME else None


def _validate_later(stmt: Statement, ctx: Context, table: str, name: str | None, default: str | None) -> Fix | None:
    """ADD FOREIGN KEY / CHECK: add it NOT VALID (a brief lock, no scan), then VALIDATE it in a
    transaction of its own (a scan under SHARE UPDATE EXCLUSIVE, which blocks no reads or writes)."""
    if _partitioned(ctx, stmt.table):
        return None  # NOT VALID is refused on a partitioned table's foreign keys before 18
    edits = []
    if name is None:
        if default is None or _name_taken(ctx, default):
            return None  # PostgreSQL would number it (`orders_check1`): the name is not ours to guess
        m = find(stmt, r"\bADD\s+(?=(?:FOREIGN\s+KEY|CHECK)\b)")
        if m is None:
            return None
        edits.append(insert_at(stmt, m.end(), f"CONSTRAINT {quoted_name(default)} "))
        name = default
    edits.append(
        at_end(
            stmt,
            _cased(stmt, " NOT VALID;\nALTER TABLE ")
            + f"{table} "
            + _cased(stmt, "VALIDATE CONSTRAINT ")
            + quoted_name(name),
        )
    )
    return _placed(stmt, ctx, "add the constraint NOT VALID, then VALIDATE CONSTRAINT", edits, 2)


def _name_taken(ctx: Context, name: str) -> bool:
    """Whether a constraint or index of that name is known (constraint names share a namespace)."""
    for table in ctx.schema.tables.values():
        keys = [table.primary_key, *table.indexes] if table.primary_key else table.indexes
        if any((c.name or "").lower() == name.lower() for c in [*table.checks, *table.foreign_keys, *keys]):
            return True
    return False


def _set_not_null(stmt: Statement, ctx: Context, table: str, base: str, column: str) -> Fix | None:
    """SET NOT NULL: a valid CHECK (col IS NOT NULL) lets it skip its scan (12+). On 18 the NOT
    NULL constraint itself can be added NOT VALID and validated, under the name SET NOT NULL gives it."""
    col = quoted_name(column)
    if ctx.version >= (18,):
        name = _default_name(base, (column,), "not_null")
        if name is None or _name_taken(ctx, name):
            return None
        text = (
            f"ALTER TABLE {table} ADD CONSTRAINT {quoted_name(name)} NOT NULL {col} NOT VALID;\n"
            f"ALTER TABLE {table} VALIDATE CONSTRAINT {quoted_name(name)}"
        )
        edits = [replace_span(stmt, 0, len(stmt.sql), text)]
        return _placed(stmt, ctx, "add the NOT NULL constraint NOT VALID, then VALIDATE it (18+)", edits, 2)
    check = f"{base}_{column}_not_null_check"
    if len(check) > MAX_NAME:
        return None
    chk = quoted_name(check)
    text = (
        f"ALTER TABLE {table} ADD CONSTRAINT {chk} CHECK ({col} IS NOT NULL) NOT VALID;\n"
        f"ALTER TABLE {table} VALIDATE CONSTRAINT {chk};\n"
        f"ALTER TABLE {table} ALTER COLUMN {col} SET NOT NULL;\n"
        f"ALTER TABLE {table} DROP CONSTRAINT {chk}"
    )
    edits = [replace_span(stmt, 0, len(stmt.sql), text)]
    return _placed(stmt, ctx, "prove NOT NULL with a validated CHECK first", edits, 4)


def _key_from_index(stmt: Statement, ctx: Context, table: str, base: str, action: AddKey) -> Fix | None:
    """ADD PRIMARY KEY / UNIQUE: build the index CONCURRENTLY, then make it the constraint."""
    index = action.index
    if _partitioned(ctx, stmt.table) or index.partial or index.kind != "btree" or not index.columns:
        return None
    if find(stmt, r"\b(?:INCLUDE|DEFERRABLE|INITIALLY|NULLS|WITH|USING|TABLESPACE)\b") is not None:
        return None  # options the index and constraint would have to carry over
    columns = _column_list(stmt, r"\b(?:UNIQUE|PRIMARY\s+KEY)")
    if columns is None:
        return None
    name = _constraint_named(stmt, "(?:UNIQUE|PRIMARY)") or (
        _default_name(base, (), "pkey") if index.primary else _default_name(base, columns, "key")
    )
    if name is None or ctx.schema.index_owner_key(name.lower()) is not None:
        return None
    kind = "PRIMARY KEY" if index.primary else "UNIQUE"
    cols = ", ".join(quoted_name(c) for c in columns)
    text = (
        f"CREATE UNIQUE INDEX CONCURRENTLY {quoted_name(name)} ON {table} ({cols});\n"
        f"ALTER TABLE {table} ADD CONSTRAINT {quoted_name(name)} {kind} USING INDEX {quoted_name(name)}"
    )
    edits = [replace_span(stmt, 0, len(stmt.sql), text)]
    return _placed(stmt, ctx, f"build the unique index CONCURRENTLY, then ADD {kind} USING INDEX", edits, 2)


def _refresh_concurrently(stmt: Statement, ctx: Context) -> Fix | None:
    """REFRESH MATERIALIZED VIEW → CONCURRENTLY: readers keep the old rows meanwhile. The server
    needs a populated view and a unique index on plain columns over all its rows; it may run in
    a transaction."""
    op = stmt.op
    assert isinstance(op, RefreshMatview)
    view = ctx.schema.views.get(op.name)
    if op.concurrently or not op.with_data or view is None or not view.populated:
        return None
    if not any(i.unique and not i.partial and all(re.fullmatch(r"[\w$]+", c) for c in i.columns) for i in view.indexes):
        return None
    m = find(stmt, r"^REFRESH\s+MATERIALIZED\s+VIEW\s+")
    if m is None:
        return None
    fix = Fix(
        "REFRESH MATERIALIZED VIEW CONCURRENTLY",
        Applicability.SAFE,
        (insert_at(stmt, m.end(), _cased(stmt, "CONCURRENTLY ")),),
    )
    return generated(fix, ctx)


_REWRITES: dict[type, Callable[[Statement, Context], Fix | None]] = {
    CreateIndex: _create_index,
    DropIndex: _drop_index,
    RefreshMatview: _refresh_concurrently,
    Reindex: _reindex,
    AlterTable: _alter_table,
}
