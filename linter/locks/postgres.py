"""PostgreSQL: what a statement locks, rewrites and scans, from the lock table and the schema.

`impacts(statement, schema, version)` returns one `LockImpact` per ALTER TABLE sub-command, or
one for any other statement that touches existing relations. The table (`postgres_table`)
drives it: the row for the statement's key on that major names the lock on the statement's own
relations and, by role, the locks on others; `ROLES` below resolves each role to relations
from the statement's typed facts and the schema model, in one place. Version facts live only in
the rows' since/until. What remains here settles the "it depends" of a row (rewrite and scan)
from facts: volatile defaults, binary-coercible type changes (and the CHECKs they validate again),
USING INDEX, NOT VALID, a CHECK that proves NOT NULL, the DEFAULT partition. Where the model
lacks a fact, the answer is the cautious one and the impact's note says what was assumed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from schemacite.locks import NO_LOCK_KINDS, Lock, LockImpact
from schemacite.locks import postgres_table as T
from schemacite.locks.functions import built_in, volatile
from schemacite.locks.modes import ACCESS_EXCLUSIVE, SHARE_UPDATE_EXCLUSIVE, blocks, rank
from schemacite.locks.rows import PostgresRow, dotted
from schemacite.model import Schema, Table
from schemacite.model.record import record
from schemacite.model.schema import Column, Index, constraint_name
from schemacite.model.statements import (
    Action,
    AddCheck,
    AddColumn,
    AddForeignKey,
    AddKey,
    AlterColumnType,
    AlterIndex,
    AlterSequence,
    AlterTable,
    AlterView,
    Cluster,
    ConstraintAction,
    CopyFrom,
    CreateIndex,
    CreateMatview,
    CreatePartition,
    CreateSequence,
    CreateTable,
    CreateTableAs,
    CreateTableLike,
    CreateView,
    Delete,
    DropIndex,
    DropTable,
    Grant,
    IndexAction,
    Inherit,
    Insert,
    LockTable,
    Merge,
    Op,
    Option,
    PartitionAction,
    Publication,
    RefreshMatview,
    Reindex,
    RenameTable,
    Select,
    SetDefault,
    Statement,
    Truncate,
    Update,
    Vacuum,
)


def impacts(statement: Statement, schema: Schema, version: int) -> list[LockImpact]:
    """Lock outcome of `statement` on PostgreSQL major `version` (12..18; 150020 or "15" accepted)."""
    version = _major(version)
    if statement.kind in NO_LOCK_KINDS:
        return []
    op = statement.op
    if isinstance(op, AlterTable):
        return [_impact(_Ctx(statement, schema, version, a)) for a in op.actions]
    return [_impact(_Ctx(statement, schema, version, None))]


def _major(version: int | str) -> int:
    v = int(str(version).split(".")[0])
    return v // 10000 if v >= 1000 else v


# --------------------------------------------------------------------------- the statement at hand


@record
class _Ctx:
    """The statement (or ALTER TABLE sub-command) whose locks are looked up, on its schema."""

    statement: Statement
    schema: Schema
    version: int
    action: Action | None

    @property
    def op(self) -> Op:
        return self.statement.op

    @property
    def altered(self) -> str:
        """The table an ALTER TABLE sub-command (`action`) changes."""
        op = self.statement.op
        assert isinstance(op, AlterTable)  # only ALTER TABLE has sub-commands
        return op.name

    @property
    def table(self) -> Table | None:
        key = self.statement.table
        return self.schema.tables.get(key) if key else None

    def partitioned(self, key: str | None) -> bool:
        if not key:
            return False
        t = self.schema.tables.get(key)
        return t is not None and (t.partitioning is not None or bool(self.schema.partitions(key)))

    def partitions(self, key: str | None) -> list[str]:
        """Every partition below `key`, depth first."""
        out: list[str] = []
        todo = [key] if key else []
        while todo:
            for name in self.schema.partitions(todo.pop()):
                if name not in out:
                    out.append(name)
                    todo.append(name)
        return out

    def default_partition(self, parent: str | None) -> tuple[str | None, bool]:
        """(the DEFAULT partition of `parent`, whether the model could tell)."""
        known = False
        for name in self.schema.partitions(parent) if parent else ():
            t = self.schema.tables.get(name)
            if t is not None and t.partition_bound is not None:
                known = True
                if t.default_partition:
                    return name, True
        return None, known


def _key(ctx: _Ctx) -> str:
    """The lock-table key of the statement (or ALTER TABLE sub-command): its operation, and the
    variant its facts select (CONCURRENTLY, a partitioned table, a virtual column, ...)."""
    if ctx.action is not None:
        return _action_key(ctx, ctx.action)
    op = ctx.op
    kind = ctx.statement.kind
    if _exists(ctx):
        return kind + ".exists"
    if getattr(op, "concurrently", False) and kind in ("create_index", "drop_index", "reindex", "refresh_matview"):
        return kind + ".concurrently"
    if isinstance(op, Vacuum):
        return "vacuum.full" if op.full else "vacuum"
    if isinstance(op, LockTable):
        return "lock_table." + "_".join(op.mode.lower().split())
    if isinstance(op, AlterIndex):
        return f"alter_index.{op.action}"
    if isinstance(op, Select) and op.row_lock:
        return "select.for_update"
    return kind


def _action_key(ctx: _Ctx, a: Action) -> str:
    """The lock-table key of one ALTER TABLE sub-command."""
    key = f"alter_table.{a.op}"
    table = ctx.table
    if isinstance(a, AddColumn) and a.if_not_exists and table is not None and a.definition.name in table.columns:
        return key + ".exists"
    if isinstance(a, AddColumn) and a.definition.generated == "virtual":
        return key + ".virtual"
    if a.op == "set_expression" and table is not None and a.column in table.columns:
        if table.columns[a.column or ""].generated == "virtual":
            return key + ".virtual"
    if isinstance(a, ConstraintAction) and a.op == "alter_constraint" and a.enforced is not None:
        return key + (".enforced" if a.enforced else ".not_enforced")
    if isinstance(a, AddForeignKey) and not a.key.enforced or isinstance(a, AddCheck) and not a.constraint.enforced:
        return key + ".not_enforced"
    if isinstance(a, AddForeignKey) and a.not_valid and ctx.partitioned(ctx.altered):
        return key + ".not_valid_partitioned"
    if ctx.partitioned(ctx.altered) and T.rows_for(key + ".partitioned"):
        return key + ".partitioned"
    return key


def _exists(ctx: _Ctx) -> bool:
    """Whether a CREATE ... IF NOT EXISTS names an object the model holds: the server skips it."""
    op, schema = ctx.op, ctx.schema
    if isinstance(op, CreateIndex) and op.if_not_exists and not op.concurrently and op.index.name:
        return schema.relation_in_schema_of(op.table or "", op.index.name)
    if isinstance(op, CreateTable) and not isinstance(op, CreatePartition) and op.if_not_exists:
        return op.model.name in schema.tables
    if isinstance(op, CreateMatview) and op.if_not_exists:
        return op.name in schema.views
    return False


# --------------------------------------------------------------------------- relations by role


# statements whose own relation is the table (or object) they name first
_NAMED = frozenset(
    {
        "insert",
        "update",
        "delete",
        "merge",
        "copy",
        "comment",
        "create_trigger",
        "drop_trigger",
        "create_rule",
        "drop_rule",
        "create_policy",
        "alter_policy",
        "drop_policy",
        "create_statistics",
        "create_index",
        "refresh_matview",
        "alter_view",
        "alter_sequence",
    }
)


def _main(ctx: _Ctx) -> list[str]:
    """The statement's own relations: they take the row's `mode`."""
    op, kind = ctx.op, ctx.statement.kind
    if ctx.action is not None:
        return [ctx.altered]
    if isinstance(op, (DropTable, Truncate, LockTable, Grant)) or kind in ("vacuum", "analyze"):
        return list(op.relations()) or ["*"]
    if isinstance(op, Reindex):
        if op.object == "index":
            owner = ctx.schema.index_owner_key(op.name) if op.name else None
            return [owner] if owner else []
        return [op.name] if op.object == "table" and op.name else ["*"]
    if isinstance(op, Cluster):
        return [op.name] if op.name else ["*"]
    if isinstance(op, RenameTable):
        return [old for old, _ in op.pairs]
    if isinstance(op, Select):
        return list(op.locked if op.row_lock else op.reads or ())
    if kind in ("drop_view", "drop_sequence"):
        return list(op.relations())
    if kind in _NAMED:
        own = ctx.statement.table or ctx.statement.target
        return [own] if own else []
    return []


Resolved = tuple[list[str], str | None]  # relations, and a note when the model could not tell


def _referenced(ctx: _Ctx) -> Resolved:
    op, a, t = ctx.op, ctx.action, ctx.table
    if isinstance(a, AddColumn):
        return list(a.references), None
    if isinstance(a, AddForeignKey):
        return [a.key.references], None
    if isinstance(a, ConstraintAction):
        if t is None:
            return (
                [],
                "if the constraint is a foreign key, the referenced table is locked too (the table was "
                "not seen in the history)",
            )
        # an unnamed key goes by the name PostgreSQL gave it (an inline REFERENCES: t_col_fkey)
        return [
            fk.references for fk in t.foreign_keys if constraint_name(fk.name, t.name, fk.columns, "fkey") == a.name
        ], None
    if isinstance(op, CreatePartition):
        return [r for r in op.references if r not in (op.model.name, op.parent)], None
    if isinstance(op, CreateTable):
        return [r for r in op.references if r != op.model.name], None
    return [], None


def _fk_parents(ctx: _Ctx) -> Resolved:
    """Tables the foreign keys of the statement's table point at, where the statement touches them."""
    t, a, op = ctx.table, ctx.action, ctx.op
    if t is None:
        if isinstance(a, AlterColumnType):
            return [], (
                "if the column is part of a foreign key (on either side), the table on the other side is "
                "locked ACCESS EXCLUSIVE too (the table was not seen in the history)"
            )
        return [], None
    keys = t.foreign_keys
    if isinstance(a, AlterColumnType):
        keys = [fk for fk in keys if a.column in fk.columns]
    elif isinstance(op, Insert) and op.columns:
        keys = [fk for fk in keys if set(fk.columns) & set(op.columns)]
    elif isinstance(op, Update):
        keys = [fk for fk in keys if set(fk.columns) & set(op.columns)]
    elif isinstance(op, DropTable):
        keys = [fk for t2 in op.tables if (m := ctx.schema.tables.get(t2)) is not None for fk in m.foreign_keys]
        return [k.references for k in keys if k.references not in op.tables], None
    return [fk.references for fk in keys if fk.references != t.name], None


