"""PostgreSQL: what a statement locks, rewrites and scans, from the lock table and the schema.

`impacts(statement, schema, version)` returns one `LockImpact` per ALTER TABLE
sub-command, or one for any other statement that touches existing relations.
The facts live in `postgres_table`; this module only picks the row, names the
relations, and settles the "it depends" cases (volatile defaults, binary-coercible
type changes, USING INDEX, NOT VALID, partitions) from the statement and the
schema model. Where the model lacks a fact, the answer is the cautious one and
`LockImpact.note` says what was assumed.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from schemacite.locks import Lock, LockImpact
from schemacite.locks import postgres_table as T
from schemacite.model import Schema, Table
from schemacite.model.statements import Action, Statement

# statement kinds with no lock on existing relations worth reporting
_SILENT = frozenset({"begin", "commit", "set", "other"})


def impacts(statement: Statement, schema: Schema, version: int) -> list[LockImpact]:
    """Lock outcome of `statement` on PostgreSQL major `version` (12..17; 150020 or "15" accepted)."""
    version = _major(version)
    if statement.kind in _SILENT:
        return []
    if statement.kind == "alter_table":
        only = _only(statement)
        return [_alter_action(statement, a, schema, version, only) for a in statement.actions]
    return [_statement(statement, schema, version)]


# --------------------------------------------------------------------------- helpers


def _major(version: Any) -> int:
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
        if old is None or _rank(mode) > _rank(old):
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
            locks=[Lock(r, m, T.BLOCKS.get(m, "reads+writes")) for r, m in self.locks.items()],
            rewrite=self.rewrite,
            scan=self.scan,
            alternative=alternative,
            note="; ".join(dict.fromkeys(self.notes)) or None,
            source=self.row.source,
        )


_ORDER = (T.ACCESS_SHARE, T.ROW_SHARE, T.ROW_EXCLUSIVE, T.SHARE_UPDATE_EXCLUSIVE, T.SHARE,
          T.SHARE_ROW_EXCLUSIVE, T.EXCLUSIVE, T.ACCESS_EXCLUSIVE)


def _rank(mode: str) -> int:
    return _ORDER.index(mode) if mode in _ORDER else len(_ORDER)


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
    return LockImpact(operation=key, locks=locks,
                      note="no PostgreSQL lock-table row for this form: assumed ACCESS EXCLUSIVE")


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
        bound = getattr(schema.tables.get(name), "partition_bound", None)
        if bound is not None:
            known = True
            if str(bound).strip().upper() == "DEFAULT":
                return name, True
    return None, known


def _only(statement: Statement) -> bool:
    if statement.details.get("only"):
        return True
    return bool(re.match(
        r"\s*(?:ALTER\s+TABLE(?:\s+IF\s+EXISTS)?|LOCK(?:\s+TABLE)?|TRUNCATE(?:\s+TABLE)?|ANALY[SZ]E(?:\s+VERBOSE)?"
        r"|VACUUM(?:\s*\([^)]*\))?)\s+ONLY\b|\s*CREATE\s+.*?\bON\s+ONLY\b",
        statement.sql, re.IGNORECASE | re.DOTALL))


def _fold(name: str) -> str:
    parts = [p.strip().strip('"') for p in name.split(".")]
    parts = [p for p in parts if p]
    if len(parts) >= 2 and parts[-2].lower() == "public":
        parts = parts[-1:]
    return ".".join(parts).lower()


def _as_list(value: Any) -> list[str]:
    if not value:
        return []
    if isinstance(value, str):
        return [value]
    return [v for v in value if v]


def _foreign_keys(table: Table | None, *, with_columns: bool = False) -> list[Any] | None:
    """`table`'s foreign keys as (constraint name, referenced table[, columns]), if the model records them.

    The model has no such field yet; `Table.foreign_keys` (items: a referenced
    key, or an object/dict with `name`, `references` and `columns`) is read when
    present. None means unknown.
    """
    if table is None:
        return None
    fks = getattr(table, "foreign_keys", None)
    if fks is None:
        return None
    out: list[Any] = []
    for fk in fks:
        if isinstance(fk, str):
            name, ref, cols = None, fk, ()
        else:
            get = fk.get if isinstance(fk, dict) else (lambda k, fk=fk: getattr(fk, k, None))
            name, ref, cols = get("name"), get("references") or get("table"), tuple(get("columns") or ())
        if ref:
            out.append((name, ref, cols) if with_columns else (name, ref))
    return out


def _fk_targets(table: Table | None) -> list[str] | None:
    """Tables `table`'s foreign keys point at (None: the model cannot tell)."""
    fks = _foreign_keys(table)
    return None if fks is None else [ref for _, ref in fks]


