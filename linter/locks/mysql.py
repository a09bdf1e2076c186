"""What a MySQL/MariaDB DDL statement does to concurrent traffic, from the InnoDB online DDL matrix.

`impacts(statement, schema, server, version)` reads `mysql_table` (data) and the
schema (facts about the table the statement changes) and returns one LockImpact per
ALTER TABLE action, plus one for the whole statement when it has several actions.
Explicit `ALGORITHM=` / `LOCK=` clauses are honoured; a clause the server would
refuse is reported in the impact's note.

Versions: a target given without a patch level (`mysql-8.0`, `mariadb-10.11`) means
the newest release of that series; the row notes say from which release a
behaviour holds.

Every DDL also takes a brief exclusive metadata lock at its start and end; that is
not per row and is returned by `general_note(server)` for the command output.
"""

from __future__ import annotations

from dataclasses import field

from schemacite.locks import Lock, LockImpact
from schemacite.locks import mysql_table as T
from schemacite.locks.modes import ALGORITHMS, MYSQL_LOCKS, blocks
from schemacite.locks.rows import MysqlRow as Row
from schemacite.locks.rows import Version, row_at
from schemacite.model import Column, ForeignKey, Index, Schema, Table
from schemacite.model.dialects import Dialect
from schemacite.model.record import record, replace
from schemacite.model.statements import (
    Action,
    AddColumn,
    AddForeignKey,
    AddKey,
    ConstraintAction,
    CreateIndex,
    CreateView,
    DropIndex,
    LockTable,
    Option,
    RenameTable,
    Statement,
)
from schemacite.sources.mysql.types import CHARSET_MAXLEN, DEFAULT_CHARSET, STRING_TYPES, TEXT_TYPES, enum_members
from schemacite.sources.names import tokenize

ALGO_RANK = {a: i for i, a in enumerate(ALGORITHMS)}  # INSTANT 0 .. COPY 3
LOCK_RANK = {lk: i for i, lk in enumerate(MYSQL_LOCKS)}  # NONE 0 .. EXCLUSIVE 2
CLAUSE_OPS = frozenset({"algorithm", "lock"})


def general_note(server: str) -> tuple[str, str]:
    """(note, source) that holds for every DDL statement on `server`: the metadata lock."""
    server = _server(server)
    return T.MDL_NOTE + (T.MDL_NOTE_MARIADB if server == Dialect.MARIADB else ""), T.MDL_SOURCES[server]


def lookup(server: str, key: str, version: Version) -> Row | None:
    """The matrix row for `key` on `server` at `version` (None if the matrix has no such key); for a
    version older than the key's first row, that first row (the oldest the matrix knows)."""
    rows = T.tables()[_server(server)].get(key)
    if not rows:
        return None
    return row_at(rows, _version(version)) or rows[0]


def impacts(statement: Statement, schema: Schema, name: str, given: Version) -> list[LockImpact]:
    server = _server(name)
    version = _version(given)
    table = schema.table(statement.table) if statement.table and schema is not None else None
    relation = statement.table or "?"
    op = statement.op
    kind = statement.kind

    if kind == "alter_table":
        referencing = schema.foreign_keys_to(relation) if table is not None else []
        return _alter(statement, table, referencing, relation, server, version)
    if isinstance(op, CreateIndex) and op.if_not_exists and _exists(op.index.name, table):
        return [_nothing_to_do("create_index", relation)]
    if isinstance(op, CreateIndex):
        action = AddKey("add_unique" if op.index.unique else "add_index", statement.sql, index=op.index)
        key, note = _index_key(action, table, [action])
        row = _lookup_adjusted(server, key, version, table)
        clauses = {"algorithm": _norm(op.algorithm), "lock": _norm(op.lock)}
        return [_impact("create_index", key, row, relation, server, version, clauses, note)]
    if isinstance(op, DropIndex):
        row = lookup(server, "drop_index", version)
        clauses = {"algorithm": _norm(op.algorithm), "lock": _norm(op.lock)}
        impact = _impact("drop_index", "drop_index", row, relation, server, version, clauses)
        if server == Dialect.MARIADB and any(clauses.values()):
            impact.note = (
                "server refuses: MariaDB's DROP INDEX ... ON takes no ALGORITHM/LOCK clause "
                "(syntax error); use ALTER TABLE ... DROP INDEX"
            )
        return [impact]
    if isinstance(op, CreateView) and op.or_replace and schema is not None and op.name in schema.views:
        kind = "replace_view"  # redefines a view queries use
    if kind in ("optimize_table", "truncate", "drop_table", "rename_table", "drop_view", "replace_view"):
        key = f"statement.{kind}"
        row = _lookup_adjusted(server, key, version, table)
        impact = _impact(kind, key, row, relation, server, version, {})
        names = [old for old, _new in op.pairs] if isinstance(op, RenameTable) else list(op.relations())
        mode = impact.locks[0].mode
        impact.locks = [Lock(r, mode, blocks(mode)) for r in names or [relation]]
        return [impact]
    if isinstance(op, LockTable):
        out = []
        for name, mode in op.modes or ((relation, op.mode),):
            key = "statement.lock_table.read" if "READ" in mode.upper() else "statement.lock_table.write"
            out.append(_impact(kind, key, lookup(server, key, version), name, server, version, {}))
        return out
    return []