def _referencing(ctx: _Ctx) -> Resolved:
    """Tables whose foreign keys point at the statement's table, where the statement reaches them."""
    op, a = ctx.op, ctx.action
    schema = ctx.schema
    if isinstance(a, AlterColumnType):
        t = ctx.table
        if t is None:
            return [], None
        keys = ([t.primary_key] if t.primary_key else []) + t.unique_keys
        if not any(a.column in k.columns for k in keys):
            return [], None
        return [
            r
            for r in schema.referencing(ctx.altered)
            if any(
                a.column in fk.ref_columns or not fk.ref_columns
                for fk in schema.tables[r].foreign_keys
                if fk.references == ctx.altered
            )
        ], None
    if isinstance(op, (DropTable, Truncate)):
        if not op.cascade:
            return [], None
        return [r for t in op.tables for r in schema.referencing(t) if r not in op.tables], None
    if isinstance(op, Delete):
        return schema.referencing(op.into), None
    if isinstance(op, Update):
        return [
            r
            for r in schema.referencing(op.into)
            if any(
                set(fk.ref_columns) & set(op.columns)
                for fk in schema.tables[r].foreign_keys
                if fk.references == op.into
            )
        ], None
    return [], None


def _partition(ctx: _Ctx) -> Resolved:
    a = ctx.action
    return ([a.partition] if isinstance(a, PartitionAction) else []), None


