"""PostgreSQL: what a statement locks, rewrites and scans, from the lock table and the schema.

`impacts(statement, schema, version)` returns one `LockImpact` per ALTER TABLE sub-command, or
one for any other statement that touches existing relations. The facts live in
`postgres_table`; this module picks the row, names the relations, and settles the "it depends"
cases (volatile defaults, binary-coercible type changes, USING INDEX, NOT VALID, a CHECK that
proves NOT NULL, partitions and their DEFAULT partition, foreign keys on either side) from the
statement's typed facts and the schema model. Where the model lacks a fact, the answer is the
cautious one and `LockImpact.note` says what was assumed.
"""

from __future__ import annotations

from schemacite.locks import Lock, LockImpact, rank
from schemacite.locks import postgres_table as T
from schemacite.locks.functions import volatile
from schemacite.locks.modes import blocks
from schemacite.model import Schema, Table
from schemacite.model.schema import Column
from schemacite.model.statements import (
    Action,
    AddColumn,
    AddForeignKey,
    AddKey,
    AlterColumnType,
    AlterIndex,
    AlterTable,
    Cluster,
    ConstraintAction,
    CreateIndex,
    CreatePartition,
    CreateTable,
    CreateTableAs,
    CreateTableLike,
    CreateView,
    DropIndex,
    DropTable,
    DropView,
    IndexAction,
    Inherit,
    LockTable,
    Option,
    PartitionAction,
    RefreshMatview,
    Reindex,
    RenameTable,
    SetDefault,
    Statement,
    Truncate,
)

# statement kinds with no lock on existing relations worth reporting
_SILENT = frozenset({"begin", "commit", "set", "other"})


def impacts(statement: Statement, schema: Schema, version: int) -> list[LockImpact]:
    """Lock outcome of `statement` on PostgreSQL major `version` (12..18; 150020 or "15" accepted)."""
    version = _major(version)
    if statement.kind in _SILENT:
        return []
    op = statement.op
    if isinstance(op, AlterTable):
        return [_alter_action(op, a, schema, version) for a in op.actions]
    return [_statement(statement, schema, version)]


# --------------------------------------------------------------------------- helpers


def _major(version: int | str) -> int:
    v = int(str(version).split(".")[0])
    return v // 10000 if v >= 1000 else v


class _Build:
    """Collects the locks and notes of one impact."""

    def __init__(self, key: str, row: T.Row):
        self.key = key
        self.row = row
        self.locks: dict[str, str] = {}
        self.notes: list[str] = []
        self.rewrite = bool(row.rewrite)
        self.scan = bool(row.scan)

    def lock(self, relation: str | None, mode: str | None) -> None:
        if not relation or not mode:
            return
        old = self.locks.get(relation)
        if old is None or rank(mode) > rank(old):
            self.locks[relation] = mode

    def note(self, text: str) -> None:
        if text and text not in self.notes:
            self.notes.append(text)

    def impact(self) -> LockImpact:
        if self.row.note:
            self.notes.insert(0, self.row.note)
        alternative = self.row.alternative
        conditional = self.row.rewrite is None or self.row.scan is None
        if conditional and not self.rewrite and not self.scan:
            alternative = None  # the alternative avoids a rewrite or scan this statement does not do
        return LockImpact(
            operation=self.key,
            locks=[Lock(r, m, blocks(m)) for r, m in self.locks.items()],
            rewrite=self.rewrite,
            scan=self.scan,
            alternative=alternative,
            note="; ".join(dict.fromkeys(self.notes)) or None,
            source=self.row.source,
            row=self.key,
        )


def _unavailable(key: str, version: int) -> LockImpact | None:
    rows = T.rows_for(key)
    if not rows:
        return None
    first = min(r.since for r in rows)
    return LockImpact(
        operation=key,
        note=f"not available on PostgreSQL {version} (from {first}): the server rejects the statement",
        source=rows[0].source,
    )


