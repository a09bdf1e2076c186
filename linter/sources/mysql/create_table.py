"""CREATE TABLE (and column definitions) read through sqlglot into the model."""
from __future__ import annotations

import re
from typing import Any

from sqlglot import exp

from schemacite.model import Column, Index, Table
from schemacite.sources.replay import implicit_fk_index
from schemacite.sources.names import sqlglot_dialect, table_key

# defaults that give every row a different value: PostgreSQL must rewrite the table
# to add such a column, and MySQL cannot add it instantly
VOLATILE_FUNCTIONS = frozenset(
    {"random", "rand", "clock_timestamp", "timeofday", "gen_random_uuid", "uuid_generate_v1",
     "uuid_generate_v1mc", "uuid_generate_v4", "uuid", "nextval", "txid_current", "statement_timestamp",
     "uuid_short", "sysdate"}
)
SERIAL_TYPES = frozenset({"SERIAL", "BIGSERIAL", "SMALLSERIAL"})


def _name(node: Any) -> str:
    if isinstance(node, exp.Identifier):
        return node.name.lower()
    if isinstance(node, (exp.Column, exp.ColumnPrefix, exp.Ordered)):
        return _name(node.this)
    if isinstance(node, exp.Expression):
        return node.sql().lower()
    return str(node).lower()


def _table_ref(node: exp.Expression | None, dialect: str) -> str | None:
    if isinstance(node, exp.Schema):
        node = node.this
    if isinstance(node, exp.Table):
        parts = [p.name for p in node.parts]
        return parts[-1].lower() if dialect != "postgres" or len(parts) < 2 else table_key(".".join(f'"{p}"' for p in parts), dialect)
    return None


def column_facts(col: exp.ColumnDef, dialect: str) -> dict[str, Any]:
    """What replay and the lock tables need to know about one column definition."""
    glot = sqlglot_dialect(dialect)
    kind = col.args.get("kind")
    type_sql = _type_sql(kind, glot) if kind is not None else ""
    facts: dict[str, Any] = {
        "name": _name(col.this),
        "type": type_sql,
        "not_null": False,
        "default": None,
        "volatile_default": kind is not None and kind.this.name in SERIAL_TYPES,
        "primary": False,
        "unique": False,
        "references": None,
        "stored": False,
        "identity": False,
    }
    for c in col.args.get("constraints") or []:
        k = c.args.get("kind")
        if isinstance(k, exp.NotNullColumnConstraint):
            facts["not_null"] = not k.args.get("allow_null")
        elif isinstance(k, exp.DefaultColumnConstraint):
            facts["default"] = _default_sql(k.this, glot)
            if not isinstance(k.this, _CONSTANTS):
                funcs = {_func_name(f) for f in k.this.find_all(exp.Func)}
                facts["volatile_default"] = facts["volatile_default"] or bool(funcs & VOLATILE_FUNCTIONS)
        elif isinstance(k, exp.PrimaryKeyColumnConstraint):
            facts["primary"] = True
            facts["not_null"] = True
        elif isinstance(k, exp.UniqueColumnConstraint):
            facts["unique"] = True
        elif isinstance(k, exp.Reference):
            facts["references"] = _table_ref(k.this, dialect)
        elif isinstance(k, exp.GeneratedAsIdentityColumnConstraint):
            facts["identity"] = True
            facts["not_null"] = True
        elif isinstance(k, exp.ComputedColumnConstraint):
            # PostgreSQL (up to 17) only has STORED generated columns; MySQL says which
            facts["stored"] = dialect == "postgres" or bool(k.args.get("persisted"))
        elif isinstance(k, exp.AutoIncrementColumnConstraint):
            facts["auto_increment"] = True
    return facts


_CONSTANTS = (exp.Literal, exp.Null, exp.Boolean)
_TYPE_SQL: dict[tuple, str] = {}