def _partition_children(ctx: _Ctx) -> Resolved:
    a = ctx.action
    return (ctx.partitions(a.partition) if isinstance(a, PartitionAction) else []), None


def _default_partition(ctx: _Ctx) -> Resolved:
    a, op = ctx.action, ctx.op
    if isinstance(op, DropTable):
        parents = {ctx.schema.tables[t].partition_of for t in op.tables if t in ctx.schema.tables}
        defaults = [ctx.default_partition(p)[0] for p in parents if p]
        return [d for d in defaults if d and d not in op.tables], None
    parent = op.parent if isinstance(op, CreatePartition) else ctx.altered if isinstance(a, PartitionAction) else None
    if isinstance(op, CreatePartition) and op.model.default_partition:
        return [], None  # the new partition is the DEFAULT one
    default, known = ctx.default_partition(parent)
    if default and not (isinstance(a, PartitionAction) and default == a.partition):
        return [default], None
    if not known and parent and ctx.schema.partitions(parent):
        return [], (
            "if the parent has a DEFAULT partition it is locked ACCESS EXCLUSIVE too (the model does not "
            "say which partition is the default)"
        )
    return [], None


def _parent(ctx: _Ctx) -> Resolved:
    return ([ctx.op.parent] if isinstance(ctx.op, CreatePartition) else []), None


def _inherit_parent(ctx: _Ctx) -> Resolved:
    return ([ctx.action.parent] if isinstance(ctx.action, Inherit) else []), None


def _index(ctx: _Ctx) -> Resolved:
    op, a = ctx.op, ctx.action
    if isinstance(a, IndexAction):
        return [i for i in (a.index,) if i], None
    if isinstance(op, DropIndex):
        return list(op.names), None
    if isinstance(op, AlterIndex):
        return [op.name], None
    return [], None


