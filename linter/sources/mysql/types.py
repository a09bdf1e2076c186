"""MySQL/MariaDB column types as the model keeps them: base name, modifiers and attributes.

One reading for the SQL reader (sqlglot's rendering of a column type) and the catalog reader
(information_schema.COLUMNS.COLUMN_TYPE), so a replayed column and a live one compare alike.
"""

from __future__ import annotations

import re

from schemacite.sources.patterns import Pattern

_TYPE = Pattern(r"^\s*([a-z_]+(?:\s+(?:varying|precision))?)\s*(?:\((.*?)\))?\s*(.*)$", re.I | re.S)
_ALIASES = {
    "integer": "int",
    "bool": "tinyint",
    "boolean": "tinyint",
    "dec": "decimal",
    "numeric": "decimal",
    "character varying": "varchar",
    "character": "char",
    "double precision": "double",
    "real": "double",
    "fixed": "decimal",
    "int1": "tinyint",
    "int2": "smallint",
    "int3": "mediumint",
    "int4": "int",
    "int8": "bigint",
    "middleint": "mediumint",
    "long": "mediumtext",
    "long varchar": "mediumtext",
    "uint": "int",
    "ubigint": "bigint",
    "usmallint": "smallint",
    "utinyint": "tinyint",
    "umediumint": "mediumint",
}
# How many bytes a character of each character set can take (a VARCHAR's length bytes count bytes).
CHARSET_MAXLEN = {
    "latin1": 1,
    "ascii": 1,
    "binary": 1,
    "latin2": 1,
    "cp1250": 1,
    "cp1251": 1,
    "cp1252": 1,
    "utf8": 3,
    "utf8mb3": 3,
    "ucs2": 2,
    "utf16": 4,
    "utf16le": 4,
    "utf32": 4,
    "utf8mb4": 4,
    "gbk": 2,
    "big5": 2,
    "sjis": 2,
    "ujis": 3,
    "gb18030": 4,
    "euckr": 2,
}
DEFAULT_CHARSET = "utf8mb4"  # assumed when neither the column type nor the table says
INT_TYPES = frozenset({"tinyint", "smallint", "mediumint", "int", "bigint"})
STRING_TYPES = frozenset({"char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set"})
TEXT_TYPES = frozenset({"tinytext", "text", "mediumtext", "longtext"})


def parse_type(text: str) -> tuple[str, str, bool, bool]:
    """(base, modifiers, unsigned, zerofill) of a type as written or printed: `bigint(20) unsigned`
    -> ("bigint", "", True, False); `decimal(12, 2)` -> ("decimal", "12,2", ...); enum and set keep
    their member list as written. Integer display widths mean nothing to storage and are dropped."""
    m = _TYPE.match(text or "")
    if not m:
        return (text or "").strip().lower(), "", False, False
    written = m.group(1).strip().lower()
    base = _ALIASES.get(written, written)
    rest = m.group(3) or ""
    unsigned = bool(re.search(r"\bUNSIGNED\b", rest, re.I)) or written.startswith("u") and written in _ALIASES
    zerofill = bool(re.search(r"\bZEROFILL\b", rest, re.I))
    args = m.group(2) or ""
    if base in ("enum", "set"):
        return base, args, unsigned, zerofill
    args = args.replace(" ", "").lower()
    if base in INT_TYPES or written in ("bool", "boolean"):
        args = ""
    return base, args, unsigned, zerofill


_MEMBER = Pattern(r"'((?:[^']|'')*)'|\"((?:[^\"]|\"\")*)\"")


def enum_members(args: str) -> list[str]:
    """The members of an ENUM or SET type's modifiers, in order (`'a','b'` -> ["a", "b"])."""
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in _MEMBER.finditer(args)]


def canonical_charset(name: str | None) -> str | None:
    """`utf8` is utf8mb3 on every server this reads."""
    if not name:
        return None
    name = name.strip("`'\"").lower()
    return "utf8mb3" if name == "utf8" else name


def canonical_collation(name: str | None) -> str | None:
    if not name:
        return None
    name = name.strip("`'\"").lower()
    return "utf8mb3_" + name[5:] if name.startswith("utf8_") else name