def _type_sql(kind: exp.DataType, glot: str) -> str:
    """kind.sql(), remembered for the plain `NAME(literal, ...)` types that make up most columns:
    generating SQL text is the costliest step of reading a column."""
    params = kind.expressions
    if kind.args.get("nested") or not all(
        isinstance(p, exp.DataTypeParam) and isinstance(p.this, exp.Literal) and not p.args.get("expression")
        for p in params
    ):
        return kind.sql(dialect=glot)
    key = (glot, kind.this, tuple((p.this.this, p.this.is_string) for p in params))
    text = _TYPE_SQL.get(key)
    if text is None:
        text = _TYPE_SQL[key] = kind.sql(dialect=glot)
    return text


_DEFAULT_SQL: dict[tuple, str] = {}


def _default_sql(node: exp.Expression, glot: str) -> str:
    if isinstance(node, exp.Literal):
        return "'" + node.this.replace("'", "''") + "'" if node.is_string else node.this
    if isinstance(node, exp.Null):
        return "NULL"
    if isinstance(node, exp.Boolean):
        return "TRUE" if node.this else "FALSE"
    # the same few defaults ('0'::bigint, now(), nextval('s'::regclass)) recur on every
    # table: generate each shape's text once
    key = (glot, _shape(node))
    text = _DEFAULT_SQL.get(key)
    if text is None:
        text = _DEFAULT_SQL[key] = node.sql(dialect=glot)
    return text


def _shape(value):
    """A hashable image of a small expression tree (class, arguments), for caching its text."""
    if isinstance(value, exp.Expression):
        return (type(value), tuple((k, _shape(v)) for k, v in value.args.items() if v is not None))
    if isinstance(value, list):
        return tuple(_shape(v) for v in value)
    return value


def _func_name(f: exp.Func) -> str:
    if isinstance(f, exp.Anonymous):
        return str(f.this).lower()
    if isinstance(f, exp.Rand):
        return "random"
    return f.sql_name().lower()


def _index(name: Any, cols: list, *, unique=False, primary=False, kind="btree") -> Index:
    return Index(
        name=_name(name) if name is not None else None,
        columns=tuple(_name(c) for c in cols),
        unique=unique or primary,
        primary=primary,
        kind=kind,
    )


def table_from_create(create: exp.Create, dialect: str) -> tuple[Table, list[str]]:
    """The table a CREATE TABLE defines, and the tables its foreign keys reference."""
    schema_node = create.this if isinstance(create.this, exp.Schema) else None
    table_node = schema_node.this if schema_node is not None else create.this
    table = Table(name=_table_ref(table_node, dialect) or "")
    references: list[str] = []
    props = create.args.get("properties")
    for p in props.expressions if props else []:
        if isinstance(p, exp.TemporaryProperty):
            table.temporary = True
        elif isinstance(p, exp.EngineProperty):
            table.engine = p.this.name
    foreign_keys: list[tuple[Any, tuple[str, ...]]] = []
    for node in schema_node.expressions if schema_node is not None else []:
        _add_element(table, node, dialect, references, foreign_keys)
    for name, cols in foreign_keys:
        implicit_fk_index(table, cols, dialect, _name(name) if name is not None else None)
    if table.primary_key is not None:
        for c in table.primary_key.columns:
            if c in table.columns:
                table.columns[c].nullable = False
    return table, references