def _table_indexes(ctx: _Ctx) -> Resolved:
    op, schema = ctx.op, ctx.schema
    if isinstance(op, Reindex) and op.object == "index":
        return [i for i in (op.name,) if i], None
    name = op.name if isinstance(op, (Reindex, Cluster)) else None
    t = schema.tables.get(name) if name else None
    if t is None or ctx.partitioned(name):  # partitions' index names are not in the model
        return [], None
    names = [t.primary_key.name or f"{t.name.split('.')[-1]}_pkey"] if t.primary_key is not None else []
    return names + [i.name for i in t.indexes if i.name], None


def _index_table(ctx: _Ctx) -> Resolved:
    op = ctx.op
    if isinstance(op, DropIndex):
        owners: list[str] = []
        missing: list[str] = []
        for name in op.names:
            owner = op.on or ctx.schema.index_owner_key(name)
            (owners if owner else missing).append(owner or name)
        note = (
            f"the table owning {', '.join(missing)} was not seen in the history: it is locked too" if missing else None
        )
        return owners, note
    if isinstance(op, AlterIndex) and op.action == "attach_partition":
        return [
            o for o in (ctx.schema.index_owner_key(op.name), ctx.schema.index_owner_key(op.partition or "")) if o
        ], None
    return [], None


def _partition_index(ctx: _Ctx) -> Resolved:
    op = ctx.op
    return ([op.partition] if isinstance(op, AlterIndex) and op.partition else []), None


def _sources(ctx: _Ctx) -> Resolved:
    op = ctx.op
    if isinstance(op, RefreshMatview):
        view = ctx.schema.views.get(op.name)
        if view is None or view.reads is None:
            return [], "the tables its query reads are locked ACCESS SHARE (the view was not seen in the history)"
        return list(view.reads), None
    if isinstance(op, CreateTableLike):
        return [op.source], None
    if isinstance(op, (CreateView, CreateTableAs)):
        created = op.name if isinstance(op, CreateView) else op.model.name
        if op.reads is None:
            return [], "could not tell which tables the query reads: each is locked ACCESS SHARE"
        return [r for r in op.reads if r != created], None
    if isinstance(op, Select):
        return [r for r in op.reads or () if r not in op.locked], None
    reads = getattr(op, "reads", None)
    return list(reads or ()), None


def _replaced_view(ctx: _Ctx) -> Resolved:
    op = ctx.op
    if isinstance(op, CreateView) and op.or_replace and op.name in ctx.schema.views:
        return [op.name], None
    return [], None


def _partition_parent(ctx: _Ctx) -> Resolved:
    op = ctx.op
    if not isinstance(op, DropTable):
        return [], None
    parents = [ctx.schema.tables[t].partition_of for t in op.tables if t in ctx.schema.tables]
    return [p for p in parents if p and p not in op.tables], None


def _owned_table(ctx: _Ctx) -> Resolved:
    op = ctx.op
    return ([op.owned_by] if isinstance(op, (CreateSequence, AlterSequence)) and op.owned_by else []), None


def _published(ctx: _Ctx) -> Resolved:
    return (list(ctx.op.tables) if isinstance(ctx.op, Publication) else []), None


# the one map from a row's roles to the relations they name (postgres_table.ROLES says what each is)
ROLES: dict[str, Callable[[_Ctx], Resolved]] = {
    "referenced": _referenced,
    "fk_parents": _fk_parents,
    "referencing": _referencing,
    "partition": _partition,
    "partition_children": _partition_children,
    "default_partition": _default_partition,
    "parent": _parent,
    "inherit_parent": _inherit_parent,
    "index": _index,
    "table_indexes": _table_indexes,
    "index_table": _index_table,
    "partition_index": _partition_index,
    "sources": _sources,
    "replaced_view": _replaced_view,
    "partition_parent": _partition_parent,
    "owned_table": _owned_table,
    "published": _published,
}


# --------------------------------------------------------------------------- one impact


