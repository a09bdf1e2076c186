"""ALTER TABLE sub-commands, read by us.

sqlglot falls back to an opaque command for many sub-forms that decide how a
statement locks (ATTACH PARTITION, VALIDATE CONSTRAINT, ALGORITHM=..., MySQL
partition operations), so every sub-command is classified here into an `Action`
whose `op` keys the lock tables. Column definitions still go through sqlglot.
"""
from __future__ import annotations

from schemacite.model import Index
from schemacite.sources.names import Tok, column_list, paren_group, split_top, sqlglot_column, table_key, text_of, tokenize
from schemacite.sources.mysql.partition import find_partition_by, parse_partition_by, parse_pg_partition_by
from schemacite.model.statements import Action

CONSTRAINT_WORDS = {"PRIMARY", "UNIQUE", "FOREIGN", "CHECK", "EXCLUDE"}
INDEX_WORDS = {"INDEX", "KEY", "FULLTEXT", "SPATIAL"}
PARTITION_OPS = {
    "ADD": "add_partition", "DROP": "drop_partition", "TRUNCATE": "truncate_partition",
    "COALESCE": "coalesce_partition", "REORGANIZE": "reorganize_partition",
    "EXCHANGE": "exchange_partition", "REBUILD": "rebuild_partition", "OPTIMIZE": "optimize_partition",
    "ANALYZE": "analyze_partition", "CHECK": "check_partition", "REPAIR": "repair_partition",
    "DISCARD": "discard_partition_tablespace", "IMPORT": "import_partition_tablespace",
}
TABLE_OPTIONS = {
    "ENGINE": "engine", "ROW_FORMAT": "row_format", "KEY_BLOCK_SIZE": "key_block_size",
    "AUTO_INCREMENT": "auto_increment", "COMMENT": "table_comment", "CHARACTER": "default_charset",
    "CHARSET": "default_charset", "COLLATE": "default_charset", "ALGORITHM": "algorithm", "LOCK": "lock",
}


class AlterSyntaxError(ValueError):
    pass


def parse_actions(body: str, dialect: str) -> list[Action]:
    """Actions of an ALTER TABLE, given the text after the table name."""
    toks = tokenize(body)
    actions: list[Action] = []
    cut = find_partition_by(toks)
    tail: list[Tok] = []
    if cut >= 0:
        toks, tail = toks[:cut], toks[cut:]
    for part in split_top(toks):
        actions.extend(_classify(part, body, dialect))
    if tail:
        part_text = text_of(tail, body)
        reader = parse_pg_partition_by if dialect == "postgres" else parse_partition_by
        try:
            partitioning = reader(tail, body)
        except ValueError as e:
            raise AlterSyntaxError(str(e)) from None
        actions.append(Action("partition_by", part_text, details={"partitioning": partitioning}))
    return actions


def _w(part: list[Tok], i: int) -> str:
    return part[i].upper if i < len(part) else ""


