"""PostgreSQL column types as the model keeps them: the type's catalog name and its modifiers.

`base_type` is the name pg_type gives the type (`varchar`, `int4`, `timestamptz`, `bpchar`), with
`[]` for arrays; `type_args` its modifiers (`"26"`, `"20,2"`). PostgreSQL's grammar already turns
the SQL spellings into those names (`character varying` -> pg_catalog.varchar), so the SQL reader
takes them from the parse tree; the catalog reader and old snapshots have `format_type` text
(`character varying(26)`, `timestamp(3) with time zone`), which `parse_type` reads. Type changes
are judged on these two fields alone, whichever reader filled them.
"""

from __future__ import annotations

from schemacite.sources.patterns import Pattern

# serial pseudo-types: the integer type they stand for (the column gets a sequence default)
SERIAL_TYPES = {
    "serial": "int4",
    "serial4": "int4",
    "bigserial": "int8",
    "serial8": "int8",
    "smallserial": "int2",
    "serial2": "int2",
}

# format_type's spellings (and SQL's, for text written by hand) -> pg_type.typname
_NAMES = {
    "character varying": "varchar",
    "char varying": "varchar",
    "character": "bpchar",
    "char": "bpchar",
    "integer": "int4",
    "int": "int4",
    "smallint": "int2",
    "bigint": "int8",
    "decimal": "numeric",
    "bit varying": "varbit",
    "timestamp without time zone": "timestamp",
    "timestamp with time zone": "timestamptz",
    "time without time zone": "time",
    "time with time zone": "timetz",
    "double precision": "float8",
    "real": "float4",
    "float": "float8",
    "boolean": "bool",
    **SERIAL_TYPES,
}
_ARGS = Pattern(r"\(([^)]*)\)")


def parse_type(text: str) -> tuple[str, str]:
    """(base_type, type_args) of a type as `format_type` prints it or as written by hand."""
    t = " ".join((text or "").replace('"', "").split())
    array = ""
    while t.endswith("[]"):
        t, array = t[:-2].rstrip(), array + "[]"
    m = _ARGS.search(t)
    args = ""
    if m:
        args = m.group(1).replace(" ", "")
        t = (t[: m.start()] + t[m.end() :]).strip()
        t = " ".join(t.split())
    if t.lower().startswith("pg_catalog."):
        t = t[len("pg_catalog.") :]
    lowered = t.lower()
    base = _NAMES.get(lowered, lowered if t == lowered or t == t.upper() else t)
    if base == "bpchar" and not args and lowered in ("char", "character"):
        args = "1"  # char without a length is char(1)
    return base + array, args