def _referencing(schema: Schema, key: str | None) -> list[str] | None:
    """Tables whose foreign keys point at `key` (None when the model records no foreign keys)."""
    if not key:
        return []
    found: list[str] = []
    known = False
    for name, t in schema.tables.items():
        targets = _fk_targets(t)
        if targets is None:
            continue
        known = True
        if key in targets and name != key:
            found.append(name)
    return found if known else None


def _index_names(schema: Schema, key: str | None) -> list[str]:
    t = schema.tables.get(key) if key else None
    if t is None:
        return []
    names = []
    if t.primary_key is not None:
        names.append(t.primary_key.name or f"{t.name.split('.')[-1]}_pkey")
    names.extend(i.name for i in t.indexes if i.name)
    return names


def _query_sources(statement: Statement, created: str | None) -> list[str] | None:
    """Tables a CREATE VIEW / MATERIALIZED VIEW / TABLE AS reads (None: could not tell)."""
    listed = statement.details.get("reads") or statement.details.get("sources")
    if listed:
        return [t for t in _as_list(listed) if t != created]
    if statement.kind == "create_table_like" and statement.details.get("source"):
        return [statement.details["source"]]
    import sqlglot
    from sqlglot import exp

    m = re.search(r"\bAS\b(?P<q>.*)$", statement.sql, re.IGNORECASE | re.DOTALL)
    if not m:
        return None
    query = re.sub(r"\bWITH\s+(?:NO\s+)?DATA\s*;?\s*$", "", m.group("q"), flags=re.IGNORECASE)
    try:
        tree = sqlglot.parse_one(query, read="postgres")
    except sqlglot.errors.SqlglotError:
        return None
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    out: list[str] = []
    for t in tree.find_all(exp.Table):
        name = t.name.lower()
        if not name or name in ctes:
            continue
        key = f"{t.db.lower()}.{name}" if t.db and t.db.lower() != "public" else name
        if key != created and key not in out:
            out.append(key)
    return out


# ------------------------------------------------------------------ rewrite rules

_TYPE_ALIASES = {
    "character varying": "varchar", "char varying": "varchar", "character": "bpchar", "char": "bpchar",
    "integer": "int4", "int": "int4", "smallint": "int2", "bigint": "int8", "decimal": "numeric",
    "bit varying": "varbit", "timestamp without time zone": "timestamp",
    "timestamp with time zone": "timestamptz", "time without time zone": "time",
    "time with time zone": "timetz", "double precision": "float8", "real": "float4", "float": "float8",
    "boolean": "bool", "serial": "int4", "bigserial": "int8", "smallserial": "int2",
}
# typmod arguments whose widening keeps the stored bytes (types with a length-coercion support function)
_WIDENABLE = {"varchar", "numeric", "varbit", "timestamp", "timestamptz", "time", "timetz"}
# (old, new) base types the server relabels without touching the data
_RELABEL = {("varchar", "text"), ("text", "varchar"), ("cidr", "inet"), ("xml", "text")}