# --------------------------------------------------------------------------- ALTER TABLE
def _nothing_to_do(kind: str, relation: str) -> LockImpact:
    """MariaDB skips ADD ... IF NOT EXISTS of a column or index that exists, with a note: the statement
    changes nothing, and the server runs it as INSTANT (measured, tests/test_locks_mysql.py)."""
    return LockImpact(
        operation=f"{kind}.exists",
        locks=[Lock(relation, "NONE", "nothing")],
        algorithm="INSTANT",
        note="the column or index exists: IF NOT EXISTS skips it, nothing is built",
    )


def _exists(index: str | None, table: Table | None) -> bool:
    return bool(index) and table is not None and table.index_named(index or "") is not None


def _skipped(action: Action, table: Table | None) -> bool:
    """An ADD ... IF NOT EXISTS clause the server skips: the column or index is there already."""
    if isinstance(action, AddColumn) and action.if_not_exists and action.op == "add_column":
        return table is not None and action.definition.name in table.columns
    return isinstance(action, AddKey) and action.if_not_exists and _exists(action.index.name, table)


def _alter(
    statement: Statement,
    table: Table | None,
    referencing: list[ForeignKey],
    relation: str,
    server: Dialect,
    version: Version,
) -> list[LockImpact]:
    actions = [a for a in statement.actions if a.op not in CLAUSE_OPS and not _skipped(a, table)]
    skipped = [a for a in statement.actions if _skipped(a, table)]
    if not actions and skipped:
        return [_nothing_to_do(f"alter_table.{skipped[0].op}", relation)]
    actions = _with_inline_keys(actions, server, version)
    clauses: dict[str, str | None] = {"algorithm": None, "lock": None}
    for a in statement.actions:
        if isinstance(a, Option) and a.op in CLAUSE_OPS:
            clauses[a.op] = _norm(a.value)
    ops = {a.op for a in actions}
    fk_checks_off = not statement.foreign_key_checks

    planned: list[tuple[Action, str, Row, str | None]] = []
    replaced_pk = "drop_primary_key" in ops and "add_primary_key" in ops
    for action in actions:
        if replaced_pk and action.op == "drop_primary_key":
            continue  # reported once, as the replacement
        key, note = _key(action, table, server, version, actions, replaced_pk, fk_checks_off)
        row = _lookup_adjusted(server, key, version, table)
        if row is not None and row.rewrite and (when := _charset_unknown(action, table) or _type_unknown(note)):
            row = replace(row, rewrite_when=when)
        if row is None:
            row = Row(
                since=(),
                algorithm="COPY",
                rewrite=True,
                mode="SHARED",
                source=T.MY_ALTER if server == Dialect.MYSQL else T.MDB_OVERVIEW,
                note=f"'{action.op}' is not in the online DDL matrix: assumed to copy the table",
            )
        planned.append((action, key, row, note))

    # INSTANT column changes combined with anything not INSTANT: the statement rebuilds.
    if len(planned) > 1 and any(r.algorithm not in ("INSTANT", None) for _, _, r, _ in planned):
        adjusted = []
        for action, key, row, note in planned:
            if key in T.INSTANT_ONLY_ALONE and row.algorithm == "INSTANT":
                row = replace(
                    row,
                    algorithm="INPLACE",
                    rewrite=True,
                    note="combined with an action that is not INSTANT, the statement rebuilds the table in place",
                )
                row = _facts(server, key, row, table, version)
            adjusted.append((action, key, row, note))
        planned = adjusted

    out = [
        _impact(f"alter_table.{action.op}", key, row, relation, server, version, clauses, note)
        for action, key, row, note in planned
    ]
    for (action, key, *_rest), impact in zip(planned, out):
        case = _refused_case(action, key, table, referencing, actions)
        found = T.REFUSED[server].get(case) if case else None
        if found is not None and version >= found[0]:
            impact.refused = found[1]
            impact.note = f"server refuses: {found[3]}"
    if len(out) > 1:
        out.append(_combine(out, relation))
    return out