class _Build:
    """Collects the locks and notes of one impact."""

    def __init__(self, key: str, row: PostgresRow):
        self.key = key
        self.row = row
        self.locks: dict[str, str] = {}
        self.notes: list[str] = []
        self.rewrite = bool(row.rewrite)
        self.rewrite_when: str | None = None  # the condition of a rewrite the model cannot tell
        self.scan = bool(row.scan)
        self.volatility_unknown: tuple[str, ...] = ()
        self.alternative = row.alternative
        self.alternative_outside = row.alternative_outside

    def lock(self, relation: str | None, mode: str | None) -> None:
        if not relation or not mode:
            return
        old = self.locks.get(relation)
        if old is None or rank(mode) > rank(old):
            self.locks[relation] = mode

    def note(self, text: str | None) -> None:
        if text and text not in self.notes:
            self.notes.append(text)

    def impact(self) -> LockImpact:
        if self.row.note:
            self.notes.insert(0, self.row.note)
        alternative = self.alternative
        conditional = self.row.rewrite is None or self.row.scan is None
        if conditional and not self.rewrite and not self.scan:
            alternative = None  # the alternative avoids a rewrite or scan this statement does not do
        return LockImpact(
            operation=self.key,
            locks=[Lock(r, m, blocks(m)) for r, m in self.locks.items()],
            rewrite=self.rewrite,
            rewrite_when=self.rewrite_when if self.rewrite else None,
            scan=self.scan,
            alternative=alternative,
            alternative_outside=self.alternative_outside and alternative is not None,
            note="; ".join(dict.fromkeys(self.notes)) or None,
            source=self.row.source,
            refused=self.row.refused or None,
            row=self.key,
            volatility_unknown=self.volatility_unknown,
        )


def _impact(ctx: _Ctx) -> LockImpact:
    key = _key(ctx)
    a = ctx.action
    if a is not None and a.op in T.NOT_POSTGRES:
        return LockImpact(operation=key, note="a MySQL/MariaDB form: PostgreSQL rejects it", refused="42601")
    row = T.row_for(key, ctx.version)
    if row is None:
        return _unavailable(key, ctx.version) or _unknown(key, ctx.statement.table)
    b = _Build(key, row)
    mode = row.mode
    if isinstance(a, Option) and a.op in ("set_storage_params", "reset_storage_params"):
        mode = _reloption_mode(a.params)
    elif isinstance(ctx.op, AlterView) and ctx.op.params:
        mode = _reloption_mode(ctx.op.params)
    only = bool(getattr(ctx.op, "only", False))
    for main in _main(ctx):
        if main == "*":
            b.lock("*", mode)
            continue
        b.lock(main, row.partitioned_mode if row.partitioned_mode and ctx.partitioned(main) else mode)
        if row.recurse and not only:
            for p in ctx.partitions(main):
                b.lock(p, row.partition_mode or mode)
    for other in row.others:
        relations, note = ROLES[other.role](ctx)
        b.note(note)
        for rel in relations:
            b.lock(rel, other.mode)
            if other.recurse:
                for p in ctx.partitions(rel):
                    b.lock(p, other.mode)
    settle = _FACTS.get(key.split(".", 2)[0] if a is None else ".".join(key.split(".")[:2]))
    if settle is not None and not key.endswith(".exists"):  # a skipped statement does no work
        settle(b, ctx)
    return b.impact()


def _unavailable(key: str, version: int) -> LockImpact | None:
    rows = T.rows_for(key)
    if not rows:
        return None
    first = min(r.since for r in rows)
    if (version,) >= first:
        return None
    return LockImpact(
        operation=key,
        note=f"not available on PostgreSQL {version} (from {dotted(first)}): the server rejects the statement",
        source=rows[0].source,
        refused="0A000",
        row=key,
    )


def _unknown(key: str, main: str | None) -> LockImpact:
    locks = [Lock(main, ACCESS_EXCLUSIVE, "reads+writes")] if main else []
    return LockImpact(
        operation=key, locks=locks, note="no PostgreSQL lock-table row for this form: assumed ACCESS EXCLUSIVE"
    )


def _reloption_mode(params: tuple[str, ...]) -> str:
    if not params:
        return ACCESS_EXCLUSIVE
    strongest = SHARE_UPDATE_EXCLUSIVE
    for n in params:
        bare = n.split(".", 1)[1] if n.startswith("toast.") else n
        if bare not in T.RELOPTION_SUE:
            strongest = ACCESS_EXCLUSIVE
    return strongest


# --------------------------------------------------------------------------- rewrite and scan, from facts

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
            "timestamp <-> timestamptz: rewrites unless the session TimeZone is UTC when the statement "
            "runs; set TimeZone = 'UTC' for it to be a catalog-only change"
        )
    return True, f"{before} -> {after} is not binary-coercible"


_UTC = frozenset(
    {
        "utc",
        "etc/utc",
        "etc/universal",
        "universal",
        "zulu",
        "etc/zulu",
        "gmt",
        "etc/gmt",
        "gmt0",
        "etc/gmt0",
        "greenwich",
        "utc0",
        "z",
    }
)