def _unknown(key: str, main: str | None) -> LockImpact:
    locks = [Lock(main, T.ACCESS_EXCLUSIVE, "reads+writes")] if main else []
    return LockImpact(
        operation=key, locks=locks, note="no PostgreSQL lock-table row for this form: assumed ACCESS EXCLUSIVE"
    )


def _partitions(schema: Schema, key: str | None) -> list[str]:
    """Every partition below `key`, depth first."""
    if not key:
        return []
    out: list[str] = []
    todo = [key]
    seen = {key}
    while todo:
        for name in schema.partitions(todo.pop()):
            if name not in seen:
                seen.add(name)
                out.append(name)
                todo.append(name)
    return out


def _is_partitioned(schema: Schema, key: str | None) -> bool:
    t = schema.tables.get(key) if key else None
    return bool(t is not None and (t.partitioning is not None or schema.partitions(key)))


def _default_partition(schema: Schema, parent: str | None) -> tuple[str | None, bool]:
    """(name of the parent's DEFAULT partition, whether the model could tell)."""
    known = False
    for name in schema.partitions(parent) if parent else ():
        t = schema.tables.get(name)
        if t is not None and t.partition_bound is not None:
            known = True
            if t.default_partition:
                return name, True
    return None, known


def _fk_targets(table: Table | None) -> list[str]:
    return [fk.references for fk in table.foreign_keys] if table is not None else []


def _index_names(schema: Schema, key: str | None) -> list[str]:
    t = schema.tables.get(key) if key else None
    if t is None:
        return []
    names = []
    if t.primary_key is not None:
        names.append(t.primary_key.name or f"{t.name.split('.')[-1]}_pkey")
    names.extend(i.name for i in t.indexes if i.name)
    return names


# ------------------------------------------------------------------ rewrite rules

# typmod arguments whose widening keeps the stored bytes (types with a length-coercion support function)
_WIDENABLE = {"varchar", "numeric", "varbit", "timestamp", "timestamptz", "time", "timetz"}
# (old, new) base types the server relabels without touching the data
_RELABEL = {("varchar", "text"), ("text", "varchar"), ("cidr", "inet"), ("xml", "text")}


def _args(text: str) -> tuple[int, ...] | None:
    if not text:
        return None
    try:
        return tuple(int(a) for a in text.split(","))
    except ValueError:
        return ()


def type_change_rewrites(old: tuple[str, str], new: tuple[str, str]) -> tuple[bool, str]:
    """(rewrites?, why) for ALTER COLUMN TYPE from `old` to `new`, each a (base_type, type_args)
    pair as the model keeps them, without a value-changing USING."""
    ob, nb = old[0], new[0]
    oa, na = _args(old[1]), _args(new[1])
    before = ob + (f"({old[1]})" if old[1] else "")
    after = nb + (f"({new[1]})" if new[1] else "")
    if ob == nb:
        if oa == na:
            return False, "same type"
        if ob in _WIDENABLE:
            if na is None:
                return False, f"{before} -> {after}: the length/precision limit is removed"
            if oa is not None and len(oa) == len(na):
                if ob == "numeric":
                    if len(oa) == 2 and oa[1] != na[1]:
                        return True, "numeric scale changes"
                    if na[0] >= oa[0]:
                        return False, "numeric precision grows"
                    return True, "numeric precision shrinks"
                if all(n >= o for n, o in zip(na, oa)):
                    return False, f"{before} -> {after}: the limit grows"
            return True, f"{before} -> {after}: values must be checked or converted"
        return True, f"{before} -> {after}: the type modifier changes"
    if (ob, nb) in _RELABEL:
        if nb == "varchar" and na is not None:
            return True, f"{before} -> {after}: every value's length must be checked"
        return False, f"{before} -> {after} is binary-coercible"
    if {ob, nb} == {"timestamp", "timestamptz"}:
        return True, (
            "timestamp <-> timestamptz: no rewrite only when the session TimeZone is UTC (12+); assumed rewritten"
        )
    return True, f"{before} -> {after} is not binary-coercible"