def _with_inline_keys(actions: list[Action], server: Dialect, version: Version) -> list[Action]:
    """The actions, each ADD COLUMN followed by the keys its inline UNIQUE / PRIMARY KEY and (where the
    server creates one) REFERENCES add: the server builds them in the same statement."""
    since, _source, _ignored = T.INLINE_REFERENCES[server]
    out: list[Action] = []
    for action in actions:
        out.append(action)
        if not isinstance(action, AddColumn) or action.op != "add_column":
            continue
        column = (action.definition.name or action.column or "",)
        if action.primary:
            out.append(AddKey("add_primary_key", action.text, index=Index(None, column, unique=True, primary=True)))
        elif action.unique:
            out.append(AddKey("add_unique", action.text, index=Index(None, column, unique=True)))
        if since is not None and version >= since:
            for parent in action.references:
                out.append(AddForeignKey("add_foreign_key", action.text, key=ForeignKey(None, column, parent)))
    return out


def _refused_case(
    action: Action, key: str, table: Table | None, referencing: list[ForeignKey], actions: list[Action]
) -> str | None:
    """The case of `mysql_table.REFUSED` the action falls in (the server refuses it whatever the
    clauses), or None."""
    column = (action.old_name or action.column) if isinstance(action, AddColumn) else action.column
    if table is None or not column or not (action.op == "drop_column" or key.startswith("modify_column.")):
        return None
    dropped = {a.name for a in actions if isinstance(a, ConstraintAction) and a.op == "drop_foreign_key"}
    in_foreign_key = any(column in fk.columns and fk.name not in dropped for fk in table.foreign_keys) or any(
        column in fk.ref_columns for fk in referencing
    )
    if action.op == "drop_column":
        if any(i.unique and len(i.columns) > 1 and column in i.columns for i in _keys(table)):
            return "drop_column.in_composite_unique"
        return "drop_column.foreign_key" if in_foreign_key else None
    return "modify_column.foreign_key_type" if in_foreign_key and key in T.TYPE_CHANGES else None


def _combine(parts: list[LockImpact], relation: str) -> LockImpact:
    algos = [p.algorithm for p in parts if p.algorithm]
    algorithm = max(algos, key=ALGO_RANK.__getitem__) if algos else None
    mode = max((lk.mode for p in parts for lk in p.locks), key=LOCK_RANK.__getitem__, default="NONE")
    notes = [p.note for p in parts if p.note and "server refuses" in p.note]
    return LockImpact(
        operation="alter_table",
        locks=[Lock(relation, mode, blocks(mode))],
        rewrite=any(p.rewrite for p in parts),
        # the statement may be spared its rewrite only when every action that rewrites may be
        rewrite_when="; ".join(w for p in parts if p.rewrite and (w := p.rewrite_when)) or None
        if all(p.rewrite_when for p in parts if p.rewrite)
        else None,
        scan=any(p.scan for p in parts),
        algorithm=algorithm,
        alternative=next((p.alternative for p in parts if p.alternative), None),
        note="; ".join(dict.fromkeys(notes)) or "the statement as a whole: the most expensive action decides",
        source=next((p.source for p in parts if p.algorithm == algorithm), parts[0].source),
    )