def _time_zone_rewrite(zone: str | None) -> tuple[bool, str]:
    """timestamp <-> timestamptz keeps the stored values only when the session TimeZone is UTC (12+)."""
    if zone is not None and zone.lower() in _UTC:
        return False, f"timestamp <-> timestamptz under SET TimeZone = '{zone}' earlier in the file: no rewrite (12+)"
    if zone:
        return True, f"timestamp <-> timestamptz under SET TimeZone = '{zone}': every value is converted"
    return True, (
        "timestamp <-> timestamptz: rewrites unless the session TimeZone is UTC when it runs (the "
        "server's or role's setting decides; SET TimeZone = 'UTC' first makes it a catalog-only change)"
    )


def rewrites_on_add(column: Column, declared: dict[str, str]) -> tuple[str | None, tuple[str, ...]]:
    """Why adding this column rewrites every row, or None: a volatile default, an identity, serial
    or stored generated column. A stable or immutable default is evaluated once and stored in the
    catalog (11+); a virtual generated column (18) stores nothing. With it, the functions whose
    volatility alone decides and is unknown (neither built in nor created in the history,
    `declared`): CREATE FUNCTION makes a function VOLATILE unless it says otherwise, so the rewrite
    is assumed."""
    if column.identity:
        return "an identity column fills every row from its sequence", ()
    if column.serial:
        return "a serial column fills every row from its sequence", ()
    if column.generated == "stored":
        return "a stored generated column is computed for every row", ()
    calls = [f for f in column.default_calls if volatile(f) or declared.get(f) == "volatile"]
    if calls:
        return f"the default calls {', '.join(calls)}(), which is volatile: every row gets its own value", ()
    unknown = tuple(f for f in column.default_calls if f not in declared and not built_in(f))
    if unknown:
        names = ", ".join(f"{f}()" for f in unknown)
        return f"assumed rewritten: the volatility of {names} decides, and no CREATE FUNCTION read declares it", unknown
    return None, ()


def _add_column(b: _Build, ctx: _Ctx) -> None:
    a = ctx.action
    assert isinstance(a, AddColumn)
    column = a.definition
    why, b.volatility_unknown = rewrites_on_add(column, ctx.schema.functions)
    b.rewrite = why is not None
    # a new column's REFERENCES is checked only when it gets values: a NULL column holds none
    filled = column.default is not None and column.default.upper() != "NULL"
    not_null_virtual = column.generated == "virtual" and not column.nullable
    # an inline UNIQUE or PRIMARY KEY builds its index over every row
    b.scan = b.rewrite or bool(a.references) and filled or a.check or not_null_virtual or a.unique or a.primary
    b.note(why)
    reasons = {
        "rewrite": b.rewrite,
        "not_null": b.rewrite and not column.nullable,  # a column filled in batches holds NULLs meanwhile
        "unique": a.unique and not a.primary,
        "primary": a.primary,
        "references": bool(a.references) and filled,
        "check": bool(a.check),
    }
    ways = [T.ADD_COLUMN_WAYS[r] for r, held in reasons.items() if held]
    if ways:
        # the advice follows why the rows are read under the lock, not the statement's kind
        b.alternative = f"add the column without {', '.join(w for w, _ in ways)}, then " + "; ".join(t for _, t in ways)
        b.alternative_outside = any(held and r in T.ADD_COLUMN_OUTSIDE for r, held in reasons.items())
    else:
        b.alternative = None


def _alter_column_type(b: _Build, ctx: _Ctx) -> None:
    a, t = ctx.action, ctx.table
    assert isinstance(a, AlterColumnType)
    col = t.columns.get(a.column or "") if t is not None else None
    if a.using and not a.using_only_column:
        b.rewrite, why = True, "USING computes new values: the table is rewritten"
    else:
        if col is None or not col.base_type:
            b.rewrite, why = True, "old column type unknown: assumed rewritten"
            b.rewrite_when = "the change is not binary-coercible (the column's current type is unknown)"
        elif not a.base_type:
            b.rewrite, why = True, "new column type unknown: assumed rewritten"
        else:
            b.rewrite, why = type_change_rewrites((col.base_type, col.type_args), (a.base_type, a.type_args))
            if {col.base_type, a.base_type} == {"timestamp", "timestamptz"}:
                b.rewrite, why = _time_zone_rewrite(ctx.statement.time_zone)
    b.scan = b.rewrite
    b.note(why)
    # a CHECK the same statement drops is gone first (ALTER TABLE runs its drops before the rest)
    dropped = {
        x.name for x in getattr(ctx.op, "actions", []) if x.op == "drop_constraint" and isinstance(x, ConstraintAction)
    }
    checks = [c for c in _checks_reading(t, a.column) if c not in dropped] if t is not None and a.column else []
    if checks and not b.rewrite:
        # the server drops and adds again each CHECK that reads the column, validating it anew
        b.scan = True
        b.note(f"CHECK {', '.join(checks)} reads the column: every row is checked again")
        b.alternative = (
            f"in one ALTER TABLE, drop CHECK {', '.join(checks)}, change the type and add the CHECK back "
            "NOT VALID; then VALIDATE CONSTRAINT in a transaction of its own (SHARE UPDATE EXCLUSIVE)"
        )
    indexed = t is not None and any(a.column in i.columns for i in _keys(t))
    if b.rewrite and indexed:
        b.note("the indexes on the column are rebuilt")
    elif indexed and col is not None and col.collation != a.collation:
        # the stored values stay, but their order changes: each index on the column is built again
        b.scan = True
        b.note(
            f"the collation changes ({col.collation or 'default'} -> {a.collation or 'default'}): the indexes on the column are rebuilt"
        )