def _classify(part: list[Tok], src: str, dialect: str) -> list[Action]:
    text = text_of(part, src)
    w0, w1 = _w(part, 0), _w(part, 1)

    def act(op: str, **kw) -> list[Action]:
        return [Action(op, text, **kw)]

    if w0 == "ADD":
        return _add(part, src, text, dialect)
    if w0 == "DROP":
        return _drop(part, text)
    if w0 == "ALTER":
        return _alter_column(part, src, text, dialect)
    if w0 == "MODIFY":
        i = 2 if w1 == "COLUMN" else 1
        return [_column_action("modify_column", part[i:], src, text, dialect)]
    if w0 == "CHANGE":
        i = 2 if w1 == "COLUMN" else 1
        a = _column_action("change_column", part[i + 1 :], src, text, dialect)
        a.column, a.new_name = part[i].ident.lower(), a.column
        return [a]
    if w0 == "RENAME":
        if w1 in ("INDEX", "KEY"):
            return act("rename_index", column=None, new_name=part[-1].ident.lower(), details={"index": part[2].ident.lower()})
        if w1 == "CONSTRAINT":
            return act("rename_constraint")
        if w1 in ("TO", "AS") or len(part) == 2:
            return act("rename_table", new_name=part[-1].ident)
        i = 2 if w1 == "COLUMN" else 1
        return act("rename_column", column=part[i].ident.lower(), new_name=part[-1].ident.lower())
    if w0 == "SET":
        return _set(part, text)
    if w0 == "RESET":
        return act("reset_storage_params")
    if w0 == "CLUSTER" and w1 == "ON":
        return act("cluster_on", details={"index": part[2].ident.lower()})
    if w0 in ("ENABLE", "DISABLE"):
        verb = w0.lower()
        rest = {t.upper for t in part[1:]}
        if "TRIGGER" in rest:
            return act(f"{verb}_trigger")
        if "RULE" in rest:
            return act(f"{verb}_rule")
        if "SECURITY" in rest:
            return act(f"{verb}_rls")
        if w1 == "KEYS":
            return act(f"{verb}_keys")
    if w0 == "FORCE":
        return act("force_rls") if w1 == "ROW" else act("force")
    if w0 == "NO" and w1 == "FORCE":
        return act("no_force_rls")
    if w0 == "NO" and w1 == "INHERIT":
        return act("no_inherit")
    if w0 == "INHERIT":
        return act("inherit", details={"parent": table_key(part[1].text, dialect)})
    if w0 == "REPLICA" and w1 == "IDENTITY":
        return act("replica_identity")
    if w0 == "OWNER":
        return act("owner_to")
    if w0 == "OF":
        return act("of_type")
    if w0 == "NOT" and w1 == "OF":
        return act("not_of")
    if w0 == "VALIDATE" and w1 == "CONSTRAINT":
        return act("validate_constraint", details={"constraint": part[2].ident.lower()})
    if w0 == "ATTACH" and w1 == "PARTITION":
        return act("attach_partition", details={"partition": table_key(part[2].text, dialect)})
    if w0 == "DETACH" and w1 == "PARTITION":
        last = _w(part, len(part) - 1)
        op = {"CONCURRENTLY": "detach_partition_concurrently", "FINALIZE": "detach_partition_finalize"}.get(
            last, "detach_partition"
        )
        return act(op, details={"partition": table_key(part[2].text, dialect)})
    if w0 == "REMOVE" and w1 == "PARTITIONING":
        return act("remove_partitioning")
    if w1 in ("PARTITION", "PARTITIONS") and w0 in PARTITION_OPS:
        return act(PARTITION_OPS[w0])
    if w0 in ("DISCARD", "IMPORT") and w1 == "TABLESPACE":
        return act("table_option", details={"value": text})
    if w0 == "CONVERT" and w1 == "TO":
        return act("convert_charset", details={"value": text})
    if w0 == "ORDER" and w1 == "BY":
        return act("order_by")
    if w0 in ("WITH", "WITHOUT") and w1 == "VALIDATION":
        return act("table_option", details={"value": text})
    if w0 == "UPGRADE" and w1 == "PARTITIONING":
        return act("table_option", details={"value": text})
    return _table_options(part, src, dialect)


def _table_options(part: list[Tok], src: str, dialect: str) -> list[Action]:
    """MySQL table options, which may follow each other without commas: `ENGINE=InnoDB ROW_FORMAT=DYNAMIC`."""
    if dialect == "postgres":
        raise AlterSyntaxError(f"cannot read ALTER TABLE action {text_of(part, src)!r}")
    actions, i = [], 0
    while i < len(part):
        start = i
        if part[i].upper == "DEFAULT":
            i += 1
        word = _w(part, i)
        if word == "CHARACTER" and _w(part, i + 1) == "SET":
            i += 1
        if not word or part[i].kind != "word":
            raise AlterSyntaxError(f"cannot read ALTER TABLE action {text_of(part[start:], src)!r}")
        i += 1
        if i < len(part) and part[i].text == "=":
            i += 1
        if i >= len(part):
            raise AlterSyntaxError(f"cannot read ALTER TABLE action {text_of(part[start:], src)!r}")
        value = part[i].ident
        i += 1
        op = TABLE_OPTIONS.get(word, "table_option")
        if op in ("algorithm", "lock", "engine"):
            value = value.upper()
        actions.append(Action(op, text_of(part[start:i], src), details={"value": value, "option": word}))
    return actions


def _constraint_name(part: list[Tok]) -> tuple[str | None, int]:
    """Skip `ADD [CONSTRAINT [name]]`; returns the name and the index after it."""
    i = 1
    if _w(part, i) == "CONSTRAINT":
        i += 1
        if i < len(part) and _w(part, i) not in CONSTRAINT_WORDS:
            return part[i].ident.lower(), i + 1
    return None, i


def _key_columns(part: list[Tok], i: int) -> tuple[str | None, tuple[str, ...], int]:
    """After a key keyword: `[name] [USING x] (cols)` -> (name, columns, index after)."""
    name = None
    while i < len(part) and part[i].kind != "lparen":
        if part[i].upper in ("USING", "INDEX", "KEY"):
            if part[i].upper == "USING" and _w(part, i + 1) == "INDEX":
                return None, (), i  # PostgreSQL ... USING INDEX name
            i += 2 if part[i].upper == "USING" else 1
            continue
        if part[i].upper in ("IF",):
            i += 3  # IF NOT EXISTS
            continue
        name = part[i].ident.lower()
        i += 1
    if i >= len(part):
        raise AlterSyntaxError("expected a column list")
    inner, j = paren_group(part, i)
    return name, column_list(inner), j


