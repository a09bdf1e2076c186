"""MySQL/MariaDB ALTER TABLE sub-commands, read by us into typed actions.

sqlglot falls back to an opaque command for many sub-forms that decide how a statement locks
(ALGORITHM=..., partition operations, CONVERT TO CHARACTER SET), so every sub-command is
classified here into an `Action` whose `op` keys the lock tables. Column definitions still go
through sqlglot.
"""

from __future__ import annotations

from schemacite.model import Index
from schemacite.model.record import replace
from schemacite.model.schema import Check, ForeignKey
from schemacite.model.statements import (
    PARTITION_MAINTENANCE,
    Action,
    AddCheck,
    AddColumn,
    AddForeignKey,
    AddKey,
    ConstraintAction,
    DropColumn,
    IndexAction,
    Option,
    PartitionBy,
    Rename,
    SetDefault,
)
from schemacite.sources.mysql.partition import find_partition_by, parse_partition_by
from schemacite.sources.mysql.types import canonical_charset, canonical_collation
from schemacite.sources.names import (
    Tok,
    column_list,
    paren_group,
    prefix_in,
    split_top,
    table_key,
    text_of,
    tokenize,
)

CONSTRAINT_WORDS = {"PRIMARY", "UNIQUE", "FOREIGN", "CHECK", "EXCLUDE"}
INDEX_WORDS = {"INDEX", "KEY", "FULLTEXT", "SPATIAL"}
PARTITION_OPS = {op.split("_", 1)[0].upper(): op for op in PARTITION_MAINTENANCE}  # ADD -> add_partition
TABLE_OPTIONS = {
    "ENGINE": "engine",
    "ROW_FORMAT": "row_format",
    "KEY_BLOCK_SIZE": "key_block_size",
    "AUTO_INCREMENT": "auto_increment",
    "COMMENT": "table_comment",
    "CHARACTER": "default_charset",
    "CHARSET": "default_charset",
    "COLLATE": "default_charset",
    "ALGORITHM": "algorithm",
    "LOCK": "lock",
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
        try:
            partitioning = parse_partition_by(tail, body)
        except ValueError as e:
            raise AlterSyntaxError(str(e)) from None
        actions.append(PartitionBy("partition_by", text_of(tail, body), partitioning=partitioning))
    return actions


def _w(part: list[Tok], i: int) -> str:
    return part[i].upper if i < len(part) else ""


def _classify(part: list[Tok], src: str, dialect: str) -> list[Action]:
    text = text_of(part, src)
    w0, w1 = _w(part, 0), _w(part, 1)

    def act(op: str, column: str | None = None) -> list[Action]:
        return [Action(op, text, column)]

    if w0 == "ADD":
        return _add(part, src, text, dialect)
    if w0 == "DROP":
        return _drop(part, text)
    if w0 == "ALTER":
        return _alter_column(part, src, text)
    if w0 in ("MODIFY", "CHANGE"):
        return [_modify_or_change(part, src, text, dialect)]
    if w0 == "RENAME":
        return [_rename(part, text, dialect)]
    if w0 in ("ENABLE", "DISABLE") and w1 == "KEYS":
        return act(f"{w0.lower()}_keys")
    if w0 == "FORCE":
        return act("force")
    if w1 in ("PARTITION", "PARTITIONS") and w0 in PARTITION_OPS:
        return act(PARTITION_OPS[w0])
    if w0 == "REMOVE" and w1 == "PARTITIONING":
        return act("remove_partitioning")
    if w0 in ("DISCARD", "IMPORT") and w1 == "TABLESPACE":
        return [Option("table_option", text, option=f"{w0} TABLESPACE")]
    if w0 == "CONVERT" and w1 == "TO":
        return [_convert(part, text)]
    if w0 == "ORDER" and w1 == "BY":
        return act("order_by")
    if w0 in ("WITH", "WITHOUT") and w1 == "VALIDATION":
        return [Option("table_option", text, option=f"{w0} VALIDATION")]
    if w0 == "UPGRADE" and w1 == "PARTITIONING":
        return [Option("table_option", text, option="UPGRADE PARTITIONING")]
    return _table_options(part, src)


def _modify_or_change(part: list[Tok], src: str, text: str, dialect: str) -> Action:
    """MODIFY [COLUMN] col definition, CHANGE [COLUMN] old new definition."""
    i = 2 if _w(part, 1) == "COLUMN" else 1
    if_exists = _w(part, i) == "IF" and _w(part, i + 1) == "EXISTS"  # MariaDB
    i += 2 if if_exists else 0
    if _w(part, 0) == "MODIFY":
        return replace(_column_action("modify_column", part[i:], src, text, dialect), if_exists=if_exists)
    a = _column_action("change_column", part[i + 1 :], src, text, dialect)
    return replace(a, column=part[i].ident.lower(), old_name=part[i].ident.lower(), if_exists=if_exists)


def _rename(part: list[Tok], text: str, dialect: str) -> Action:
    """RENAME {INDEX|KEY} old TO new, RENAME [TO|AS] table, RENAME COLUMN old TO new."""
    w1 = _w(part, 1)
    if w1 in ("INDEX", "KEY"):
        return Rename("rename_index", text, new_name=part[-1].ident.lower(), name=part[2].ident.lower())
    if w1 in ("TO", "AS") or len(part) == 2:
        return Rename("rename_table", text, new_name=table_key(part[-1].text, dialect))
    i = 2 if w1 == "COLUMN" else 1
    return Rename("rename_column", text, part[i].ident.lower(), new_name=part[-1].ident.lower())


def _convert(part: list[Tok], text: str) -> Action:
    """CONVERT TO CHARACTER SET cs [COLLATE co]."""
    words = [t.ident for t in part]
    ups = [t.upper for t in part]
    charset = collation = None
    for k, w in enumerate(ups):
        if w in ("SET", "CHARSET") and k + 1 < len(words):
            charset = canonical_charset(words[k + 1])
        elif w == "COLLATE" and k + 1 < len(words):
            collation = canonical_collation(words[k + 1])
    return Option("convert_charset", text, option="charset", value=charset, collation=collation)


def _table_options(part: list[Tok], src: str) -> list[Action]:
    """Table options, which may follow each other without commas: `ENGINE=InnoDB ROW_FORMAT=DYNAMIC`."""
    actions: list[Action] = []
    i = 0
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
        if op in ("algorithm", "lock", "engine", "row_format"):
            value = value.upper() if op != "engine" else value
        elif op == "default_charset":
            value = canonical_collation(value) if word == "COLLATE" else canonical_charset(value)
        actions.append(Option(op, text_of(part[start:i], src), option=word, value=value))
    return actions


def _constraint_name(part: list[Tok]) -> tuple[str | None, int]:
    """Skip `ADD [CONSTRAINT [name]]`; returns the name and the index after it."""
    i = 1
    if _w(part, i) == "CONSTRAINT":
        i += 1
        if i < len(part) and _w(part, i) not in CONSTRAINT_WORDS:
            return part[i].ident.lower(), i + 1
    return None, i


def _key_columns(part: list[Tok], i: int) -> tuple[str | None, tuple[str, ...], bool]:
    """After a key keyword: `[name] [USING x] (cols)` -> (name, columns, whether a column is a prefix)."""
    name = None
    while i < len(part) and part[i].kind != "lparen":
        if part[i].upper in ("USING", "INDEX", "KEY"):
            i += 2 if part[i].upper == "USING" else 1
            continue
        if part[i].upper == "IF":
            i += 3  # IF NOT EXISTS
            continue
        name = part[i].ident.lower()
        i += 1
    if i >= len(part):
        raise AlterSyntaxError("expected a column list")
    inner, _ = paren_group(part, i)
    return name, column_list(inner), prefix_in(inner)


def _add(part: list[Tok], src: str, text: str, dialect: str) -> list[Action]:
    cname, i = _constraint_name(part)
    w = _w(part, i)
    if w == "PRIMARY":
        _, cols, prefix = _key_columns(part, i + 2)
        return [AddKey("add_primary_key", text, index=Index(cname, cols, unique=True, primary=True, prefix=prefix))]
    if w == "UNIQUE":
        name, cols, prefix = _key_columns(part, i + 1)
        return [AddKey("add_unique", text, index=Index(cname or name, cols, unique=True, prefix=prefix))]
    if w == "FOREIGN":
        ref = next((k for k, t in enumerate(part) if t.upper == "REFERENCES"), None)
        if ref is None:
            raise AlterSyntaxError("FOREIGN KEY without REFERENCES")
        _, cols, _ = _key_columns(part, i + 2)
        ref_cols: tuple[str, ...] = ()
        if ref + 2 < len(part) and part[ref + 2].kind == "lparen":
            inner, _ = paren_group(part, ref + 2)
            ref_cols = column_list(inner)
        key = ForeignKey(cname, cols, table_key(part[ref + 1].text, dialect), ref_cols)
        return [AddForeignKey("add_foreign_key", text, key=key)]
    if w == "CHECK":
        inner, _ = paren_group(part, i + 1) if i + 1 < len(part) and part[i + 1].kind == "lparen" else ([], 0)
        return [AddCheck("add_check", text, constraint=Check(cname, text_of(inner, src) if inner else ""))]
    if w in INDEX_WORDS:
        kind = w.lower() if w in ("FULLTEXT", "SPATIAL") else "btree"
        j = i + 1
        if w in ("FULLTEXT", "SPATIAL") and _w(part, j) in ("INDEX", "KEY"):
            j += 1
        name, cols, prefix = _key_columns(part, j)
        ine = _w(part, j) == "IF"  # MariaDB: ADD INDEX IF NOT EXISTS name
        return [AddKey("add_index", text, index=Index(name, cols, kind=kind, prefix=prefix), if_not_exists=ine)]
    if w == "PARTITION":
        return [Action("add_partition", text)]
    # ADD [COLUMN] [IF NOT EXISTS] col type ... | ADD [COLUMN] (col type, col type)
    j = i + 1 if w == "COLUMN" else i
    if_not_exists = _w(part, j) == "IF"
    if if_not_exists:
        j += 3
    if j < len(part) and part[j].kind == "lparen":
        inner, _ = paren_group(part, j)
        return [_column_action("add_column", p, src, text, dialect, if_not_exists) for p in split_top(inner)]
    return [_column_action("add_column", part[j:], src, text, dialect, if_not_exists)]


def _drop(part: list[Tok], text: str) -> list[Action]:
    w1 = _w(part, 1)
    if w1 == "CONSTRAINT":
        return [
            ConstraintAction("drop_constraint", text, name=_after_if_exists(part, 2), if_exists=_w(part, 2) == "IF")
        ]
    if w1 == "PRIMARY":
        return [Action("drop_primary_key", text)]
    if w1 in ("INDEX", "KEY"):
        return [IndexAction("drop_index", text, index=_after_if_exists(part, 2))]
    if w1 == "FOREIGN":
        return [ConstraintAction("drop_foreign_key", text, name=_after_if_exists(part, 3))]
    if w1 == "CHECK":
        return [ConstraintAction("drop_constraint", text, name=part[-1].ident.lower())]
    if w1 in ("PARTITION", "PARTITIONS"):
        return [Action("drop_partition", text)]
    if w1 == "DEFAULT":  # never valid here, but reads better as an error
        raise AlterSyntaxError("DROP DEFAULT needs ALTER COLUMN")
    i = 2 if w1 == "COLUMN" else 1
    return [DropColumn("drop_column", text, _after_if_exists(part, i), if_exists=_w(part, i) == "IF")]


def _after_if_exists(part: list[Tok], i: int) -> str | None:
    if _w(part, i) == "IF":
        i += 2
    return part[i].ident.lower() if i < len(part) else None


def _alter_column(part: list[Tok], src: str, text: str) -> list[Action]:
    w1 = _w(part, 1)
    if w1 in ("INDEX", "KEY"):  # ALTER INDEX i [IN]VISIBLE
        return [IndexAction("alter_index_visibility", text, index=part[2].ident.lower())]
    if w1 == "CHECK" or w1 == "CONSTRAINT":  # MySQL 8: ALTER CHECK c [NOT] ENFORCED
        return [
            ConstraintAction(
                "alter_constraint",
                text,
                name=part[2].ident.lower() if len(part) > 2 else None,
                enforced=not any(t.upper == "NOT" for t in part[3:]),
            )
        ]
    i = 2 if w1 == "COLUMN" else 1
    if i >= len(part):
        raise AlterSyntaxError("ALTER COLUMN without a column")
    col = part[i].ident.lower()
    rest = " ".join(t.upper for t in part[i + 1 :] if t.upper)
    if rest.startswith("SET DEFAULT"):
        return [SetDefault("set_default", text, col, default=text_of(part[i + 3 :], src))]
    if rest.startswith("DROP DEFAULT"):
        return [Action("drop_default", text, col)]
    if rest.startswith(("SET VISIBLE", "SET INVISIBLE")):
        return [Action("alter_column_visibility", text, col)]
    raise AlterSyntaxError(f"cannot read ALTER COLUMN action {text!r}")


_POSITION_WORDS = ("FIRST", "AFTER")


def _column_action(
    op: str, toks: list[Tok], src: str, text: str, dialect: str, if_not_exists: bool = False
) -> AddColumn:
    """ADD/MODIFY/CHANGE column: the definition read with sqlglot."""
    position = after = None
    for k, t in enumerate(toks):
        if t.upper in _POSITION_WORDS:
            position = t.upper.lower()
            after = toks[k + 1].ident.lower() if position == "after" and k + 1 < len(toks) else None
            toks = toks[:k]
            break
    definition = text_of(toks, src)
    if not toks:
        raise AlterSyntaxError(f"missing column definition in {text!r}")
    # start-up: sqlglot, which create_table reads with, loads only for the MySQL statements that need it
    from schemacite.sources.mysql.create_table import Unread, parse_column

    try:
        column, flags = parse_column(definition, dialect)
    except Unread as e:
        said = "" if e.said is None else f": {e.said}"
        raise AlterSyntaxError(f"cannot read column definition {definition!r}{said}") from None
    return AddColumn(
        op,
        text,
        column.name,
        definition=column,
        references=(flags.references,) if flags.references else (),
        check=flags.check is not None,
        primary=flags.primary,
        unique=flags.unique,
        position=position,
        after=after,
        if_not_exists=if_not_exists,
        old_name=column.name if op == "modify_column" else None,
    )