_LITERAL = re.compile(r"'(?:[^']|'')*'")
_IDENTIFIER = re.compile(r'"((?:[^"]|"")*)"|([A-Za-z_][A-Za-z0-9_$]*)')


def _checks_reading(t: Table, column: str) -> list[str]:
    """The validated, enforced CHECK constraints whose expression names `column` (string literals
    aside). A type change checks them again over every row even when it keeps the stored values;
    a NOT VALID one, or a NOT NULL constraint, is not checked again (12 to 18)."""
    found = []
    for c in t.checks:
        if c.not_null or not c.validated or not c.enforced:
            continue
        words = _IDENTIFIER.findall(_LITERAL.sub("''", c.expression or ""))
        if any((q.replace('""', '"') if q else w.lower()) == column for q, w in words):
            found.append(c.name or f"({c.expression})")
    return found


def _set_not_null(b: _Build, ctx: _Ctx) -> None:
    a, t = ctx.action, ctx.table
    if t is not None and a is not None and a.column and t.proven_not_null(a.column):
        b.scan = False
        b.note("a valid CHECK (col IS NOT NULL) already proves it: no scan (12+)")
    else:
        b.scan = True
        if t is None:
            b.note("the table was not seen in the history: a valid CHECK (col IS NOT NULL) would spare the scan (12+)")


def _add_key(b: _Build, ctx: _Ctx) -> None:
    a, t = ctx.action, ctx.table
    assert isinstance(a, AddKey)
    if a.using_index:
        b.scan = a.index.primary and _nullable_key(t, a.using_index)
        if b.scan:
            b.note("a key column is still nullable: the implicit SET NOT NULL scans the table")
    else:
        b.scan = True


def _add_foreign_key(b: _Build, ctx: _Ctx) -> None:
    a = ctx.action
    assert isinstance(a, AddForeignKey)
    b.scan = not a.not_valid and a.key.enforced


def _add_check(b: _Build, ctx: _Ctx) -> None:
    a = ctx.action
    b.scan = not getattr(a, "not_valid", False) and (not isinstance(a, AddCheck) or a.constraint.enforced)


def _validate(b: _Build, ctx: _Ctx) -> None:
    a, t = ctx.action, ctx.table
    if t is not None and isinstance(a, ConstraintAction):
        if any(c.name == a.name and c.not_null for c in t.checks):
            b.note("validating a NOT NULL constraint scans under SHARE UPDATE EXCLUSIVE (18+)")


def _attach(b: _Build, ctx: _Ctx) -> None:
    b.scan = True
    default, _known = ctx.default_partition(ctx.altered)
    if default and default != getattr(ctx.action, "partition", None):
        b.note("the DEFAULT partition is scanned for rows that belong to the new bound")
    b.note(
        "assumed to scan the new partition: the model cannot tell whether a CHECK constraint already implies "
        "the partition bound"
    )


def _detach_concurrently(b: _Build, ctx: _Ctx) -> None:
    if ctx.default_partition(ctx.altered)[0]:
        b.note("refused: the parent has a DEFAULT partition")


def _set_tablespace(b: _Build, ctx: _Ctx) -> None:
    if ctx.partitioned(ctx.altered):
        b.rewrite = b.scan = False
        b.note("a partitioned table holds no data: only the default for new partitions changes")


def _set_default(b: _Build, ctx: _Ctx) -> None:
    if isinstance(ctx.action, SetDefault) and any(volatile(f) for f in ctx.action.default_calls):
        b.note("affects only rows inserted later, even with a volatile default")