def rewrites_on_add(column: Column) -> str | None:
    """Why adding this column rewrites every row, or None: a volatile default, an identity, serial
    or stored generated column. A stable or immutable default is evaluated once and stored in the
    catalog (11+); a virtual generated column (18) stores nothing."""
    if column.identity:
        return "an identity column fills every row from its sequence"
    if column.serial:
        return "a serial column fills every row from its sequence"
    if column.generated == "stored":
        return "a stored generated column is computed for every row"
    calls = [f for f in column.default_calls if volatile(f)]
    if calls:
        return f"the default calls {', '.join(calls)}(), which is volatile: every row gets its own value"
    return None


# ------------------------------------------------------------------ ALTER TABLE


def _alter_action(stmt_op: AlterTable, action: Action, schema: Schema, version: int) -> LockImpact:
    key = f"alter_table.{action.op}"
    table = stmt_op.name
    if action.op in T.NOT_POSTGRES:
        return LockImpact(operation=key, note="a MySQL/MariaDB form: PostgreSQL rejects it")
    row = T.row_for(key, version)
    if row is None:
        return _unavailable(key, version) or _unknown(key, table)
    b = _Build(key, row)
    mode = row.mode
    if isinstance(action, Option) and action.op in ("set_storage_params", "reset_storage_params"):
        mode = _reloption_mode(action.params)
    main_mode = row.partitioned_mode if row.partitioned_mode and _is_partitioned(schema, table) else mode
    b.lock(table, main_mode)
    if row.recurse and not stmt_op.only:
        for p in _partitions(schema, table):
            b.lock(p, row.partition_mode or mode)
    tmodel = schema.tables.get(table) if table else None
    op = action.op

    if isinstance(action, AddColumn):
        for r in action.references:
            b.lock(r, T.SHARE_ROW_EXCLUSIVE)
        why = rewrites_on_add(action.definition)
        if action.definition.generated == "virtual" and version < 18:
            b.note("GENERATED ALWAYS AS without STORED is a virtual column, which PostgreSQL accepts from 18 on")
        b.rewrite = why is not None
        b.scan = b.rewrite or bool(action.references) or action.check
        if why:
            b.note(why)
    elif isinstance(action, AlterColumnType):
        b.rewrite, why = _column_type_rewrite(tmodel, action)
        b.scan = b.rewrite
        b.note(why)
        if b.rewrite and tmodel is not None and any(action.column in i.columns for i in _keys(tmodel)):
            b.note("the indexes on the column are rebuilt")
        for fk in tmodel.foreign_keys if tmodel is not None else []:
            if action.column in fk.columns:
                b.lock(fk.references, T.ACCESS_EXCLUSIVE)
        if _is_key_column(tmodel, action.column):
            for r in schema.referencing(table):
                if any(
                    action.column in fk.ref_columns or not fk.ref_columns
                    for fk in schema.tables[r].foreign_keys
                    if fk.references == table
                ):
                    b.lock(r, T.ACCESS_EXCLUSIVE)
        if tmodel is None:
            b.note(
                "if the column is part of a foreign key (on either side), the table on the other side is "
                "locked ACCESS EXCLUSIVE too (the table was not seen in the history)"
            )
    elif op == "set_not_null":
        if tmodel is not None and action.column and tmodel.proven_not_null(action.column):
            b.scan = False
            b.note("a valid CHECK (col IS NOT NULL) already proves it: no scan (12+)")
        else:
            b.scan = True
            if tmodel is None:
                b.note(
                    "the table was not seen in the history: a valid CHECK (col IS NOT NULL) would spare the scan (12+)"
                )
    elif isinstance(action, AddKey):
        if action.using_index:
            b.scan = action.index.primary and _nullable_key(tmodel, action.using_index)
            if b.scan:
                b.note("a key column is still nullable: the implicit SET NOT NULL scans the table")
        else:
            b.scan = True
    elif isinstance(action, AddForeignKey):
        b.lock(action.key.references, T.SHARE_ROW_EXCLUSIVE)
        b.scan = not action.not_valid and action.key.enforced
    elif op in ("add_check", "add_not_null"):
        b.scan = not getattr(action, "not_valid", False)
    elif isinstance(action, ConstraintAction) and op in ("validate_constraint", "drop_constraint"):
        other_mode = T.ROW_SHARE if op == "validate_constraint" else T.ACCESS_EXCLUSIVE
        fks = [fk for fk in (tmodel.foreign_keys if tmodel is not None else []) if fk.name == action.name]
        for fk in fks:
            b.lock(fk.references, other_mode)
        if tmodel is None:
            word = "ROW SHARE" if op == "validate_constraint" else "ACCESS EXCLUSIVE"
            b.note(
                f"if the constraint is a foreign key, the referenced table is also locked {word} "
                "(the table was not seen in the history)"
            )
        if op == "validate_constraint" and tmodel is not None:
            check = next((c for c in tmodel.checks if c.name == action.name and c.not_null), None)
            if check is not None:
                b.note("validating a NOT NULL constraint scans under SHARE UPDATE EXCLUSIVE (18+)")
    elif isinstance(action, IndexAction) and op == "cluster_on":
        b.lock(action.index, T.SHARE_UPDATE_EXCLUSIVE)
    elif isinstance(action, IndexAction) and op == "replica_identity":
        b.lock(action.index, T.SHARE)
    elif isinstance(action, Inherit):
        b.lock(action.parent, T.SHARE_UPDATE_EXCLUSIVE if op == "inherit" else T.ACCESS_SHARE)
    elif isinstance(action, PartitionAction):
        _partition_action(b, action, row, schema, table)
    elif op == "set_tablespace" and tmodel is not None and tmodel.partitioning is not None:
        b.rewrite = b.scan = False
        b.note("a partitioned table holds no data: only the default for new partitions changes")
    elif isinstance(action, SetDefault) and any(volatile(f) for f in action.default_calls):
        b.note("affects only rows inserted later, even with a volatile default")
    return b.impact()