def _add_element(
    table: Table, node: exp.Expression, dialect: str, references: list[str], foreign_keys: list, name: Any = None
) -> None:
    if isinstance(node, exp.ColumnDef):
        f = column_facts(node, dialect)
        table.columns[f["name"]] = Column(f["name"], f["type"], nullable=not f["not_null"], default=f["default"])
        if f["primary"]:
            table.primary_key = Index(None, (f["name"],), unique=True, primary=True)
        if f["unique"]:
            table.indexes.append(Index(None, (f["name"],), unique=True))
        if f["references"]:
            references.append(f["references"])
    elif isinstance(node, exp.Constraint):
        for inner in node.expressions:
            _add_element(table, inner, dialect, references, foreign_keys, name=node.this)
    elif isinstance(node, exp.PrimaryKey):
        table.primary_key = _index(name, node.expressions, primary=True)
    elif isinstance(node, exp.UniqueColumnConstraint):
        target = node.this
        cols = target.expressions if isinstance(target, exp.Schema) else []
        iname = target.this if isinstance(target, exp.Schema) and target.this is not None else name
        table.indexes.append(_index(iname, cols, unique=True))
    elif isinstance(node, exp.IndexColumnConstraint):
        kind = (node.args.get("kind") or "btree").lower()
        table.indexes.append(_index(node.this, node.expressions, kind=kind))
    elif isinstance(node, exp.ForeignKey):
        ref = node.args.get("reference")
        parent = _table_ref(ref.this, dialect) if ref is not None else None
        if parent:
            references.append(parent)
        foreign_keys.append((name, tuple(_name(c) for c in node.expressions)))
    elif isinstance(node, exp.ExcludeColumnConstraint):
        params = node.this
        cols = params.args.get("columns") or [] if isinstance(params, exp.IndexParameters) else []
        table.indexes.append(_index(name, [c.this if isinstance(c, exp.WithOperator) else c for c in cols], kind="exclude"))


_LIKE = re.compile(r"\bINCLUDING\s+(ALL|INDEXES)\b", re.I)


def like_copies_keys(sql: str, dialect: str) -> bool:
    """MySQL's CREATE TABLE ... LIKE copies keys; PostgreSQL's only with INCLUDING INDEXES/ALL."""
    return dialect != "postgres" or bool(_LIKE.search(sql))


# ---- MySQL CREATE TABLE in the layout SHOW CREATE TABLE and mysqldump write -----------------
#
# A dump holds thousands of tables whose columns repeat the same few definitions. In that layout
# (one element per line) each column line is its name plus a definition; sqlglot reads each
# distinct definition once and the facts are reused. Key lines are read by the patterns below.
# Any line, option or clause outside this layout sends the whole statement to sqlglot.

_IDENT = r"`(?:[^`]|``)+`"
_COLUMN_LINE = re.compile(rf"\s*(?P<name>{_IDENT})\s+(?P<def>.+?)(?P<comment>\s+COMMENT\s+'(?:[^'\\]|\\.|'')*')?\s*,?\s*")
_KEY_PARTS = rf"\((?P<cols>{_IDENT}(?:\(\d+\))?(?:\s+(?:ASC|DESC))?(?:\s*,\s*{_IDENT}(?:\(\d+\))?(?:\s+(?:ASC|DESC))?)*)\)"
_KEY_TAIL = r"(?:\s+USING\s+(?:BTREE|HASH))?(?:\s+KEY_BLOCK_SIZE\s*=\s*\d+)?(?:\s+COMMENT\s+'(?:[^'\\]|\\.|'')*')?"
_KEY_LINE = re.compile(
    rf"\s*(?:(?P<primary>PRIMARY\s+KEY)|(?P<kind>UNIQUE|FULLTEXT|SPATIAL)?\s*(?:KEY|INDEX)\s+(?P<name>{_IDENT}))"
    rf"\s*{_KEY_PARTS}{_KEY_TAIL}\s*,?\s*",
    re.I,
)
_FK_LINE = re.compile(
    rf"\s*CONSTRAINT\s+(?P<name>{_IDENT})\s+FOREIGN\s+KEY\s*{_KEY_PARTS}\s*REFERENCES\s+(?:{_IDENT}\.)?(?P<ref>{_IDENT})"
    rf"\s*\({_IDENT}(?:\s*,\s*{_IDENT})*\)(?:\s+ON\s+(?:DELETE|UPDATE)\s+(?:RESTRICT|CASCADE|SET\s+NULL|NO\s+ACTION|SET\s+DEFAULT))*"
    r"\s*,?\s*",
    re.I,
)
_CHECK_LINE = re.compile(rf"\s*CONSTRAINT\s+{_IDENT}\s+CHECK\s*\(.*\)\s*,?\s*", re.I)  # not modelled, as in sqlglot's reading
_OPTIONS_LINE = re.compile(r"\)\s*(?:(?:DEFAULT\s+)?[A-Z_]+(?:\s+SET)?\s*=\s*(?:'(?:[^'\\]|\\.|'')*'|[\w.]+)\s*)*", re.I)
_ENGINE = re.compile(r"\bENGINE\s*=\s*(\w+)", re.I)
_HEAD = re.compile(rf"CREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:{_IDENT}\.)?(?P<name>{_IDENT})\s*\(\s*", re.I)
_DEFINITIONS: dict[tuple[str, str], dict[str, Any] | None] = {}