def _create_index(b: _Build, ctx: _Ctx) -> None:
    op = ctx.op
    if not isinstance(op, CreateIndex):
        return
    if op.only and ctx.partitioned(op.on):
        b.scan = False  # an index on the parent alone, invalid until each partition's is attached
    if op.concurrently and ctx.partitioned(op.on):
        b.note(
            "CREATE INDEX CONCURRENTLY is refused on a partitioned table: build it ON ONLY the parent, "
            "CONCURRENTLY on each partition, then ATTACH"
        )


def _create_partition(b: _Build, ctx: _Ctx) -> None:
    op = ctx.op
    if not isinstance(op, CreatePartition):
        return
    default, _known = ctx.default_partition(op.parent)
    b.scan = bool(default) and not op.model.default_partition
    if b.scan:
        b.note("the DEFAULT partition is scanned for rows that belong to the new bound")


def _whole_table(b: _Build, ctx: _Ctx) -> None:
    """Data statements: without a WHERE every row is read (a backfill); with one, the plan decides."""
    op, kind = ctx.op, ctx.statement.kind
    if not isinstance(op, (Insert, Update, Delete, Merge, CopyFrom, Select)):
        return
    if kind == "insert":
        b.scan = op.every_row and bool(op.reads)  # INSERT ... SELECT reads its source whole
    elif kind != "copy":
        b.scan = op.every_row
    if b.scan:
        b.note("no WHERE: every row is read" + ("" if kind in ("select", "insert") else " and written"))
    if kind in ("update", "delete"):
        unindexed = [r for r in (_referencing(ctx)[0]) if not _fk_indexed(ctx.schema.tables.get(r), op.into)]
        if unindexed:
            b.scan = True
            b.note(
                f"{', '.join(unindexed)} has no index on its foreign key to {op.into}: the check of every row "
                "deleted or changed here reads it whole"
            )


def _star(b: _Build, ctx: _Ctx) -> None:
    op = ctx.op
    if "*" in _main(ctx):
        if isinstance(op, Reindex):
            b.note(f"REINDEX {op.object.upper()}: every table in it in turn, one transaction each")
            if op.object == "system":  # the server refuses it: "cannot reindex system catalogs concurrently"
                b.alternative = None
                b.note("the system catalogs have no CONCURRENTLY form: run it when DDL may wait")
        elif isinstance(op, Cluster):
            b.note("CLUSTER without a table: every table clustered before, one after another")
        else:
            b.note("no table named: every table of the database, one after another")
    if isinstance(op, Reindex) and op.object == "index" and not _main(ctx):
        b.note(
            "the table owning the index was not seen in the history: it is locked "
            + ("SHARE UPDATE EXCLUSIVE" if op.concurrently else "SHARE")
            + " too"
        )


_FACTS: dict[str, Callable[[_Build, _Ctx], None]] = {
    "alter_table.add_column": _add_column,
    "alter_table.alter_column_type": _alter_column_type,
    "alter_table.set_not_null": _set_not_null,
    "alter_table.add_primary_key": _add_key,
    "alter_table.add_unique": _add_key,
    "alter_table.add_foreign_key": _add_foreign_key,
    "alter_table.add_check": _add_check,
    "alter_table.add_not_null": _add_check,
    "alter_table.validate_constraint": _validate,
    "alter_table.attach_partition": _attach,
    "alter_table.detach_partition_concurrently": _detach_concurrently,
    "alter_table.set_tablespace": _set_tablespace,
    "alter_table.set_default": _set_default,
    "create_index": _create_index,
    "create_partition": _create_partition,
    "insert": _whole_table,
    "update": _whole_table,
    "delete": _whole_table,
    "merge": _whole_table,
    "copy": _whole_table,
    "select": _whole_table,
    "drop_table": _star,
    "truncate": _star,
    "vacuum": _star,
    "analyze": _star,
    "lock_table": _star,
    "reindex": _star,
    "cluster": _star,
}


def _fk_indexed(t: Table | None, target: str) -> bool:
    """Whether every foreign key of `t` to `target` leads some index of `t` (or `t` is unknown)."""
    if t is None:
        return True
    return all(
        any(idx.columns[: len(fk.columns)] == fk.columns for idx in _keys(t))
        for fk in t.foreign_keys
        if fk.references == target
    )


def _keys(t: Table) -> list[Index]:
    return ([t.primary_key] if t.primary_key else []) + t.indexes


def _nullable_key(tmodel: Table | None, index_name: str) -> bool:
    if tmodel is None:
        return True
    idx = tmodel.index_named(index_name)
    if idx is None or not idx.columns:
        return True
    return any(c not in tmodel.columns or tmodel.columns[c].nullable for c in idx.columns)