def _partition_action(b: _Build, action: PartitionAction, row: T.Row, schema: Schema, table: str) -> None:
    op = action.op
    part_mode = next((o.mode for o in row.others if o.role == "partition"), T.ACCESS_EXCLUSIVE)
    b.lock(action.partition, part_mode)
    if op != "detach_partition_finalize":
        for p in _partitions(schema, action.partition):
            b.lock(p, part_mode)
    default, known = _default_partition(schema, table)
    if op in ("attach_partition", "detach_partition"):
        if default and default != action.partition:
            b.lock(default, T.ACCESS_EXCLUSIVE)
            for p in _partitions(schema, default):
                b.lock(p, T.ACCESS_EXCLUSIVE)
            if op == "attach_partition":
                b.note("the DEFAULT partition is scanned for rows that belong to the new bound")
        elif not known and _partitions(schema, table):
            b.note(
                "if the parent has a DEFAULT partition it is locked ACCESS EXCLUSIVE too "
                "(the model does not say which partition is the default)"
            )
    if op == "attach_partition":
        b.scan = True
        b.note(
            "assumed to scan the new partition: the model cannot tell whether a CHECK constraint "
            "already implies the partition bound"
        )
    if op == "detach_partition_concurrently" and default:
        b.note("refused: the parent has a DEFAULT partition")


def _keys(t: Table) -> list:
    return ([t.primary_key] if t.primary_key else []) + t.indexes


def _column_type_rewrite(tmodel: Table | None, action: AlterColumnType) -> tuple[bool, str]:
    if action.using and not action.using_only_column:
        return True, "USING computes new values: the table is rewritten"
    col = tmodel.columns.get(action.column or "") if tmodel is not None else None
    if col is None or not col.base_type:
        return True, "old column type unknown: assumed rewritten"
    if not action.base_type:
        return True, "new column type unknown: assumed rewritten"
    return type_change_rewrites((col.base_type, col.type_args), (action.base_type, action.type_args))


def _is_key_column(tmodel: Table | None, column: str | None) -> bool:
    if tmodel is None or column is None:
        return True
    keys = ([tmodel.primary_key] if tmodel.primary_key else []) + tmodel.unique_keys
    return any(column in k.columns for k in keys)