def _add(part: list[Tok], src: str, text: str, dialect: str) -> list[Action]:
    cname, i = _constraint_name(part)
    w = _w(part, i)
    if w == "PRIMARY":
        using = _using_index(part)
        _, cols, _ = (None, (), 0) if using else _key_columns(part, i + 2)
        idx = Index(cname, cols, unique=True, primary=True)
        return [Action("add_primary_key", text, details={"index": idx, "using_index": using})]
    if w == "UNIQUE":
        using = _using_index(part)
        name, cols = None, ()
        if not using:
            j = i + 1
            if _w(part, j) == "NULLS":  # NULLS [NOT] DISTINCT
                j += 3 if _w(part, j + 1) == "NOT" else 2
            name, cols, _ = _key_columns(part, j)
        idx = Index(cname or name, cols, unique=True)
        return [Action("add_unique", text, details={"index": idx, "using_index": using})]
    if w == "FOREIGN":
        ref = next((k for k, t in enumerate(part) if t.upper == "REFERENCES"), None)
        if ref is None:
            raise AlterSyntaxError("FOREIGN KEY without REFERENCES")
        _, cols, _ = _key_columns(part, i + 2)
        return [
            Action(
                "add_foreign_key",
                text,
                details={
                    "references": table_key(part[ref + 1].text, dialect),
                    "columns": cols,
                    "not_valid": _has_words(part, "NOT", "VALID"),
                    "name": cname,
                },
            )
        ]
    if w == "CHECK":
        return [Action("add_check", text, details={"not_valid": _has_words(part, "NOT", "VALID")})]
    if w == "EXCLUDE":
        return [Action("add_exclude", text, details={"index": Index(cname, (), kind="exclude")})]
    if w in INDEX_WORDS:
        kind = w.lower() if w in ("FULLTEXT", "SPATIAL") else "btree"
        j = i + 1
        if w in ("FULLTEXT", "SPATIAL") and _w(part, j) in ("INDEX", "KEY"):
            j += 1
        name, cols, _ = _key_columns(part, j)
        return [Action("add_index", text, details={"index": Index(name, cols, kind=kind)})]
    if w == "PARTITION":
        return [Action("add_partition", text)]
    # ADD [COLUMN] [IF NOT EXISTS] col type ... | MySQL ADD [COLUMN] (col type, col type)
    j = i + 1 if w == "COLUMN" else i
    if _w(part, j) == "IF":
        j += 3
    if j < len(part) and part[j].kind == "lparen":
        inner, _ = paren_group(part, j)
        return [_column_action("add_column", p, src, text, dialect) for p in split_top(inner)]
    return [_column_action("add_column", part[j:], src, text, dialect)]


def _using_index(part: list[Tok]) -> str | None:
    for k in range(len(part) - 2):
        if part[k].upper == "USING" and part[k + 1].upper == "INDEX" and part[k + 2].kind in ("word", "name"):
            if part[k + 2].upper != "TABLESPACE":
                return part[k + 2].ident.lower()
    return None


def _has_words(part: list[Tok], *words: str) -> bool:
    ups = [t.upper for t in part]
    n = len(words)
    return any(ups[k] == words[0] and tuple(ups[k : k + n]) == words for k in range(len(ups) - n + 1))


def _drop(part: list[Tok], text: str) -> list[Action]:
    w1 = _w(part, 1)
    last = part[-1].ident.lower() if part else None
    if w1 == "CONSTRAINT":
        return [Action("drop_constraint", text, details={"constraint": _after_if_exists(part, 2)})]
    if w1 == "PRIMARY":
        return [Action("drop_primary_key", text)]
    if w1 in ("INDEX", "KEY"):
        return [Action("drop_index", text, details={"index": _after_if_exists(part, 2)})]
    if w1 == "FOREIGN":
        return [Action("drop_foreign_key", text, details={"constraint": _after_if_exists(part, 3)})]
    if w1 == "CHECK":
        return [Action("drop_constraint", text, details={"constraint": last})]
    if w1 in ("PARTITION", "PARTITIONS"):
        return [Action("drop_partition", text)]
    if w1 == "DEFAULT":  # never valid here, but reads better as an error
        raise AlterSyntaxError("DROP DEFAULT needs ALTER COLUMN")
    i = 2 if w1 == "COLUMN" else 1
    return [Action("drop_column", text, column=_after_if_exists(part, i))]


def _after_if_exists(part: list[Tok], i: int) -> str | None:
    if _w(part, i) == "IF":
        i += 2
    return part[i].ident.lower() if i < len(part) else None