def _key(
    action: Action,
    table: Table | None,
    server: Dialect,
    version: Version,
    actions: list[Action],
    replaced_pk: bool,
    fk_checks_off: bool,
) -> tuple[str, str | None]:
    """The matrix row of one ALTER TABLE action, and a note where the model leaves it uncertain."""
    op = action.op
    if isinstance(action, AddColumn) and op == "add_column":
        return _add_column_key(action, table, server, version)
    if op == "drop_column":
        return _drop_column_key(action, table), None
    if isinstance(action, AddColumn):  # MODIFY / CHANGE
        return _modify_key(action, table, server, version, _primary_key_after(table, actions))
    if isinstance(action, AddKey) and op in ("add_index", "add_unique"):
        return _index_key(action, table, actions)
    if op == "add_primary_key":
        return ("drop_primary_key+add_primary_key" if replaced_pk else "add_primary_key"), None
    if isinstance(action, AddForeignKey):
        return ("add_foreign_key.no_checks" if fk_checks_off else "add_foreign_key"), None
    if isinstance(action, Option) and op == "convert_charset":
        return _convert_charset_key(action, table, server, version), None
    if isinstance(action, Option) and op == "engine":
        value = (action.value or "").lower()
        current = (table.engine or "innodb").lower() if table is not None else "innodb"
        return ("engine.change" if value and value != current else "engine"), None
    if op == "add_partition":
        part = table.partitioning if table is not None else None
        return ("add_partition.hash" if part is not None and part.method in ("hash", "key") else "add_partition"), None
    return op, None


def _add_column_key(
    action: AddColumn, table: Table | None, server: Dialect, version: Version
) -> tuple[str, str | None]:
    column = action.definition
    if column.auto_increment:
        return "add_column.auto_increment", None
    if column.generated == "stored":
        return "add_column.stored", None
    if column.generated == "virtual":
        return "add_column.virtual", None
    since, _source, ignored = T.INLINE_REFERENCES[server]
    note = ignored if action.references and (since is None or version < since) else None
    if column.default is not None:
        if server == Dialect.MARIADB and _default_computed_per_row(column.default, table):
            return "add_column.default_copy", note
        if server == Dialect.MYSQL and column.default.lstrip().startswith("("):
            return "add_column.default_expression", note
    if not action.position:
        return "add_column", note
    if action.position == "after" and table is not None and table.columns:
        if action.after and action.after == list(table.columns)[-1]:
            return "add_column", note  # AFTER the last column: the place it goes anyway
    return "add_column.position", note


def _default_computed_per_row(default: str, table: Table | None) -> bool:
    """Whether MariaDB computes an added column's DEFAULT for each existing row (and so copies the
    table): it calls a function of `MARIADB_DEFAULT_COPY_FUNCTIONS`, or reads a column (a quoted
    name, or one the table has)."""
    columns = {c.lower() for c in table.columns} if table is not None else set()
    toks = tokenize(default)
    for i, tok in enumerate(toks):
        if tok.kind not in ("word", "name"):
            continue
        call = i + 1 < len(toks) and toks[i + 1].kind == "lparen"
        name = tok.ident.lower()
        if call and tok.kind == "word" and name in T.MARIADB_DEFAULT_COPY_FUNCTIONS:
            return True
        unit = i >= 2 and toks[i - 2].upper == "INTERVAL"  # INTERVAL 1 DAY: a unit, not a column
        if not call and not unit and (tok.kind == "name" or name in columns):
            return True
    return False


def _drop_column_key(action: Action, table: Table | None) -> str:
    col = table.columns.get(action.column) if table is not None and action.column else None
    if col is not None and col.generated:
        return "drop_column.stored" if col.generated == "stored" else "drop_column.virtual"
    if table is not None and action.column and _indexed(table, action.column):
        composite = any(len(i.columns) > 1 and action.column in i.columns for i in _keys(table))
        return "drop_column.in_composite" if composite else "drop_column.indexed"
    return "drop_column"


def _convert_charset_key(action: Option, table: Table | None, server: Dialect, version: Version) -> str:
    target = (action.value or "").lower()
    source = _table_charset(table) or ""
    if target.startswith("utf8mb4") and source in ("utf8", "utf8mb3") and not _has_text_columns(table):
        return "convert_charset.utf8mb3_to_utf8mb4"
    if (
        table is None
        or not target
        or target != source
        or any((c.charset or target).lower() != target for c in table.columns.values())
    ):
        return "convert_charset"
    # the same character set: what changes is at most the collation, which matters to an index
    collation = (action.collation or "").lower() or None
    changed = [
        name
        for name, c in table.columns.items()
        if c.base_type in STRING_TYPES and ((c.collation or table.collation or "").lower() or None) != collation
    ]
    if not any(_indexed(table, name) for name in changed):
        return "convert_charset.same"
    return "convert_charset.collation" if lookup(server, "convert_charset.collation", version) else "convert_charset"