def _nullable_key(tmodel: Table | None, index_name: str) -> bool:
    if tmodel is None:
        return True
    idx = tmodel.index_named(index_name)
    if idx is None or not idx.columns:
        return True
    return any(c not in tmodel.columns or tmodel.columns[c].nullable for c in idx.columns)


def _reloption_mode(params: tuple[str, ...]) -> str:
    if not params:
        return T.ACCESS_EXCLUSIVE
    strongest = T.SHARE_UPDATE_EXCLUSIVE
    for n in params:
        bare = n.split(".", 1)[1] if n.startswith("toast.") else n
        if bare not in T.RELOPTION_SUE:
            strongest = T.ACCESS_EXCLUSIVE
    return strongest


# ------------------------------------------------------------------ other statements


def _statement_key(statement: Statement) -> str:
    op = statement.op
    kind = statement.kind
    if getattr(op, "concurrently", False) and kind in ("create_index", "drop_index", "reindex", "refresh_matview"):
        return kind + ".concurrently"
    if kind == "vacuum":
        return "vacuum.full" if getattr(op, "full", False) else "vacuum"
    if isinstance(op, LockTable):
        return "lock_table." + " ".join(op.mode.upper().split()).lower().replace(" ", "_")
    if isinstance(op, AlterIndex):
        return f"alter_index.{op.action}"
    return kind


