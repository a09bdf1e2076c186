"""What a server does to values a column already holds when its type changes or a NOT NULL column
is added without a default: the values each type family takes, the implicit default MySQL and
MariaDB fill in, and which type changes can meet a value the new type refuses.

Types are named by their base type as the readers give it (PostgreSQL's internal names, `int4`,
`varchar`; MySQL's lower-cased, `int`, `varchar`)."""

from __future__ import annotations

import re

from schemacite.model.dialects import Dialect
from schemacite.model.record import record
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
# the lengths of MySQL's and MariaDB's text types, which take no length of their own (PostgreSQL's
# `text` takes any length)
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


# a default written as a constant, casts after it (`'DISABLED'::text`, `0`, `true`): pg_dump's
# and MySQL's forms
_CONSTANT_DEFAULT = re.compile(
    r"""\(?\s*(?:'(?P<text>(?:[^'\\]|'')*)'|(?P<plain>-?\d+(?:\.\d+)?|true|false))\s*\)?"""
    r"""(?:\s*::\s*[A-Za-z_][\w ."]*(?:\(\s*\d+(?:\s*,\s*\d+)?\s*\))?(?:\[\])?)*\s*\)?""",
    re.I,
)


def constant_default(default: str | None) -> str | None:
    """The text every old row holds when a column is added with this default: the constant's,
    unquoted (`'it''s'::text` holds `it's`); None for an expression, a function call or a string
    with a backslash (MySQL reads escapes in it)."""
    m = _CONSTANT_DEFAULT.fullmatch(default.strip()) if default else None
    if m is None:
        return None
    if m["plain"] is not None:
        return m["plain"].lower()
    return None if "\\" in m["text"] else m["text"].replace("''", "'")


# string types whose values a change to another of them keeps as they are: char and bpchar pad and
# trim spaces, and citext compares another way
_PLAIN_STRINGS = frozenset({"varchar", "text"})


def keeps_values(old: Column, base: str, args: str, dialect: Dialect) -> bool:
    """Whether changing the column to the type `base`(`args`) leaves equal values equal: an integer
    type to another (a narrowing the values fit too: the others fail), and on PostgreSQL varchar or
    text to one at least as long (MySQL's MODIFY may take the table's character set instead)."""
    was, now = old.base_type.lower(), base.lower()
    if family(was) == "integer" and family(now) == "integer":
        return True
    if dialect is not Dialect.POSTGRES or was not in _PLAIN_STRINGS or now not in _PLAIN_STRINGS:
        return False
    before, after = _length(was, old.type_args, dialect), _length(now, args, dialect)
    return after is None or before is not None and after >= before


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