def _alter_column(part: list[Tok], src: str, text: str, dialect: str) -> list[Action]:
    w1 = _w(part, 1)
    if w1 == "CONSTRAINT":
        return [Action("alter_constraint", text)]
    if w1 in ("INDEX", "KEY"):  # MySQL ALTER INDEX i [IN]VISIBLE
        return [Action("alter_index_visibility", text, details={"index": part[2].ident.lower()})]
    if w1 == "CHECK":
        return [Action("table_option", text, details={"value": text})]
    i = 2 if w1 == "COLUMN" else 1
    if i >= len(part):
        raise AlterSyntaxError("ALTER COLUMN without a column")
    col = part[i].ident.lower()
    rest = [t.upper for t in part[i + 1 :]]
    r = " ".join(w for w in rest if w)

    def act(op: str, **details) -> list[Action]:
        return [Action(op, text, column=col, details=details)]

    if r.startswith("TYPE") or r.startswith("SET DATA TYPE"):
        k = i + 2 if rest[0] == "TYPE" else i + 4
        using = next((n for n in range(k, len(part)) if part[n].upper == "USING"), None)
        type_toks = part[k:using] if using else part[k:]
        coll = next((n for n, t in enumerate(type_toks) if t.upper == "COLLATE"), None)
        if coll is not None:
            type_toks = type_toks[:coll]
        return act("alter_column_type", type=text_of(type_toks, src), using=using is not None)
    if r.startswith("SET DEFAULT"):
        return act("set_default", default=text_of(part[i + 3 :], src))
    if r.startswith("DROP DEFAULT"):
        return act("drop_default")
    if r.startswith("SET NOT NULL"):
        return act("set_not_null")
    if r.startswith("DROP NOT NULL"):
        return act("drop_not_null")
    if r.startswith("SET STATISTICS"):
        return act("set_statistics")
    if r.startswith("SET STORAGE"):
        return act("set_storage")
    if r.startswith("SET COMPRESSION"):
        return act("set_compression")
    if r.startswith("ADD GENERATED"):
        return act("add_identity")
    if r.startswith("SET GENERATED") or r.startswith("RESTART") or (r.startswith("SET") and "INCREMENT" in r):
        return act("set_identity")
    if r.startswith("DROP IDENTITY"):
        return act("drop_identity")
    if r.startswith("DROP EXPRESSION"):
        return act("drop_expression")
    if r.startswith("SET EXPRESSION"):
        return act("set_expression")
    if r.startswith("SET VISIBLE") or r.startswith("SET INVISIBLE"):
        return act("alter_column_visibility")
    if r.startswith("SET (") or r.startswith("RESET") or (rest and rest[0] == "SET" and part[i + 2].kind == "lparen"):
        return act("set_statistics")
    raise AlterSyntaxError(f"cannot read ALTER COLUMN action {text!r}")


def _set(part: list[Tok], text: str) -> list[Action]:
    w1 = _w(part, 1)
    simple = {"SCHEMA": "set_schema", "TABLESPACE": "set_tablespace", "LOGGED": "set_logged", "UNLOGGED": "set_unlogged"}
    if w1 in simple:
        return [Action(simple[w1], text, details={"value": part[-1].ident})]
    if w1 == "ACCESS":
        return [Action("set_access_method", text)]
    if w1 == "WITHOUT":
        return [Action("set_without_cluster" if _w(part, 2) == "CLUSTER" else "table_option", text)]
    if len(part) > 1 and part[1].kind == "lparen":
        inner, _ = paren_group(part, 1)
        params = ["".join(t.text for t in p) for p in split_top(inner)]
        return [Action("set_storage_params", text, details={"params": params})]
    raise AlterSyntaxError(f"cannot read ALTER TABLE action {text!r}")


_POSITION_WORDS = ("FIRST", "AFTER")


def _column_action(op: str, toks: list[Tok], src: str, text: str, dialect: str) -> Action:
    """ADD/MODIFY/CHANGE column: read the definition with sqlglot."""
    position = None
    for k, t in enumerate(toks):
        if t.upper in _POSITION_WORDS and dialect != "postgres":
            position = t.upper.lower()
            toks = toks[:k]
            break
    definition = text_of(toks, src)
    if not toks:
        raise AlterSyntaxError(f"missing column definition in {text!r}")
    import sqlglot
    from sqlglot import exp

    from schemacite.sources.mysql.create_table import column_facts

    try:
        coldef = sqlglot_column(definition, dialect)
    except (sqlglot.errors.SqlglotError, AttributeError, IndexError) as e:
        raise AlterSyntaxError(f"cannot read column definition {definition!r}: {_first_line(e)}") from None
    if not isinstance(coldef, exp.ColumnDef):
        raise AlterSyntaxError(f"cannot read column definition {definition!r}")
    facts = column_facts(coldef, dialect)
    facts["position"] = position
    return Action(op, text, column=facts["name"], details=facts)


def _first_line(e: Exception) -> str:
    return str(e).splitlines()[0]