# a MODIFY or CHANGE of a column whose definition the files never showed: judged as a type change
UNKNOWN_DEFINITION = "the column's current definition is unknown; assuming a type change"


def _type_unknown(note: str | None) -> str:
    """The condition on which a MODIFY of a column of unknown definition copies the table, else ''."""
    return "it changes the column's type (its current definition is unknown)" if note == UNKNOWN_DEFINITION else ""


def _charset_unknown(action: Action, table: Table | None) -> str:
    """For CONVERT TO of a table whose CREATE TABLE named no character set: the condition on which the
    table is rebuilt (the server's default then decides), else ''."""
    if not isinstance(action, Option) or action.op != "convert_charset" or table is None or table.charset:
        return ""
    return f"the database default character set {table.name} took (its CREATE TABLE names none) is not {action.value}"


def _index_key(action: AddKey, table: Table | None, actions: list[Action]) -> tuple[str, str | None]:
    index = action.index
    if index.kind == "fulltext":
        has_ft = table is not None and any(i.kind == "fulltext" for i in table.indexes)
        earlier = (
            any(isinstance(a, AddKey) and a.index.kind == "fulltext" for a in actions[: actions.index(action)])
            if action in actions
            else False
        )
        return ("add_index.fulltext" if has_ft or earlier else "add_index.fulltext_first"), None
    if index.kind == "spatial":
        return "add_index.spatial", None
    if action.op == "add_unique" or index.unique:
        columns = index.columns
        if (
            table is not None
            and table.clustering_key is None
            and columns
            and not index.prefix
            and all(c in table.columns and not table.columns[c].nullable for c in columns)
        ):
            return "add_unique.clustered", None
        return "add_unique", None
    return "add_index", None


