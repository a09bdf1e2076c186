"""What a server does to values a column already holds when its type changes or a NOT NULL column
is added without a default: the values each type family takes, the implicit default MySQL and
MariaDB fill in, and which type changes can meet a value the new type refuses.

Types are named by their base type as the readers give it (PostgreSQL's internal names, `int4`,
`varchar`; MySQL's lower-cased, `int`, `varchar`)."""

from __future__ import annotations

from schemacite.model.schema import Column

# integer types and the bytes they hold (MySQL `mediumint` is 3)
_INTEGERS = {
    "int2": 2,
    "smallint": 2,
    "int4": 4,
    "int": 4,
    "integer": 4,
    "int8": 8,
    "bigint": 8,
    "tinyint": 1,
    "mediumint": 3,
}
_STRINGS = frozenset(
    {"varchar", "bpchar", "char", "text", "character", "tinytext", "mediumtext", "longtext", "citext", "nvarchar"}
)
_DECIMALS = frozenset({"numeric", "decimal"})
_FLOATS = frozenset({"float4", "float8", "real", "float", "double"})
_DATES = frozenset({"date", "datetime", "timestamp", "timestamptz", "time", "timetz", "year"})
_UNBOUNDED = frozenset({"text", "citext", "longtext", "mediumtext"})
# the lengths of MySQL's text types, which take no length of their own
_TEXT_LENGTHS = {"tinytext": 255, "text": 65535, "mediumtext": 16777215}


def family(base: str) -> str:
    """The family of a base type: integer, string, decimal, float, date, enum, or the type itself."""
    if base in _INTEGERS:
        return "integer"
    if base in _STRINGS:
        return "string"
    if base in _DECIMALS:
        return "decimal"
    if base in _FLOATS:
        return "float"
    if base in _DATES:
        return "date"
    if base in ("enum", "set"):
        return "enum"
    return base


def implicit_default(column: Column) -> str | None:
    """The value MySQL and MariaDB give existing rows when a NOT NULL column without a DEFAULT is
    added (the type's implicit default), as it reads in a message; None where it is not known."""
    base = column.base_type.lower()
    kind = family(base)
    if kind in ("integer", "decimal", "float") or base in ("bit", "bool", "boolean", "year"):
        return "0"
    if kind == "string" or base in ("binary", "varbinary", "blob", "tinyblob", "mediumblob", "longblob", "json"):
        return "''"
    if base == "enum":
        first = column.type_args.split(",")[0].strip()
        return first or None
    if base == "date":
        return "'0000-00-00'"
    if base in ("datetime", "timestamp"):
        return "'0000-00-00 00:00:00'"
    if base == "time":
        return "'00:00:00'"
    return None


def zero_date(column: Column) -> bool:
    """Whether the implicit default of the column's type is a zero date, which a server whose
    sql_mode holds NO_ZERO_DATE refuses in strict mode."""
    return column.base_type.lower() in ("date", "datetime", "timestamp")
