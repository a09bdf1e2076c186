"""MySQL/MariaDB CREATE TABLE and column definitions, read through sqlglot into the model.

Dumps hold thousands of tables whose columns repeat the same few definitions: in the layout
SHOW CREATE TABLE and mysqldump write (one element per line), `read_dump_layout` reads each line
with the patterns below and has sqlglot read each distinct column definition once. Any line,
option or clause outside that layout sends the whole statement to sqlglot (`table_from_create`).
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect as GlotDialect
from sqlglot.tokens import TokenType

from schemacite.model import Column, Index, Table
from schemacite.model.dialects import MYSQL_FAMILY, Dialect
from schemacite.model.record import record, replace
from schemacite.model.schema import Check, ForeignKey
from schemacite.sources.mysql.types import canonical_charset, canonical_collation, parse_type
from schemacite.sources.names import sqlglot_dialect
from schemacite.sources.patterns import Pattern


def _not_a_fallback(record: logging.LogRecord) -> bool:
    return "Falling back to parsing as a 'Command'" not in record.getMessage()


# sqlglot says on stderr, unlocated, when it reads a statement as an opaque Command; the reader
# reports such a statement itself, with its file and line
logging.getLogger("sqlglot").addFilter(_not_a_fallback)

_GLOT = threading.local()  # one tokenizer and parser per dialect and thread


def _glot(dialect: str) -> tuple[Any, Any]:
    cache = _GLOT.__dict__
    pair = cache.get(dialect)
    if pair is None:
        d = GlotDialect.get_or_raise(sqlglot_dialect(dialect))
        tokenizer = _mysql_tokenizer() if dialect in MYSQL_FAMILY else d.tokenizer_class
        pair = cache[dialect] = (tokenizer(dialect=d), d.parser())
    return pair


def _mysql_tokenizer() -> Any:
    """sqlglot's MySQL tokenizer, knowing the spatial column types MySQL and MariaDB dumps
    use (sqlglot's MySQL dialect reads only GEOMETRY; it has the others for other dialects).
    MULTIPOINT and GEOMETRYCOLLECTION have no sqlglot type and read as GEOMETRY."""
    # start-up: sqlglot's MySQL dialect loads with the first statement sqlglot parses (a dump's
    # CREATE TABLEs read by their layout need none)
    from sqlglot.dialects.mysql import MySQL

    class Tokenizer(MySQL.Tokenizer):
        KEYWORDS = {
            **MySQL.Tokenizer.KEYWORDS,
            "POINT": TokenType.POINT,
            "LINESTRING": TokenType.LINESTRING,
            "POLYGON": TokenType.POLYGON,
            "MULTILINESTRING": TokenType.MULTILINESTRING,
            "MULTIPOLYGON": TokenType.MULTIPOLYGON,
            "MULTIPOINT": TokenType.GEOMETRY,
            "GEOMETRYCOLLECTION": TokenType.GEOMETRY,
        }

    return Tokenizer


def sqlglot_parse(sql: str, dialect: str) -> Any:
    """The first expression sqlglot reads from `sql`. The tokenizer and parser are kept
    and reused: sqlglot.parse_one builds both anew on every call, a third of its cost on
    short statements."""
    tokenizer, parser = _glot(dialect)
    return parser.parse(tokenizer.tokenize(sql), sql)[0]


def sqlglot_column(definition: str, dialect: str) -> Any:
    """One column definition (`name type constraints...`) read as a sqlglot ColumnDef."""
    tokenizer, parser = _glot(dialect)
    return parser.parse_into(exp.ColumnDef, tokenizer.tokenize(definition), definition)[0]


class Unread(ValueError):
    """SQL sqlglot could not read (`said`: the first line of what sqlglot said), or read as
    something other than what was asked for (`said` None)."""

    def __init__(self, said: str | None = None):
        super().__init__(said or "")
        self.said = said


# sqlglot refuses ASC/DESC in a PRIMARY KEY's column list, which both servers accept
_PK_ORDER = Pattern(r"\bPRIMARY\s+KEY\s*\([^()]*\)", re.I)
_ORDER_WORD = Pattern(r"(?<=\S)\s+(?:ASC|DESC)\b(?=\s*[,)])", re.I)


def parse_create(body: str, dialect: str) -> tuple[Table, list[str], bool]:
    """A CREATE TABLE (its PARTITION BY cut off) as sqlglot reads it: the table, the tables its
    foreign keys reference, and whether it creates the table AS a query. Unread when sqlglot
    cannot read it."""
    try:
        parsed = sqlglot_parse(body, dialect)
    except sqlglot.errors.SqlglotError as e:
        plain = _PK_ORDER.sub(lambda k: _ORDER_WORD.sub("", k.group(0)), body)
        try:
            # the order of a key's columns is all the model keeps of it: read it without ASC/DESC
            parsed = sqlglot_parse(plain, dialect) if plain != body else None
        except sqlglot.errors.SqlglotError:
            parsed = None
        if parsed is None:
            raise Unread(re.sub(r"\x1b\[[0-9;]*m", "", str(e).splitlines()[0])) from None
    if not isinstance(parsed, exp.Create):
        raise Unread()
    table, refs = table_from_create(parsed, dialect)
    return table, refs, parsed.args.get("expression") is not None


def parse_column(definition: str, dialect: str) -> tuple[Column, ColumnFlags]:
    """A column definition (`name type constraints...`) as sqlglot reads it, and what else it
    declares. Unread when sqlglot cannot read it."""
    try:
        coldef = sqlglot_column(definition, dialect)
    except (sqlglot.errors.SqlglotError, AttributeError, IndexError) as e:
        raise Unread(str(e).splitlines()[0]) from None
    if not isinstance(coldef, exp.ColumnDef):
        raise Unread()
    return column_from(coldef, dialect)


def _name(node: Any) -> str:
    if isinstance(node, exp.Identifier):
        return node.name.lower()
    if isinstance(node, (exp.Column, exp.ColumnPrefix, exp.Ordered)):
        return _name(node.this)
    if isinstance(node, exp.Expression):
        return node.sql().lower()
    return str(node).lower()


def _table_ref(node: exp.Expression | None) -> str | None:
    if isinstance(node, exp.Schema):
        node = node.this
    if isinstance(node, exp.Table):
        return node.name.lower()  # a migration runs in one database: the qualifier is dropped
    return None


@record
class ColumnFlags:
    """What a column definition says beyond the column itself."""

    primary: bool = False
    unique: bool = False
    references: str | None = None
    ref_columns: tuple[str, ...] = ()
    check: str | None = None
    position: str | None = None  # first | after (ALTER TABLE)
    after: str | None = None


def column_from(col: exp.ColumnDef, dialect: str) -> tuple[Column, ColumnFlags]:
    """The model Column of one column definition, and what else the definition declares."""
    glot = sqlglot_dialect(dialect)
    kind = col.args.get("kind")
    type_sql = _type_sql(kind, glot) if kind is not None else ""
    base, args, unsigned, zerofill = parse_type(type_sql)
    column = Column(_name(col.this), type_sql, base_type=base, type_args=args, unsigned=unsigned, zerofill=zerofill)
    flags = ColumnFlags()
    for c in col.args.get("constraints") or []:
        k = c.args.get("kind")
        if isinstance(k, exp.NotNullColumnConstraint):
            column.nullable = bool(k.args.get("allow_null"))
        elif isinstance(k, exp.DefaultColumnConstraint):
            column.default = _default_sql(k.this, glot)
            if not isinstance(k.this, _CONSTANTS):
                column.default_calls = tuple(dict.fromkeys(_func_name(f) for f in k.this.find_all(exp.Func)))
        elif isinstance(k, exp.PrimaryKeyColumnConstraint):
            flags.primary = True
            column.nullable = False
        elif isinstance(k, exp.UniqueColumnConstraint):
            flags.unique = True
        elif isinstance(k, exp.Reference):
            flags.references = _table_ref(k.this)
            target = k.this
            if isinstance(target, exp.Schema):
                flags.ref_columns = tuple(_name(e) for e in target.expressions)
        elif isinstance(k, exp.ComputedColumnConstraint):
            column.generated = "stored" if k.args.get("persisted") else "virtual"
            column.expression = k.this.sql(dialect=glot) if k.this is not None else None
        elif isinstance(k, exp.GeneratedAsIdentityColumnConstraint) and k.args.get("expression") is not None:
            # sqlglot reads `GENERATED ALWAYS AS (expr)` with neither STORED nor VIRTUAL this way: MySQL
            # and MariaDB make it a virtual generated column (they have no identity columns)
            column.generated = "stored" if k.args.get("stored") else "virtual"
            column.expression = k.args["expression"].sql(dialect=glot)
        elif isinstance(k, exp.GeneratedAsIdentityColumnConstraint):
            column.identity = "always"
            column.nullable = False
        elif isinstance(k, exp.AutoIncrementColumnConstraint):
            column.auto_increment = True
        elif isinstance(k, exp.CharacterSetColumnConstraint):
            column.charset = canonical_charset(k.this.name if isinstance(k.this, exp.Expression) else str(k.this))
        elif isinstance(k, exp.CollateColumnConstraint):
            column.collation = canonical_collation(k.this.name if isinstance(k.this, exp.Expression) else str(k.this))
        elif isinstance(k, exp.CheckColumnConstraint):
            flags.check = k.this.sql(dialect=glot) if k.this is not None else ""
        elif isinstance(k, exp.InvisibleColumnConstraint):
            column.invisible = True
    if column.collation and not column.charset:
        column.charset = column.collation.split("_")[0]
    return column, flags


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
    # the same few defaults (CURRENT_TIMESTAMP, now()) recur on every table: generate each
    # shape's text once
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
        return "rand"
    return f.sql_name().lower()


def _index(name: Any, cols: list, *, unique=False, primary=False, kind="btree") -> Index:
    return Index(
        name=_name(name) if name is not None else None,
        columns=tuple(_name(c) for c in cols),
        unique=unique or primary,
        primary=primary,
        kind=kind,
        prefix=any(isinstance(c, exp.ColumnPrefix) for c in cols),
    )


def table_from_create(create: exp.Create, dialect: str) -> tuple[Table, list[str]]:
    """The table a CREATE TABLE defines, and the tables its foreign keys reference."""
    schema_node = create.this if isinstance(create.this, exp.Schema) else None
    table_node = schema_node.this if schema_node is not None else create.this
    table = Table(name=_table_ref(table_node) or "")
    props = create.args.get("properties")
    for p in props.expressions if props else []:
        if isinstance(p, exp.TemporaryProperty):
            table.persistence = "temporary"
        elif isinstance(p, exp.EngineProperty):
            table.engine = p.this.name
        elif isinstance(p, exp.CharacterSetProperty):
            table.charset = canonical_charset(p.this.name)
        elif isinstance(p, exp.CollateProperty):
            table.collation = canonical_collation(p.this.name)
        elif isinstance(p, exp.RowFormatProperty):
            table.row_format = p.this.name.upper()
    for node in schema_node.expressions if schema_node is not None else []:
        _add_element(table, node, dialect)
    finish(table, dialect)
    return table, [fk.references for fk in table.foreign_keys]


def finish(table: Table, dialect: str) -> None:
    """What the server adds to a new table: the index InnoDB creates for each foreign key that no
    key starts with, NOT NULL on primary key columns, the table's character set on its columns'
    collation."""
    for fk in table.foreign_keys:
        implicit_fk_index(table, fk.columns, fk.name)
    if table.primary_key is not None:
        for c in table.primary_key.columns:
            if c in table.columns:
                table.columns[c].nullable = False
    if table.collation and not table.charset:
        table.charset = table.collation.split("_")[0]


def implicit_fk_index(table: Table, cols: tuple[str, ...], name: str | None) -> None:
    """InnoDB creates an index for a foreign key unless one already starts with its columns."""
    if not cols:
        return
    keys = ([table.primary_key] if table.primary_key else []) + table.indexes
    if any(k.columns[: len(cols)] == cols for k in keys):
        return
    table.indexes.append(Index(name, cols, kind="btree"))


def _add_element(table: Table, node: exp.Expression, dialect: str, name: Any = None) -> None:
    if isinstance(node, exp.ColumnDef):
        column, flags = column_from(node, dialect)
        table.columns[column.name] = column
        if flags.primary:
            table.primary_key = Index(None, (column.name,), unique=True, primary=True)
        if flags.unique:
            table.indexes.append(Index(None, (column.name,), unique=True))
        if flags.references and dialect != Dialect.MYSQL:  # MySQL parses an inline REFERENCES and ignores it
            table.foreign_keys.append(ForeignKey(None, (column.name,), flags.references, flags.ref_columns))
        if flags.check is not None:
            table.checks.append(Check(None, flags.check))
    elif isinstance(node, exp.Constraint):
        for inner in node.expressions:
            _add_element(table, inner, dialect, name=node.this)
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
        parent = _table_ref(ref.this) if ref is not None else None
        ref_cols = (
            tuple(_name(e) for e in ref.this.expressions)
            if ref is not None and isinstance(ref.this, exp.Schema)
            else ()
        )
        if parent:
            table.foreign_keys.append(
                ForeignKey(
                    _name(name) if name is not None else None,
                    tuple(_name(c) for c in node.expressions),
                    parent,
                    ref_cols,
                )
            )
    elif isinstance(node, exp.CheckColumnConstraint):
        table.checks.append(
            Check(
                _name(name) if name is not None else None,
                node.this.sql(dialect=sqlglot_dialect(dialect)) if node.this is not None else "",
            )
        )


# ---- MySQL CREATE TABLE in the layout SHOW CREATE TABLE and mysqldump write -----------------

_IDENT = r"`(?:[^`]|``)+`"
_COLUMN_LINE = Pattern(rf"\s*(?P<name>{_IDENT})\s+(?P<def>.+?)(?P<comment>\s+COMMENT\s+'(?:[^'\\]|\\.|'')*')?\s*,?\s*")
_KEY_PARTS = (
    rf"\((?P<cols>{_IDENT}(?:\(\d+\))?(?:\s+(?:ASC|DESC))?(?:\s*,\s*{_IDENT}(?:\(\d+\))?(?:\s+(?:ASC|DESC))?)*)\)"
)
_PREFIX_PART = Pattern(rf"{_IDENT}\(\d+\)")
_KEY_TAIL = r"(?:\s+USING\s+(?:BTREE|HASH))?(?:\s+KEY_BLOCK_SIZE\s*=\s*\d+)?(?:\s+COMMENT\s+'(?:[^'\\]|\\.|'')*')?"
_KEY_LINE = Pattern(
    rf"\s*(?:(?P<primary>PRIMARY\s+KEY)|(?P<kind>UNIQUE|FULLTEXT|SPATIAL)?\s*(?:KEY|INDEX)\s+(?P<name>{_IDENT}))"
    rf"\s*{_KEY_PARTS}{_KEY_TAIL}\s*,?\s*",
    re.I,
)
_FK_LINE = Pattern(
    rf"\s*CONSTRAINT\s+(?P<name>{_IDENT})\s+FOREIGN\s+KEY\s*{_KEY_PARTS}\s*REFERENCES\s+(?:{_IDENT}\.)?(?P<ref>{_IDENT})"
    rf"\s*\((?P<refcols>{_IDENT}(?:\s*,\s*{_IDENT})*)\)"
    r"(?:\s+ON\s+(?:DELETE|UPDATE)\s+(?:RESTRICT|CASCADE|SET\s+NULL|NO\s+ACTION|SET\s+DEFAULT))*\s*,?\s*",
    re.I,
)
_CHECK_LINE = Pattern(rf"\s*CONSTRAINT\s+(?P<name>{_IDENT})\s+CHECK\s*\((?P<expr>.*)\)\s*,?\s*", re.I)
_OPTIONS_LINE = Pattern(r"\)\s*(?:(?:DEFAULT\s+)?[A-Z_]+(?:\s+SET)?\s*=\s*(?:'(?:[^'\\]|\\.|'')*'|[\w.]+)\s*)*", re.I)
_OPTION = Pattern(r"\b(ENGINE|CHARSET|CHARACTER\s+SET|COLLATE|ROW_FORMAT)\s*=\s*(\w+)", re.I)
_HEAD = Pattern(
    rf"CREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:{_IDENT}\.)?(?P<name>{_IDENT})\s*\(\s*", re.I
)
_DEFINITIONS: dict[tuple[str, str], tuple[Column, ColumnFlags] | None] = {}
_CHECKS: dict[str, str | None] = {}


def _unquote(ident: str) -> str:
    return ident[1:-1].replace("``", "`").lower()


def _definition(definition: str, dialect: str) -> tuple[Column, ColumnFlags] | None:
    """A column definition (without its name) read by sqlglot once per distinct text."""
    key = (dialect, definition)
    if key not in _DEFINITIONS:
        try:
            coldef = sqlglot_column("x " + definition, dialect)
            read = column_from(coldef, dialect) if isinstance(coldef, exp.ColumnDef) else None
        except (sqlglot.errors.SqlglotError, AttributeError, IndexError, ValueError):
            read = None
        if read is not None and (read[1].primary or read[1].unique or read[1].references):
            read = None  # column-level keys: the whole statement goes to sqlglot
        _DEFINITIONS[key] = read
    return _DEFINITIONS[key]


def _check_text(expression: str) -> str | None:
    """A CHECK expression as sqlglot prints it (as the sqlglot reading has it)."""
    if expression not in _CHECKS:
        try:
            _CHECKS[expression] = sqlglot.parse_one(expression, read="mysql").sql(dialect="mysql")
        except sqlglot.errors.SqlglotError:
            _CHECKS[expression] = None
    return _CHECKS[expression]


def read_dump_layout(body: str, dialect: str) -> tuple[Table, list[str]] | None:
    """The table of a MySQL CREATE TABLE written one element per line, or None when any part of
    it is outside that layout (then sqlglot reads the statement)."""
    head = _HEAD.match(body)
    if head is None or dialect not in MYSQL_FAMILY:
        return None
    lines = body[head.end() :].rstrip().split("\n")
    options = lines.pop().strip() if lines else ""
    if not options.startswith(")") or _OPTIONS_LINE.fullmatch(options) is None:
        return None
    table = Table(name=_unquote(head.group("name")))
    for word, value in _OPTION.findall(options):
        word = " ".join(word.upper().split())
        if word == "ENGINE":
            table.engine = value
        elif word in ("CHARSET", "CHARACTER SET"):
            table.charset = canonical_charset(value)
        elif word == "COLLATE":
            table.collation = canonical_collation(value)
        elif word == "ROW_FORMAT":
            table.row_format = value.upper()
    for line in lines:
        if not line.strip():
            continue
        if line.lstrip().startswith("`"):
            m = _COLUMN_LINE.fullmatch(line)
            read = _definition(m.group("def"), dialect) if m else None
            if read is None:
                return None
            definition, flags = read
            name = _unquote(m.group("name"))
            table.columns[name] = replace(definition, name=name)
            if flags.check is not None:
                table.checks.append(Check(None, flags.check))
            continue
        m = _KEY_LINE.fullmatch(line)
        if m is not None:
            cols = tuple(_unquote(c) for c in re.findall(_IDENT, m.group("cols")))
            prefix = _PREFIX_PART.search(m.group("cols")) is not None
            if m.group("primary"):
                table.primary_key = Index(None, cols, unique=True, primary=True, prefix=prefix)
            else:
                kind = (m.group("kind") or "").lower()
                table.indexes.append(
                    Index(
                        _unquote(m.group("name")),
                        cols,
                        unique=kind == "unique",
                        kind=kind if kind in ("fulltext", "spatial") else "btree",
                        prefix=prefix,
                    )
                )
            continue
        m = _FK_LINE.fullmatch(line)
        if m is not None:
            table.foreign_keys.append(
                ForeignKey(
                    _unquote(m.group("name")),
                    tuple(_unquote(c) for c in re.findall(_IDENT, m.group("cols"))),
                    _unquote(m.group("ref")),
                    tuple(_unquote(c) for c in re.findall(_IDENT, m.group("refcols"))),
                )
            )
            continue
        m = _CHECK_LINE.fullmatch(line)
        expression = _check_text(m.group("expr")) if m else None
        if expression is None:
            return None
        table.checks.append(Check(_unquote(m.group("name")), expression))
    finish(table, dialect)
    return table, [fk.references for fk in table.foreign_keys]