# --------------------------------------------------------------------------- MODIFY / CHANGE
def _enum_size(kind: str, n: int) -> int:
    if kind == "enum":
        return 1 if n <= 255 else 2
    return {1: 1, 2: 2, 3: 3, 4: 4}.get((n + 7) // 8, 8)


def _primary_key_after(table: Table | None, actions: list[Action]) -> tuple[str, ...]:
    """The primary key's columns once the statement has run (it may drop or replace the key)."""
    columns = table.primary_key.columns if table is not None and table.primary_key is not None else ()
    for a in actions:
        if a.op == "drop_primary_key":
            columns = ()
        elif isinstance(a, AddKey) and a.op == "add_primary_key":
            columns = a.index.columns
    return columns


def _modify_key(
    action: AddColumn, table: Table | None, server: Dialect, version: Version, primary_key: tuple[str, ...]
) -> tuple[str, str | None]:
    source = action.old_name or action.column
    old: Column | None = table.columns.get(source) if table is not None and source else None
    new = action.definition
    changes: list[str] = []
    if old is None:
        kind = "modify_column.reorder" if action.position and not new.type else "modify_column.type"
        return kind, UNKNOWN_DEFINITION
    if action.position:
        changes.append("reorder")
    new_nullable = new.nullable
    if source in primary_key or new.name in primary_key:
        new_nullable = False  # primary key columns stay NOT NULL whatever the MODIFY says
    note: str | None = None
    if new.type:
        change, note = _type_change(old, new, table)
        if change:
            changes.append(change)
    if new_nullable != old.nullable:
        changes.append("null" if new_nullable else "not_null")
    if new.default != old.default and _norm_default(new.default) != _norm_default(old.default) and not changes:
        changes.append("default")
    if not changes and new.invisible != old.invisible and new.name == source:
        return "alter_column_visibility", None
    if not changes:
        changes.append("rename" if new.name != source else "same")
    worst = max(changes, key=lambda c: _cost(lookup(server, f"modify_column.{c}", version)))
    if worst in ("collation", "charset_utf8mb3_to_utf8mb4") and server == Dialect.MARIADB and _indexed(table, source):
        note = "an index covers the column: it is rebuilt (NOCOPY)"
    return f"modify_column.{worst}", note


def _type_change(old: Column, new: Column, table: Table | None) -> tuple[str | None, str | None]:
    """What a MODIFY / CHANGE that states a type changes in the column's type (None: nothing), and a
    note where the model leaves it uncertain."""
    note = None
    known_cs = _table_charset(table)
    table_cs = known_cs or DEFAULT_CHARSET
    o_cs = old.charset or table_cs
    n_cs = new.charset or table_cs
    if new.charset and not old.charset and not known_cs and new.base_type in STRING_TYPES:
        # the column's current character set is not in the model: assume a conversion
        o_cs = "unknown"
        note = "the column's current character set is unknown: assuming it changes"
    if new.auto_increment and not old.auto_increment:
        return "auto_increment", note
    if old.base_type != new.base_type or old.unsigned != new.unsigned or old.zerofill != new.zerofill:
        return "type", note
    if old.base_type in ("enum", "set"):
        om, nm = enum_members(old.type_args), enum_members(new.type_args)
        if om == nm:
            return None, note
        if nm[: len(om)] == om and _enum_size(old.base_type, len(om)) == _enum_size(new.base_type, len(nm)):
            return "enum_append", note
        return "type", note
    if old.base_type in ("varchar", "varbinary", "char", "binary") and old.type_args != new.type_args or o_cs != n_cs:
        return _string_change(old, new, o_cs, n_cs), note
    if old.type_args != new.type_args:
        return "type", note
    if (old.collation or None) != (new.collation or None) and new.collation:
        return "collation", note
    return None, note


def _string_change(o: Column, n: Column, o_cs: str, n_cs: str) -> str:
    if o.base_type in ("char", "binary") or n.base_type != o.base_type:
        return "type"  # CHAR lengths cannot change in place
    if o_cs != n_cs:
        if o_cs == "utf8mb3" and n_cs == "utf8mb4":
            kind = _length_change(o, n, 3, 4)
            return "charset_utf8mb3_to_utf8mb4" if kind in ("same", "varchar_extend") else kind
        return "type"
    mb = CHARSET_MAXLEN.get(o_cs, 4) if o.base_type == "varchar" else 1
    return _length_change(o, n, mb, mb)


def _length_change(o: Column, n: Column, old_mb: int, new_mb: int) -> str:
    try:
        old_len = int(o.type_args or 1) * old_mb
        new_len = int(n.type_args or 1) * new_mb
    except ValueError:
        return "type"
    if new_len < old_len:
        return "type"
    if new_len == old_len:
        return "same"
    if old_len >= 256 or new_len <= 255:
        return "varchar_extend"
    if old_len <= 127:
        return "varchar_extend_from_127"
    return "varchar_extend_over_255"


def _norm_default(value: str | None) -> str | None:
    if value is None:
        return None
    return str(value).strip().strip("'\"").lower()


def _cost(row: Row | None) -> tuple[int, int, int]:
    if row is None:
        return (9, 1, 9)
    return (ALGO_RANK.get(row.algorithm or "INPLACE", 2), int(bool(row.rewrite)), LOCK_RANK[row.mode])


# --------------------------------------------------------------------------- table facts
def _lookup_adjusted(server: Dialect, key: str, version: Version, table: Table | None) -> Row | None:
    row = lookup(server, key, version)
    if row is None:
        return None
    return _facts(server, key, row, table, version)


def _facts(server: Dialect, key: str, row: Row, table: Table | None, version: Version) -> Row:
    """Adjust a row for what the table already has: its row format, FULLTEXT and SPATIAL indexes."""
    if table is None:
        return row
    if (table.row_format or "").upper() == "COMPRESSED" and key in T.INSTANT_ONLY_ALONE and row.algorithm == "INSTANT":
        source, why = T.COMPRESSED_NO_INSTANT[server]
        row = replace(row, algorithm="INPLACE", rewrite=True, note=why, source=source)
    ft = sum(1 for i in table.indexes if i.kind == "fulltext")
    spatial = any(i.kind == "spatial" for i in table.indexes)
    rules = T.MARIADB_FULLTEXT if server == Dialect.MARIADB else T.MYSQL_FULLTEXT
    if ft:
        since, source, why = rules["no_instant_columns"]
        if key in T.INSTANT_ONLY_ALONE and row.algorithm == "INSTANT" and version >= since:
            row = replace(row, algorithm="INPLACE", rewrite=True, note=why, source=source)
        if row.rewrite and row.algorithm in ("INPLACE", "NOCOPY", "INSTANT"):
            lock, source, why = rules["rebuild_lock"]
            copy = key in rules.get("rebuild_copy_ops", ()) or (rules.get("rebuild_copy_if_more_than_one") and ft > 1)
            if copy:
                row = replace(
                    row,
                    algorithm="COPY",
                    mode=_max_lock(row.mode, "SHARED"),
                    scan=True,
                    note=rules["rebuild_copy_note"],
                    source=source,
                )
            else:
                row = replace(row, mode=_max_lock(row.mode, lock), note=_join(row.note, why))
    if spatial and row.rewrite and row.algorithm in ("INPLACE", "NOCOPY"):
        lock, source, why = T.SPATIAL_REBUILD
        row = replace(row, mode=_max_lock(row.mode, lock), note=_join(row.note, why))
    return row


def _keys(table: Table) -> list[Index]:
    return list(table.indexes) + ([table.primary_key] if table.primary_key else [])


def _indexed(table: Table | None, column: str | None) -> bool:
    if table is None or not column:
        return False
    return any(column in i.columns for i in _keys(table))


def _table_charset(table: Table | None) -> str | None:
    return table.charset.lower() if table is not None and table.charset else None


def _has_text_columns(table: Table | None) -> bool:
    if table is None:
        return True  # unknown: assume the worst
    return any(c.base_type in TEXT_TYPES for c in table.columns.values())


# --------------------------------------------------------------------------- clauses -> impact
@record
class _Run:
    """How an ALTER runs once its ALGORITHM and LOCK clauses are applied to its matrix row."""

    algorithm: str | None
    rebuild: bool
    lock: str
    scan: bool
    notes: list[str]
    refused: list[str] = field(default_factory=list)


def _impact(
    operation: str,
    key: str,
    row: Row | None,
    relation: str,
    server: Dialect,
    version: Version,
    clauses: dict[str, str | None],
    note: str | None = None,
) -> LockImpact:
    if row is None:
        return LockImpact(
            operation,
            [Lock(relation, "EXCLUSIVE", blocks("EXCLUSIVE"))],
            rewrite=True,
            algorithm=None,
            note=f"'{key}' is not in the MySQL/MariaDB online DDL matrix",
            row=key,
        )
    run = _Run(row.algorithm, row.rewrite, row.mode, row.scan, [n for n in (row.note, note) if n])
    want_algo, want_lock = clauses.get("algorithm"), clauses.get("lock")
    if want_algo == "DEFAULT":
        want_algo = None
    if want_lock == "DEFAULT":
        want_lock = None
    if (want_algo or want_lock) and run.algorithm is None:
        run.refused.append("this operation takes no ALGORITHM/LOCK clause")
    elif want_algo:
        _apply_algorithm(run, want_algo, row, key, server, version)
    if want_lock and not run.refused and run.algorithm is not None:
        _apply_lock(run, want_lock, want_algo, row, key, server, version)

    impact_note = "; ".join(dict.fromkeys(run.notes))
    if run.refused:
        impact_note = (
            "server refuses: "
            + "; ".join(run.refused)
            + (f". Without the clause: {impact_note}" if impact_note else "")
        )
    alternative = row.alternative
    if (
        alternative is None
        and (run.algorithm == "COPY" or (run.rebuild and run.lock != "NONE"))
        and not key.startswith("statement.lock_table")
    ):
        alternative = T.COPY_ALTERNATIVE
    return LockImpact(
        operation=operation,
        locks=[Lock(relation, run.lock, blocks(run.lock))],
        rewrite=run.rebuild,
        # a condition holds while the row's own rebuild runs, not one an ALGORITHM clause forces
        rewrite_when=(row.rewrite_when or None) if run.rebuild and run.algorithm == row.algorithm else None,
        scan=run.scan,
        algorithm=run.algorithm,
        alternative=alternative,
        note=impact_note or None,
        source=row.source,
        row=key,
    )


def _apply_algorithm(run: _Run, want_algo: str, row: Row, key: str, server: Dialect, version: Version) -> None:
    """An ALGORITHM= clause: refused, forcing a copy, or taking the server's own choice."""
    assert run.algorithm is not None  # _impact refuses the clause for an operation that takes none
    if want_algo == "NOCOPY" and server == Dialect.MYSQL:
        run.refused.append("ALGORITHM=NOCOPY exists only on MariaDB")
    elif want_algo == "COPY":
        if run.algorithm != "COPY":
            run.notes.append("ALGORITHM=COPY forces a full table copy")
        run.algorithm, run.rebuild, run.scan = "COPY", True, True
        run.lock = _max_lock(run.lock, _copy_min_lock(server, version, key))
    elif server == Dialect.MARIADB and key in T.MARIADB_ALGORITHM_IGNORED:
        run.notes.append(f"MariaDB accepts ALGORITHM={want_algo} here and copies the table anyway")
    elif ALGO_RANK[want_algo] < ALGO_RANK[run.algorithm]:
        run.refused.append(f"ALGORITHM={want_algo} is not supported for this operation (best: {run.algorithm})")
    elif server == Dialect.MYSQL and want_algo == "INPLACE" and run.algorithm == "INSTANT":
        run.algorithm = "INPLACE"
        run.rebuild = row.rewrite if row.inplace_rewrite is None else row.inplace_rewrite
        if run.rebuild:
            run.notes.append("ALGORITHM=INPLACE on MySQL skips INSTANT and rebuilds the table")
    # MariaDB: ALGORITHM names the least efficient algorithm accepted; the best one runs


def _apply_lock(
    run: _Run, want_lock: str, want_algo: str | None, row: Row, key: str, server: Dialect, version: Version
) -> None:
    """A LOCK= clause on an operation that takes one, after ALGORITHM= was applied."""
    if server == Dialect.MYSQL and run.algorithm == "INSTANT":
        if want_algo == "INSTANT":
            run.refused.append(f"only LOCK=DEFAULT is permitted with ALGORITHM=INSTANT (LOCK={want_lock})")
        else:
            # a LOCK clause rules INSTANT out on MySQL: it falls back to INPLACE
            run.algorithm = "INPLACE"
            run.rebuild = row.rewrite if row.inplace_rewrite is None else row.inplace_rewrite
            run.notes.append(
                f"LOCK={want_lock} rules out INSTANT on MySQL: the statement runs in place"
                + (" and rebuilds the table" if run.rebuild else "")
            )
    if run.refused:
        return
    if (
        want_lock == "NONE"
        and run.lock != "NONE"
        and want_algo in (None, "COPY")
        and _copy_min_lock(server, version, key) == "NONE"
    ):
        # MariaDB 11.2+: rather than refuse LOCK=NONE, the server copies the table online
        if run.algorithm != "COPY":
            run.notes.append("LOCK=NONE makes MariaDB 11.2+ copy the table online instead")
        run.algorithm, run.rebuild, run.scan, run.lock = "COPY", True, True, "NONE"
    if LOCK_RANK[want_lock] < LOCK_RANK[run.lock]:
        run.refused.append(f"LOCK={want_lock} is not supported for this operation (least: LOCK={run.lock})")
    else:
        run.lock = want_lock


def _copy_min_lock(server: Dialect, version: Version, key: str) -> str:
    """The least lock ALGORITHM=COPY accepts. Where the operation's own row copies, the row says
    (MariaDB's online-copy rows from 11.2; `order_by`, which online copy does not support). A copy
    forced onto an operation that runs in place takes LOCK=NONE on MariaDB 11.2+ (online copy), but
    for adding an AUTO_INCREMENT column, which online copy does not support either; SHARED elsewhere."""
    row = lookup(server, key, version)
    if row is not None and row.algorithm == "COPY":
        return row.mode
    if server == Dialect.MARIADB and version >= T.MARIADB_ONLINE_COPY_SINCE and key != "add_column.auto_increment":
        return "NONE"
    return "SHARED"


# --------------------------------------------------------------------------- helpers
def _server(server: str) -> Dialect:
    """MARIADB or MYSQL for a server's name as callers give it (a Dialect, "mariadb", "MariaDB")."""
    return Dialect.MARIADB if (server or "").lower().startswith("maria") else Dialect.MYSQL


def _version(version: Version) -> Version:
    """Pad a series (8, 0) to its newest release (8, 0, 999): the default is the current patch."""
    v = tuple(int(p) for p in (version or (8, 0)))
    return v + (999,) * (3 - len(v)) if len(v) < 3 else v


def _norm(value: str | None) -> str | None:
    return str(value).strip().upper() if value else None


def _max_lock(a: str, b: str) -> str:
    return a if LOCK_RANK[a] >= LOCK_RANK[b] else b


def _join(a: str, b: str) -> str:
    return f"{a}; {b}" if a else b