def _norm_type(text: str) -> tuple[str, tuple[int, ...] | None, str]:
    t = text.strip().lower()
    t = re.sub(r"\s+collate\s+.*$", "", t)
    array = ""
    while t.endswith("[]"):
        t, array = t[:-2].strip(), array + "[]"
    args_m = re.search(r"\(([^)]*)\)", t)
    args: tuple[int, ...] | None = None
    if args_m:
        try:
            args = tuple(int(a) for a in args_m.group(1).split(",") if a.strip())
        except ValueError:
            args = ()
        t = (t[: args_m.start()] + t[args_m.end():]).strip()
    t = re.sub(r"\s+", " ", t.replace('"', ""))
    t = t.split(".")[-1] if t.startswith("pg_catalog.") else t
    base = _TYPE_ALIASES.get(t, t)
    if base == "bpchar" and args is None and t in ("char", "character"):
        args = (1,)
    return base + array, args, t


def _type_change_rewrites(old: str, new: str) -> tuple[bool, str]:
    """(rewrites?, why) for ALTER COLUMN TYPE old -> new without a value-changing USING."""
    ob, oa, _ = _norm_type(old)
    nb, na, _ = _norm_type(new)
    if ob == nb:
        if oa == na:
            return False, "same type"
        if ob.rstrip("[]") in _WIDENABLE and not ob.endswith("[]"):
            if na is None:
                return False, f"{old} -> {new}: the length/precision limit is removed"
            if oa is not None and len(oa) == len(na):
                if ob == "numeric":
                    if len(oa) == 2 and oa[1] != na[1]:
                        return True, "numeric scale changes"
                    if na[0] >= oa[0]:
                        return False, "numeric precision grows"
                    return True, "numeric precision shrinks"
                if all(n >= o for n, o in zip(na, oa)):
                    return False, f"{old} -> {new}: the limit grows"
            return True, f"{old} -> {new}: values must be checked or converted"
        return True, f"{old} -> {new}: the type modifier changes"
    if (ob, nb) in _RELABEL:
        if nb == "varchar" and na is not None:
            return True, f"{old} -> {new}: every value's length must be checked"
        return False, f"{old} -> {new} is binary-coercible"
    if {ob, nb} == {"timestamp", "timestamptz"}:
        return True, ("timestamp <-> timestamptz: no rewrite only when the session TimeZone is UTC (12+); "
                      "assumed rewritten")
    return True, f"{old} -> {new} is not binary-coercible"


def _volatile_default(details: dict[str, Any]) -> bool:
    if details.get("identity") or details.get("stored"):
        return True
    type_text = str(details.get("type") or "").strip().lower()
    if type_text in T.SERIAL_TYPES:
        return True
    flag = details.get("volatile_default")
    if flag:
        return True
    default = details.get("default")
    if not default:
        return False
    funcs = {f.lower() for f in re.findall(r"([A-Za-z_][\w.]*)\s*\(", str(default))}
    return bool({f.split(".")[-1] for f in funcs} & T.VOLATILE_FUNCTIONS)


# ------------------------------------------------------------------ ALTER TABLE