def _statement(statement: Statement, schema: Schema, version: int) -> LockImpact:
    key = _statement_key(statement)
    row = T.row_for(key, version)
    if row is None:
        return _unavailable(key, version) or _unknown(key, statement.table)
    b = _Build(key, row)
    op = statement.op
    only = bool(getattr(op, "only", False))

    def lock_tree(rel: str | None, mode: str | None, partition_mode: str | None = None) -> None:
        if not rel:
            return
        partitioned = _is_partitioned(schema, rel)
        b.lock(rel, row.partitioned_mode if (row.partitioned_mode and partitioned) else mode)
        if row.recurse and not only:
            for p in _partitions(schema, rel):
                b.lock(p, partition_mode or row.partition_mode or mode)

    kind = statement.kind
    if kind in ("drop_table", "truncate", "lock_table", "vacuum", "analyze"):
        tables = list(op.relations())
        if not tables:
            b.lock("*", row.mode)
            b.note("no table named: every table of the database, one after another")
        for t in tables:
            lock_tree(t, row.mode)
        if isinstance(op, DropTable):
            for t in tables:
                parent = schema.tables[t].partition_of if t in schema.tables else None
                if parent and parent not in tables:
                    b.lock(parent, T.ACCESS_EXCLUSIVE)
                for r in _fk_targets(schema.tables.get(t)):
                    if r not in tables:
                        b.lock(r, T.ACCESS_EXCLUSIVE)
        if isinstance(op, (DropTable, Truncate)) and op.cascade:
            for t in tables:
                for r in schema.referencing(t):
                    lock_tree(r, T.ACCESS_EXCLUSIVE)
    elif isinstance(op, CreateIndex):
        lock_tree(op.on, row.mode)
        if key == "create_index.concurrently" and _is_partitioned(schema, op.on) and version < 18:
            b.note("refused on a partitioned table before PostgreSQL 18")
    elif isinstance(op, DropIndex):
        index_mode = next((o.mode for o in row.others if o.role == "index"), T.ACCESS_EXCLUSIVE)
        table_mode = next((o.mode for o in row.others if o.role == "index_table"), T.ACCESS_EXCLUSIVE)
        for name in op.names:
            owner = op.on or schema.index_owner_key(name)
            b.lock(name, index_mode)
            if owner:
                b.lock(owner, table_mode)
                if key == "drop_index":
                    for p in _partitions(schema, owner):
                        b.lock(p, table_mode)
            else:
                b.note(
                    f"the table owning {name} was not seen in the history: it is locked "
                    f"{'SHARE UPDATE EXCLUSIVE' if key.endswith('concurrently') else 'ACCESS EXCLUSIVE'} too"
                )
    elif isinstance(op, AlterIndex):
        index_mode = next((o.mode for o in row.others if o.role == "index"), T.ACCESS_EXCLUSIVE)
        b.lock(op.name, index_mode)
        if op.action == "attach_partition":
            b.lock(op.partition, T.ACCESS_EXCLUSIVE)
            for idx in (op.name, op.partition):
                owner = schema.index_owner_key(idx) if idx else None
                b.lock(owner, T.ACCESS_SHARE)
    elif isinstance(op, Reindex):
        index_mode = next((o.mode for o in row.others if o.role == "table_indexes"), T.ACCESS_EXCLUSIVE)
        if op.object == "index":
            owner = schema.index_owner_key(op.name) if op.name else None
            b.lock(op.name, index_mode)
            if owner:
                lock_tree(owner, row.mode)
            else:
                b.note(
                    "the table owning the index was not seen in the history: it is locked "
                    + ("SHARE UPDATE EXCLUSIVE" if key.endswith("concurrently") else "SHARE")
                )
        elif op.object == "table":
            lock_tree(op.name, row.mode)
            if not _is_partitioned(schema, op.name):  # partitions' index names are not in the model
                for idx in _index_names(schema, op.name):
                    b.lock(idx, index_mode)
        else:
            b.lock("*", row.mode)
            b.note(f"REINDEX {op.object.upper()}: every table in it in turn, one transaction each")
    elif isinstance(op, Cluster):
        if not op.name:
            b.lock("*", row.mode)
            b.note("CLUSTER without a table: every table clustered before, one after another")
        else:
            b.lock(op.name, row.mode)
            for idx in _index_names(schema, op.name):
                b.lock(idx, T.ACCESS_EXCLUSIVE)
    elif isinstance(op, RefreshMatview):
        b.lock(op.name, row.mode)
        view = schema.views.get(op.name)
        reads = view.reads if view is not None else None
        if reads is None:
            b.note("the tables its query reads are locked ACCESS SHARE (the view was not seen in the history)")
        for r in reads or ():
            b.lock(r, T.ACCESS_SHARE)
    elif isinstance(op, (CreateView, CreateTableAs)):
        created = op.name if isinstance(op, CreateView) else op.model.name
        if op.reads is None:
            b.note("could not tell which tables the query reads: each is locked ACCESS SHARE")
        for s in op.reads or ():
            if s != created:
                b.lock(s, T.ACCESS_SHARE)
    elif isinstance(op, CreateTableLike):
        b.lock(op.source, T.ACCESS_SHARE)
    elif isinstance(op, CreatePartition):
        b.lock(op.parent, T.ACCESS_EXCLUSIVE)
        for r in op.references:
            if r not in (op.model.name, op.parent):
                b.lock(r, T.SHARE_ROW_EXCLUSIVE)
        default, known = _default_partition(schema, op.parent)
        if op.model.default_partition:
            pass  # the new partition is the DEFAULT one: nothing else is scanned
        elif default:
            b.lock(default, T.ACCESS_EXCLUSIVE)
            for p in _partitions(schema, default):
                b.lock(p, T.ACCESS_EXCLUSIVE)
            b.scan = True
            b.note("the DEFAULT partition is scanned for rows that belong to the new bound")
        elif not known and _partitions(schema, op.parent):
            b.note(
                "if the parent has a DEFAULT partition it is locked ACCESS EXCLUSIVE and scanned "
                "(the model does not say which partition is the default)"
            )
    elif isinstance(op, CreateTable):
        for r in op.references:
            if r != op.model.name:
                b.lock(r, T.SHARE_ROW_EXCLUSIVE)
    elif kind == "comment":
        b.lock(statement.table or statement.target, row.mode)
    elif isinstance(op, DropView):
        for v in op.names:
            b.lock(v, row.mode)
    elif isinstance(op, RenameTable):
        for old, _ in op.pairs:
            b.lock(old, row.mode)
    else:  # create_trigger, drop_trigger, create_rule, drop_rule, create_policy, create_statistics, ...
        lock_tree(statement.table, row.mode)
    return b.impact()