def _unquote(ident: str) -> str:
    return ident[1:-1].replace("``", "`").lower()


def _definition_facts(definition: str, dialect: str) -> dict[str, Any] | None:
    """Facts of a column definition (without its name), read by sqlglot once per distinct text."""
    key = (dialect, definition)
    if key not in _DEFINITIONS:
        import sqlglot

        from schemacite.sources.names import sqlglot_column

        try:
            coldef = sqlglot_column("x " + definition, dialect)
            facts = column_facts(coldef, dialect) if isinstance(coldef, exp.ColumnDef) else None
        except (sqlglot.errors.SqlglotError, AttributeError, IndexError, ValueError):
            facts = None
        if facts is not None and (facts["primary"] or facts["unique"] or facts["references"]):
            facts = None  # column-level keys: the whole statement goes to sqlglot
        _DEFINITIONS[key] = facts
    return _DEFINITIONS[key]


def read_dump_layout(body: str, dialect: str) -> tuple[Table, list[str]] | None:
    """The table of a MySQL CREATE TABLE written one element per line, or None when any part of
    it is outside that layout (then sqlglot reads the statement)."""
    head = _HEAD.match(body)
    if head is None or dialect == "postgres":
        return None
    lines = body[head.end():].rstrip().split("\n")
    options = lines.pop().strip() if lines else ""
    if not options.startswith(")") or _OPTIONS_LINE.fullmatch(options) is None:
        return None
    table = Table(name=_unquote(head.group("name")))
    engine = _ENGINE.search(options)
    if engine:
        table.engine = engine.group(1)
    references: list[str] = []
    foreign_keys: list[tuple[str, tuple[str, ...]]] = []
    for line in lines:
        if not line.strip():
            continue
        if line.lstrip().startswith("`"):
            m = _COLUMN_LINE.fullmatch(line)
            facts = _definition_facts(m.group("def"), dialect) if m else None
            if facts is None:
                return None
            name = _unquote(m.group("name"))
            table.columns[name] = Column(name, facts["type"], nullable=not facts["not_null"], default=facts["default"])
            continue
        m = _KEY_LINE.fullmatch(line)
        if m is not None:
            cols = tuple(_unquote(c) for c in re.findall(_IDENT, m.group("cols")))
            if m.group("primary"):
                table.primary_key = Index(None, cols, unique=True, primary=True)
            else:
                kind = (m.group("kind") or "").lower()
                table.indexes.append(Index(_unquote(m.group("name")), cols, unique=kind == "unique",
                                           kind=kind if kind in ("fulltext", "spatial") else "btree"))
            continue
        m = _FK_LINE.fullmatch(line)
        if m is None:
            if _CHECK_LINE.fullmatch(line):
                continue
            return None
        references.append(_unquote(m.group("ref")))
        foreign_keys.append((_unquote(m.group("name")), tuple(_unquote(c) for c in re.findall(_IDENT, m.group("cols")))))
    for name, cols in foreign_keys:
        implicit_fk_index(table, cols, dialect, name)
    if table.primary_key is not None:
        for c in table.primary_key.columns:
            if c in table.columns:
                table.columns[c].nullable = False
    return table, references