def _alter_action(statement: Statement, action: Action, schema: Schema, version: int, only: bool) -> LockImpact:
    key = f"alter_table.{action.op}"
    table = statement.table
    if action.op in T.NOT_POSTGRES:
        return LockImpact(operation=key, note="a MySQL/MariaDB form: PostgreSQL rejects it")
    row = T.row_for(key, version)
    if row is None:
        return _unavailable(key, version) or _unknown(key, table)
    b = _Build(key, row)
    d = action.details
    mode = row.mode
    if action.op in ("set_storage_params", "reset_storage_params"):
        mode = _reloption_mode(d.get("params"), action.text)
    main_mode = row.partitioned_mode if row.partitioned_mode and _is_partitioned(schema, table) else mode
    b.lock(table, main_mode)
    if row.recurse and not only:
        for p in _partitions(schema, table):
            b.lock(p, row.partition_mode or mode)
    tmodel = schema.tables.get(table) if table else None
    op = action.op

    if op == "add_column":
        refs = _as_list(d.get("references"))
        for r in refs:
            b.lock(r, T.SHARE_ROW_EXCLUSIVE)
        b.rewrite = _volatile_default(d)
        b.scan = b.rewrite or bool(refs) or bool(d.get("check"))
        if b.rewrite:
            b.note("the default is volatile (or the column is identity/serial/stored generated): every row is rewritten")
    elif op == "alter_column_type":
        b.rewrite, why = _column_type_rewrite(tmodel, action)
        b.scan = b.rewrite
        b.note(why)
        fks = _foreign_keys(tmodel, with_columns=True)
        refs = _referencing(schema, table) if _is_key_column(tmodel, action.column) else []
        if fks is None or refs is None:
            b.note("if the column is part of a foreign key (on either side), the table on the other side is "
                   "locked ACCESS EXCLUSIVE too (the model records no foreign keys)")
        for _, ref, cols in fks or []:
            if not cols or action.column in cols:
                b.lock(ref, T.ACCESS_EXCLUSIVE)
        for r in refs or []:  # only key columns can be referenced
            b.lock(r, T.ACCESS_EXCLUSIVE)
    elif op == "set_not_null":
        if d.get("proven_by_check"):
            b.scan = False
        else:
            b.scan = True
            b.note("assumed to scan the table: the model cannot tell whether a valid CHECK (col IS NOT NULL) "
                   "already proves it (12+ skips the scan then)")
    elif op in ("add_primary_key", "add_unique", "add_constraint_using_index"):
        using = d.get("using_index") or (d.get("index") if op == "add_constraint_using_index" else None)
        if using and not isinstance(using, str):
            using = getattr(using, "name", None)
        if op == "add_constraint_using_index" and not using:
            using = _using_index_from_text(action.text)
        if using:
            primary = op == "add_primary_key" or bool(re.search(r"\bPRIMARY\s+KEY\b", action.text, re.IGNORECASE))
            b.scan = primary and _nullable_key(tmodel, using)
            if b.scan:
                b.note("a key column is still nullable: the implicit SET NOT NULL scans the table")
        else:
            b.scan = True
    elif op == "add_exclude":
        b.scan = True
    elif op == "add_foreign_key":
        for r in _as_list(d.get("references")):
            b.lock(r, T.SHARE_ROW_EXCLUSIVE)
        b.scan = not d.get("not_valid")
    elif op == "add_check":
        b.scan = not d.get("not_valid")
    elif op in ("validate_constraint", "drop_constraint"):
        other_mode = T.ROW_SHARE if op == "validate_constraint" else T.ACCESS_EXCLUSIVE
        refs = _as_list(d.get("references"))
        fks = _foreign_keys(tmodel)
        if not refs and fks is not None:
            refs = [ref for name, ref in fks if name and name == d.get("constraint")]
        for r in refs:
            b.lock(r, other_mode)
        if not refs and fks is None:
            word = "ROW SHARE" if op == "validate_constraint" else "ACCESS EXCLUSIVE"
            b.note(f"if the constraint is a foreign key, the referenced table is also locked {word} "
                   "(the model records no foreign keys)")
    elif op == "cluster_on":
        b.lock(d.get("index") or _word_after(action.text, "ON"), T.SHARE_UPDATE_EXCLUSIVE)
    elif op == "replica_identity":
        idx = _using_index_from_text(action.text)
        b.lock(idx, T.SHARE)
    elif op in ("inherit", "no_inherit"):
        parent = d.get("parent") or _word_after(action.text, "INHERIT")
        b.lock(_fold(parent) if parent else None, T.SHARE_UPDATE_EXCLUSIVE if op == "inherit" else T.ACCESS_SHARE)
    elif op in ("attach_partition", "detach_partition", "detach_partition_concurrently",
                "detach_partition_finalize"):
        part = d.get("partition")
        part_mode = next((o.mode for o in row.others if o.role == "partition"), T.ACCESS_EXCLUSIVE)
        b.lock(part, part_mode)
        if op != "detach_partition_finalize":
            for p in _partitions(schema, part):
                b.lock(p, part_mode)
        if op in ("attach_partition", "detach_partition"):
            default, known = _default_partition(schema, table)
            if default and default != part:
                b.lock(default, T.ACCESS_EXCLUSIVE)
                for p in _partitions(schema, default):
                    b.lock(p, T.ACCESS_EXCLUSIVE)
                if op == "attach_partition":
                    b.note("the DEFAULT partition is scanned for rows that belong to the new bound")
            elif not known and _partitions(schema, table):
                b.note("if the parent has a DEFAULT partition it is locked ACCESS EXCLUSIVE too "
                       "(the model does not say which partition is the default)")
        if op == "attach_partition":
            b.scan = True
            b.note("assumed to scan the new partition: the model cannot tell whether a CHECK constraint "
                   "already implies the partition bound")
        if op == "detach_partition_concurrently":
            default, _ = _default_partition(schema, table)
            if default:
                b.note("refused: the parent has a DEFAULT partition")
    elif op == "set_tablespace" and _is_partitioned(schema, table) and tmodel is not None \
            and tmodel.partitioning is not None:
        b.rewrite = b.scan = False
        b.note("a partitioned table holds no data: only the default for new partitions changes")
    return b.impact()