# the sql_mode words under which MySQL and MariaDB refuse a value that does not fit its column
# (TRADITIONAL holds both STRICT modes); without any, they store it changed, with a warning
STRICT_MODES = ("STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "TRADITIONAL")
_STRICT_REMOVED = re.compile(r"REPLACE\s*\(.*'STRICT_(?:TRANS|ALL)_TABLES'\s*,\s*''", re.S)


def lenient(sql_mode: str | None) -> bool:
    """Whether a sql_mode a file set is known not to be strict. None (the server's own setting,
    strict by default since MySQL 5.7 and MariaDB 10.2.4) and a value computed from the current
    one (`CONCAT(@@sql_mode, ...)`) are taken as strict, unless it removes the strict word
    (`REPLACE(@@sql_mode, 'STRICT_TRANS_TABLES', '')`)."""
    if sql_mode is None:
        return False
    text = sql_mode.upper()
    if "@@" in text:
        return bool(_STRICT_REMOVED.search(text))
    return not any(mode in text for mode in STRICT_MODES)


def zero_date(column: Column) -> bool:
    """Whether the implicit default of the column's type is a zero date, which a server whose
    sql_mode holds NO_ZERO_DATE refuses in strict mode."""
    return column.base_type.lower() in ("date", "datetime", "timestamp")


def unquoted(constant: str) -> str:
    """A constant as SQL writes it (`'it''s'`, an enum member, a number) as the text a row holds
    (`it's`)."""
    return constant[1:-1].replace("''", "'") if len(constant) > 1 and constant[0] == constant[-1] == "'" else constant


def _length(base: str, args: str, dialect: Dialect) -> int | None:
    """A string type's length on the dialect; None where it takes any length."""
    if base in _TEXT_LENGTHS and not args and dialect is not Dialect.POSTGRES:
        return _TEXT_LENGTHS[base]
    if base in _UNBOUNDED or not args.strip().isdigit():
        return None
    return int(args)


def _digits(args: str) -> int | None:
    """The digits a numeric(p, s) keeps before the point; None for an unconstrained numeric."""
    parts = [p.strip() for p in args.split(",") if p.strip()]
    if not parts or not parts[0].isdigit():
        return None
    scale = int(parts[1]) if len(parts) > 1 and parts[1].lstrip("-").isdigit() else 0
    return int(parts[0]) - scale


# the decimal digits each integer width can need
_INTEGER_DIGITS = {1: 3, 2: 5, 3: 8, 4: 10, 8: 19}


def longer_than(bound: int) -> str:
    """The entry of `Schema.cleared_values` saying no value of the column is longer than `bound`
    characters (a DELETE took those rows): NUL begins it, which no PostgreSQL text holds, so no
    constant's text is ever taken for it."""
    return f"\0longer than {bound}"


def none_longer(cleared: set[str] | None, bound: int) -> bool:
    """Whether `cleared` (a column's `Schema.cleared_values`) says no value is longer than `bound`."""
    prefix = longer_than(0)[:-1]
    return any(v.startswith(prefix) and int(v[len(prefix) :]) <= bound for v in cleared or ())


@record(frozen=True)
class CastRisk:
    """Why casting a column's values to a new type can fail on some value, and how to find such a
    value: `test` is "length" (longer than `bound` characters, or bytes for MySQL's and MariaDB's
    text types, whose limits are in bytes: `unit`), "range" (outside `low`..`high`),
    "digits" (`bound` digits or more before the point), "members" (not one of `members`) or
    "parse" (not text the new type reads)."""

    why: str
    test: str
    bound: int = 0
    low: int = 0
    high: int = 0
    members: str = ""
    unit: str = "characters"


def _range(base: str, unsigned: bool) -> tuple[int, int]:
    bits = 8 * _INTEGERS[base]
    return (0, 2**bits - 1) if unsigned else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def labels_may_fail(
    old: Column, new_type: str, enums: dict[str, tuple[str, ...]], cleared: set[str] | None = None
) -> CastRisk | None:
    """How casting to a PostgreSQL enum type (CREATE TYPE ... AS ENUM) can fail: a label of the old
    enum type the new one lacks (and no row holds any longer: `cleared`), or, from a string, any
    value not one of its labels; None when either type's labels are not known."""
    labels = enums.get(new_type)
    if labels is None:
        return None
    members = ", ".join("'" + label.replace("'", "''") + "'" for label in labels)
    before = enums.get(old.base_type)
    if before is not None:
        gone = [label for label in before if label not in labels and label not in (cleared or ())]
        return (
            CastRisk(f"{', '.join(gone)}, which the new type's labels leave out", "members", members=members)
            if gone
            else None
        )
    if family(old.base_type.lower()) == "string":
        return CastRisk("a value that is not one of its labels", "members", members=members)
    return None


def may_fail(
    old: Column,
    base: str,
    args: str = "",
    unsigned: bool = False,
    *,
    dialect: Dialect,
    cleared: set[str] | None = None,
) -> CastRisk | None:
    """How casting the column's values to the new type can fail on the dialect (`'abc'` is no
    integer, a 30-character string in varchar(20), in MySQL's `text` one longer than 65535); None
    when every old value fits the new type, or when the types are not ones this knows. `cleared`:
    the constants no row holds any longer (an enum member the deploy moved every row off)."""
    was, now = old.base_type.lower(), base.lower()
    old_kind, new_kind = family(was), family(now)
    if old_kind == "string" and new_kind == "enum":
        return CastRisk("a value that is not one of its members", "members", members=args)
    if old_kind == "string" and new_kind in ("integer", "decimal", "float", "date", "uuid", "bool", "boolean"):
        return CastRisk(f"a value that is not a valid {now}", "parse")
    if old_kind == "string" and new_kind == "string":
        before, after = _length(was, old.type_args, dialect), _length(now, args, dialect)
        if after is not None and (before is None or after < before):
            # MySQL's and MariaDB's text types hold up to a number of bytes, not characters
            unit = "bytes" if now in _TEXT_LENGTHS and dialect is not Dialect.POSTGRES else "characters"
            return CastRisk(f"a value longer than {after} {unit}", "length", bound=after, unit=unit)
        return None
    if old_kind == "integer" and new_kind == "integer":
        low, high = _range(now, unsigned)
        old_low, old_high = _range(was, old.unsigned)
        if low > old_low or high < old_high:
            return CastRisk(f"a value outside {now}'s range", "range", low=low, high=high)
        return None
    if old_kind in ("integer", "decimal", "float") and new_kind == "decimal":
        keeps = _digits(args)
        needs = _INTEGER_DIGITS[_INTEGERS[was]] if old_kind == "integer" else _digits(old.type_args)
        if keeps is not None and (needs is None or keeps < needs):
            return CastRisk(f"a value with more than {keeps} digits before the point", "digits", bound=keeps)
        return None
    if old_kind in ("decimal", "float") and new_kind == "integer":
        low, high = _range(now, unsigned)
        return CastRisk(f"a value outside {now}'s range", "range", low=low, high=high)
    if old_kind == "enum" and new_kind == "enum":
        kept = {m.strip() for m in args.split(",")}
        left = cleared or set()
        gone = [
            m.strip() for m in old.type_args.split(",") if m.strip() not in kept and unquoted(m.strip()) not in left
        ]
        return (
            CastRisk(f"{', '.join(gone)}, which the new members leave out", "members", members=args) if gone else None
        )
    return None
