"""`PARTITION BY` clauses, read by us: sqlglot does not parse MySQL's forms
(`HASH(k) PARTITIONS 8`, `VALUES LESS THAN MAXVALUE`, `KEY()`, subpartitions)."""

from __future__ import annotations

from schemacite.model import Partitioning
from schemacite.sources.names import Tok, column_list, idents_in, paren_group, text_of

METHODS = ("RANGE", "LIST", "HASH", "KEY")


def find_partition_by(toks: list[Tok]) -> int:
    """Index of a top-level PARTITION BY, or -1."""
    depth = 0
    for i, t in enumerate(toks):
        if t.kind == "lparen":
            depth += 1
        elif t.kind == "rparen":
            depth -= 1
        elif depth == 0 and t.upper == "PARTITION" and i + 1 < len(toks) and toks[i + 1].upper == "BY":
            return i
    return -1


def parse_partition_by(toks: list[Tok], source: str) -> Partitioning | None:
    """Read `PARTITION BY ...` starting at toks[0] (the word PARTITION).

    Returns None for forms with no key columns (MariaDB `SYSTEM_TIME`).
    Raises ValueError with a readable message on a form we cannot read.
    """
    i = 2
    columns: list[str] = []
    method, uses_pk, first = None, False, True
    while i < len(toks):
        word = toks[i].upper
        if word == "LINEAR":
            i += 1
            continue
        if word == "SYSTEM_TIME":
            return None
        if word not in METHODS:
            raise ValueError(f"unsupported partitioning method {toks[i].text!r}")
        i += 1
        by_columns = False
        if i < len(toks) and toks[i].upper == "COLUMNS":
            by_columns = True
            i += 1
        if word == "KEY" and i < len(toks) and toks[i].upper == "ALGORITHM":
            i += 3  # ALGORITHM = n
        if i >= len(toks) or toks[i].kind != "lparen":
            raise ValueError(f"expected ( after PARTITION BY {word}")
        inner, i = paren_group(toks, i)
        if word == "KEY" or by_columns:
            cols = column_list(inner) if inner else ()
            if word == "KEY" and not cols and first:
                uses_pk = True
        else:
            cols = idents_in(inner)
        columns.extend(c for c in cols if c not in columns)
        if first:
            method = word.lower()
            expression = text_of(toks[0:i], source)
            first = False
        # skip PARTITIONS n and partition definitions up to a SUBPARTITION BY
        while i < len(toks) and not (
            toks[i].upper == "SUBPARTITION" and i + 1 < len(toks) and toks[i + 1].upper == "BY"
        ):
            i += 1
        i += 2  # SUBPARTITION BY: read its method and columns the same way
    if method is None:
        raise ValueError("PARTITION BY without a method")
    return Partitioning(method=method, columns=tuple(columns), expression=expression, uses_primary_key=uses_pk)