def _column_type_rewrite(tmodel: Table | None, action: Action) -> tuple[bool, str]:
    d = action.details
    new = str(d.get("type") or "")
    using = d.get("using")
    if using and not (isinstance(using, str) and _fold(using) == (action.column or "")):
        return True, "USING computes new values: the table is rewritten"
    col = tmodel.columns.get(action.column or "") if tmodel is not None else None
    if col is None or not col.type:
        return True, "old column type unknown: assumed rewritten"
    if not new:
        return True, "new column type unknown: assumed rewritten"
    return _type_change_rewrites(col.type, new)


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


def _using_index_from_text(text: str) -> str | None:
    m = re.search(r"\bUSING\s+INDEX\s+(?!TABLESPACE\b)([\w\".]+)", text, re.IGNORECASE)
    return _fold(m.group(1)) if m else None


def _word_after(text: str, word: str) -> str | None:
    m = re.search(rf"\b{word}\s+([\w\".]+)", text, re.IGNORECASE)
    return _fold(m.group(1)) if m else None


def _reloption_mode(params: Iterable[str] | None, text: str) -> str:
    names: list[str] = []
    for p in _as_list(params):
        names.append(p.split("=", 1)[0].strip().lower())
    if not names:
        inner = re.search(r"\((.*)\)", text, re.DOTALL)
        if inner:
            names = [p.split("=", 1)[0].strip().lower() for p in inner.group(1).split(",") if p.strip()]
    if not names:
        return T.ACCESS_EXCLUSIVE
    strongest = T.SHARE_UPDATE_EXCLUSIVE
    for n in names:
        bare = n.split(".", 1)[1] if n.startswith("toast.") else n
        if bare not in T.RELOPTION_SUE:
            strongest = T.ACCESS_EXCLUSIVE
    return strongest


# ------------------------------------------------------------------ other statements


def _statement_key(statement: Statement) -> str:
    kind, d, sql = statement.kind, statement.details, statement.sql
    conc = bool(d.get("concurrently")) or bool(re.search(r"\bCONCURRENTLY\b", sql, re.IGNORECASE))
    if kind in ("create_index", "drop_index", "reindex", "refresh_matview") and conc:
        return kind + ".concurrently"
    if kind == "vacuum":
        return "vacuum.full" if d.get("full") else "vacuum"
    if kind == "lock_table":
        mode = str(d.get("mode") or "ACCESS EXCLUSIVE").upper()
        mode = re.sub(r"\s+", " ", mode).strip()
        return "lock_table." + mode.lower().replace(" ", "_")
    if kind == "alter_index":
        op = str(d.get("op") or "").lower()
        text = str(d.get("text") or sql)
        if op in ("rename", "set_tablespace", "attach_partition", "set_storage_params"):
            return f"alter_index.{op}"
        if re.search(r"\bSET\s+STATISTICS\b", text, re.IGNORECASE):
            return "alter_index.set_statistics"
        if re.search(r"\bRENAME\b", text, re.IGNORECASE):
            return "alter_index.rename"
        if re.search(r"\b(?:RE)?SET\s*\(", text, re.IGNORECASE):
            return "alter_index.set_storage_params"
        return "alter_index.other"
    return kind


def _statement(statement: Statement, schema: Schema, version: int) -> LockImpact:
    key = _statement_key(statement)
    row = T.row_for(key, version)
    if row is None:
        return _unavailable(key, version) or _unknown(key, statement.table)
    b = _Build(key, row)
    d = statement.details
    kind = statement.kind
    only = _only(statement)

    def lock_tree(rel: str | None, mode: str | None, partition_mode: str | None = None) -> None:
        if not rel:
            return
        partitioned = _is_partitioned(schema, rel)
        b.lock(rel, row.partitioned_mode if (row.partitioned_mode and partitioned) else mode)
        if row.recurse and not only:
            for p in _partitions(schema, rel):
                b.lock(p, partition_mode or row.partition_mode or mode)

    if kind in ("drop_table", "truncate", "lock_table", "vacuum", "analyze"):
        tables = _as_list(d.get("tables")) or _as_list(statement.table)
        if not tables:
            b.lock("*", row.mode)
            b.note("no table named: every table of the database, one after another")
        for t in tables:
            lock_tree(t, row.mode)
        if kind == "drop_table":
            for t in tables:
                parent = getattr(schema.tables.get(t), "partition_of", None)
                if parent and parent not in tables:
                    b.lock(parent, T.ACCESS_EXCLUSIVE)
            for t in tables:
                targets = _fk_targets(schema.tables.get(t))
                if targets is None:
                    b.note("tables this one's foreign keys reference are locked ACCESS EXCLUSIVE too "
                           "(the model records no foreign keys)")
                else:
                    for r in targets:
                        if r not in tables:
                            b.lock(r, T.ACCESS_EXCLUSIVE)
        if kind in ("drop_table", "truncate") and re.search(r"\bCASCADE\b", statement.sql, re.IGNORECASE):
            for t in tables:
                refs = _referencing(schema, t)
                if refs is None:
                    b.note("CASCADE: tables referencing it are locked ACCESS EXCLUSIVE too "
                           "(the model records no foreign keys)")
                else:
                    for r in refs:
                        lock_tree(r, T.ACCESS_EXCLUSIVE)
    elif kind in ("create_index",):
        lock_tree(statement.table, row.mode)
        if key == "create_index.concurrently" and _is_partitioned(schema, statement.table):
            b.note("refused on a partitioned table before PostgreSQL 18")
    elif kind == "drop_index":
        names = _as_list(d.get("names")) or _as_list(statement.target)
        index_mode = next((o.mode for o in row.others if o.role == "index"), T.ACCESS_EXCLUSIVE)
        table_mode = next((o.mode for o in row.others if o.role == "index_table"), T.ACCESS_EXCLUSIVE)
        for name in names:
            owner = statement.table or schema.index_owner_key(name)
            b.lock(name, index_mode)
            if owner:
                b.lock(owner, table_mode)
                if key == "drop_index":
                    for p in _partitions(schema, owner):
                        b.lock(p, table_mode)
            else:
                b.note(f"the table owning {name} is unknown to the model: it is locked "
                       f"{'SHARE UPDATE EXCLUSIVE' if key.endswith('concurrently') else 'ACCESS EXCLUSIVE'} too")
    elif kind == "alter_index":
        index_mode = next((o.mode for o in row.others if o.role == "index"), T.ACCESS_EXCLUSIVE)
        b.lock(statement.target, index_mode)
        if key == "alter_index.attach_partition":
            b.lock(d.get("partition"), T.ACCESS_EXCLUSIVE)
            for idx in (statement.target, d.get("partition")):
                owner = schema.index_owner_key(idx) if idx else None
                b.lock(owner, T.ACCESS_SHARE)
    elif kind == "reindex":
        obj = str(d.get("object") or "table").lower()
        index_mode = next((o.mode for o in row.others if o.role == "table_indexes"), T.ACCESS_EXCLUSIVE)
        if obj == "index":
            idx = statement.target
            owner = schema.index_owner_key(idx) if idx else None
            b.lock(idx, index_mode)
            if owner:
                lock_tree(owner, row.mode)
            else:
                b.note("the table owning the index is unknown to the model: it is locked "
                       + ("SHARE UPDATE EXCLUSIVE" if key.endswith("concurrently") else "SHARE"))
        elif obj == "table":
            table = statement.table or statement.target
            lock_tree(table, row.mode)
            if not _is_partitioned(schema, table):  # partitions' index names are not in the model
                for idx in _index_names(schema, table):
                    b.lock(idx, index_mode)
        else:
            b.lock("*", row.mode)
            b.note(f"REINDEX {obj.upper()}: every table in it in turn, one transaction each")
    elif kind == "cluster":
        table = statement.table
        if not table:
            b.lock("*", row.mode)
            b.note("CLUSTER without a table: every table clustered before, one after another")
        else:
            b.lock(table, row.mode)
            for idx in _index_names(schema, table):
                b.lock(idx, T.ACCESS_EXCLUSIVE)
    elif kind == "refresh_matview":
        view = statement.table or statement.target
        b.lock(view, row.mode)
        vmodel = schema.views.get(view) if view else None
        reads = getattr(vmodel, "reads", None) if vmodel is not None else None
        if reads is None:
            b.note("the tables its query reads are locked ACCESS SHARE (the model does not record them)")
        for r in reads or []:
            b.lock(r, T.ACCESS_SHARE)
    elif kind in ("create_view", "create_matview", "create_table_as", "create_table_like"):
        created = statement.table or statement.target
        sources = _query_sources(statement, created)
        if sources is None:
            b.note("could not tell which tables the query reads: each is locked ACCESS SHARE")
        for s in sources or []:
            b.lock(s, T.ACCESS_SHARE)
    elif kind == "create_table":
        for r in _as_list(d.get("references")):
            if r != statement.table:
                b.lock(r, T.SHARE_ROW_EXCLUSIVE)
    elif kind == "create_partition":
        parent = d.get("parent")
        b.lock(parent, T.ACCESS_EXCLUSIVE)
        for r in _as_list(d.get("references")):
            if r not in (statement.table, parent):
                b.lock(r, T.SHARE_ROW_EXCLUSIVE)
        default, known = _default_partition(schema, parent)
        if default:
            b.lock(default, T.ACCESS_EXCLUSIVE)
            for p in _partitions(schema, default):
                b.lock(p, T.ACCESS_EXCLUSIVE)
            b.scan = True
            b.note("the DEFAULT partition is scanned for rows that belong to the new bound")
        elif not known and _partitions(schema, parent):
            b.note("if the parent has a DEFAULT partition it is locked ACCESS EXCLUSIVE and scanned "
                   "(the model does not say which partition is the default)")
    elif kind == "comment":
        b.lock(statement.table or statement.target, row.mode)
    elif kind == "drop_view":
        for v in _as_list(d.get("names")) or _as_list(statement.target or statement.table):
            b.lock(v, row.mode)
    elif kind == "rename_table":
        pairs = d.get("pairs") or [(statement.table, None)]
        for old, _ in pairs:
            b.lock(old, row.mode)
    else:  # create_trigger, drop_trigger, create_rule, drop_rule, create_policy, create_statistics, ...
        lock_tree(statement.table, row.mode)
    return b.impact()
