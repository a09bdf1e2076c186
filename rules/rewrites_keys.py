"""The primary key no-primary-key offers to add (not a plugin itself), with what adding it costs.

The key is a display-only template: which key fits the data is the user's call. Where the table has
a column named `id`, or (MySQL/MariaDB) a NOT NULL unique key InnoDB already clusters on, the
template declares that as the key; otherwise it adds a generated one (PostgreSQL an identity
column, MySQL/MariaDB an AUTO_INCREMENT column first). What that costs comes from the lock table
(locks/) and, when the table's size is known, the rate measured for the work (locks/duration.py):
adding the key rewrites or rebuilds the table under a lock that blocks writes.
"""

from __future__ import annotations

import re

from schemacite.locks import impacts_for
from schemacite.locks.duration import estimate, human_bytes, human_seconds, quantity, scan_seconds
from schemacite.model import Index, Table
from schemacite.model.dialects import Dialect
from schemacite.model.fixes import Applicability, Fix
from schemacite.rule import Context
from schemacite.rules.rewrites import MAX_NAME, quoted_name
from schemacite.sources.read import parse_text


def key_fix(table: Table, ctx: Context) -> Fix:
    name = _quoted(table.qualified_name, ctx.dialect)
    held = partition_columns(table)
    key = table.clustering_key if ctx.dialect.is_mysql_family else None
    using = _index_to_take(table, ctx)
    if using is not None and using.name is not None:
        index = quoted_name(using.name)
        sql = f"ALTER TABLE {name} ADD CONSTRAINT {quoted_name(f'{table.name}_pkey')} PRIMARY KEY USING INDEX {index}"
        title = f"make unique index {index} the primary key, without building another"
    elif key is not None or "id" in table.columns:
        wanted = key.columns if key is not None else ("id",)
        wanted = (*wanted, *(c for c in held if c not in wanted))
        columns = ", ".join(_quoted(c, ctx.dialect) for c in wanted)
        title = f"declare ({columns}) the primary key"
        stepwise = _partition_by_partition(table, wanted, ctx) if held and ctx.dialect is Dialect.POSTGRES else None
        if stepwise is not None:
            return Fix(
                f"{title}, one partition at a time (each index built CONCURRENTLY, brief locks)",
                Applicability.DISPLAY_ONLY,
                template=stepwise,
            )
        sql = f"ALTER TABLE {name} ADD PRIMARY KEY ({columns})"
        if held:
            sql = f"-- ({columns}) must be unique and hold no NULL: {_MUST_HOLD}\n{sql}"
        elif key is None:
            sql = f"-- {columns} must hold unique values and no NULL\n{sql}"
    elif ctx.dialect is Dialect.POSTGRES:
        if held:
            # an identity column is refused on a partitioned table before 17; a serial one is not
            identity = ctx.version >= (17,)
            kind = "bigint GENERATED ALWAYS AS IDENTITY" if identity else "bigserial"
            columns = ", ".join(_quoted(c, ctx.dialect) for c in ("id", *held))
            sql = f"-- {_MUST_HOLD}\nALTER TABLE {name} ADD COLUMN id {kind}, ADD PRIMARY KEY ({columns})"
            title = f"add {'an identity' if identity else 'a bigserial'} column id, and ({columns}) as the primary key"
        else:
            sql = f"ALTER TABLE {name} ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
            title = "add an identity column as the primary key"
    else:
        auto = "id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT"
        if held:
            columns = ", ".join(_quoted(c, ctx.dialect) for c in ("id", *held))
            sql = f"-- {_MUST_HOLD}\nALTER TABLE {name} ADD COLUMN {auto} FIRST, ADD PRIMARY KEY ({columns})"
            title = f"add an AUTO_INCREMENT column id, and ({columns}) as the primary key"
        else:
            sql = f"ALTER TABLE {name} ADD COLUMN {auto} PRIMARY KEY FIRST"
            title = "add an AUTO_INCREMENT column as the primary key"
    short, cost = _cost(sql, table, ctx)
    return Fix(f"{title} ({short})", Applicability.DISPLAY_ONLY, template=f"-- {cost}\n{sql};")


_MUST_HOLD = "a key of a partitioned table must hold every partition column"


def _index_to_take(table: Table, ctx: Context) -> Index | None:
    """On PostgreSQL, the unique index over NOT NULL columns that ADD PRIMARY KEY USING INDEX can take
    as the key, with no index to build and no column to check: a bare CREATE UNIQUE INDEX of whole
    columns (a constraint's index is its constraint's), on a table that is not partitioned (the server
    refuses USING INDEX there). Where the table has an `id` column, only an index of `id` alone."""
    if ctx.dialect is not Dialect.POSTGRES or table.partitioning is not None:
        return None
    key = f"{table.name}_pkey"
    if len(key) > MAX_NAME or ctx.schema.index_owner_key(key) is not None:
        return None
    return next(
        (
            i
            for i in table.not_null_unique_keys
            if i.name and i.kind == "btree" and not i.constraint and ("id" not in table.columns or i.columns == ("id",))
        ),
        None,
    )


def partition_columns(table: Table) -> tuple[str, ...]:
    """The columns every primary or unique key of `table` must hold: those its partitioning reads
    (none where MySQL's `PARTITION BY KEY ()` takes the primary key itself)."""
    part = table.partitioning
    return () if part is None or part.uses_primary_key else part.columns


def _partition_by_partition(table: Table, columns: tuple[str, ...], ctx: Context) -> str | None:
    """On PostgreSQL, where a partition is large: the key declared on the parent alone (an invalid
    index, no scan), each partition's unique index built CONCURRENTLY and made its primary key, then
    attached to the parent's, which becomes valid with the last one. The columns are first proven
    NOT NULL by a validated CHECK, which SET NOT NULL then trusts instead of reading each partition
    under ACCESS EXCLUSIVE (12+). None: no partition is known to be large, or one is partitioned
    itself, or a name this needs is too long or taken."""
    parent = next((k for k, t in ctx.schema.tables.items() if t is table), None)
    parts = [ctx.schema.tables[k] for k in ctx.schema.partitions(parent)] if parent else []
    large = any(
        (seconds := scan_seconds(p, ctx.dialect, ctx.target)) is not None and seconds > ctx.max_lock_seconds
        for p in parts
    )
    if not large or any(p.partitioning is not None for p in parts):
        return None
    names = [f"{p.name}_pkey" for p in (table, *parts)] + [f"{table.name}_{c}_not_null_check" for c in columns]
    if any(len(n) > MAX_NAME or ctx.schema.index_owner_key(n) is not None for n in names):
        return None
    name, cols = _quoted(table.qualified_name, ctx.dialect), ", ".join(quoted_name(c) for c in columns)
    lines = [
        "-- a partition is large: each partition's key is built without blocking writes, then attached",
        f"-- ({cols}) must be unique and hold no NULL: {_MUST_HOLD}",
    ]
    for column in columns:
        if table.columns.get(column) is None or table.columns[column].nullable:
            col, check = quoted_name(column), quoted_name(f"{table.name}_{column}_not_null_check")
            lines += [
                f"ALTER TABLE {name} ADD CONSTRAINT {check} CHECK ({col} IS NOT NULL) NOT VALID;",
                f"ALTER TABLE {name} VALIDATE CONSTRAINT {check};",
                f"ALTER TABLE {name} ALTER COLUMN {col} SET NOT NULL;",
                f"ALTER TABLE {name} DROP CONSTRAINT {check};",
            ]
    key = quoted_name(f"{table.name}_pkey")
    lines.append(f"ALTER TABLE ONLY {name} ADD CONSTRAINT {key} PRIMARY KEY ({cols});")
    for p in parts:
        part, index = _quoted(p.qualified_name, ctx.dialect), quoted_name(f"{p.name}_pkey")
        lines += [
            f"CREATE UNIQUE INDEX CONCURRENTLY {index} ON {part} ({cols});",
            f"ALTER TABLE {part} ADD CONSTRAINT {index} PRIMARY KEY USING INDEX {index};",
            f"ALTER INDEX {_in_schema(table, key)} ATTACH PARTITION {_in_schema(p, index)};",
        ]
    return "\n".join(lines)


def _in_schema(table: Table, name: str) -> str:
    """An index's name as ALTER INDEX needs it: in its table's schema."""
    return f"{quoted_name(table.schema)}.{name}" if table.schema else name


def _cost(sql: str, table: Table, ctx: Context) -> tuple[str, str]:
    """What running `sql` holds, and for how long when the table's size is known: in a few words
    for the title, and in full."""
    parsed = parse_text(sql, "<fix>", ctx.dialect)
    impacts = impacts_for(parsed.statements[0], ctx.schema, ctx.target) if parsed.statements else []
    if not impacts:
        return "it rewrites the table", "it rewrites the table"
    # the costliest action speaks for the statement: a column's rewrite outlasts the key's index build
    whole = next((i for i in impacts if i.rewrite), impacts[-1])
    work = quantity(whole, ctx.dialect)[1]
    modes = ", ".join(
        dict.fromkeys(lk.mode if ctx.dialect is Dialect.POSTGRES else f"LOCK={lk.mode}" for lk in whole.locks)
    )
    if not whole.rewrite and not whole.scan:  # a key taken over from an index: no row is read
        return f"a brief {modes}, no row read", f"it reads no row: a brief {modes}, whatever the table's size"
    algorithm = f" (ALGORITHM={whole.algorithm})" if whole.algorithm else ""
    blocks = (
        "lets reads and writes go on" if whole.blocks == "nothing" else "blocks " + whole.blocks.replace("+", " and ")
    )
    text = f"it {work} the table under {modes}{algorithm}, which {blocks}"
    short = f"{work} the table" + (
        "" if whole.blocks == "nothing" else f", blocks {whole.blocks.replace('+', ' and ')}"
    )
    sized = estimate(whole, ctx.schema, ctx.dialect, ctx.target)
    if sized is not None:
        text += (
            f", {human_seconds(sized.seconds)} for {human_bytes(sized.bytes)} "
            f"at {human_bytes(sized.rate)}/s ({sized.evidence})"
        )
        short += f", {human_seconds(sized.seconds)}"
    elif whole.blocks != "nothing":
        text += ", for as long as that takes on a large table"
    return short, text


def _quoted(name: str, dialect: str) -> str:
    parts = name.split(".")
    if dialect == Dialect.POSTGRES:
        return ".".join(quoted_name(p) for p in parts)
    return ".".join(p if re.fullmatch(r"[A-Za-z_$][\w$]*", p) else "`" + p.replace("`", "``") + "`" for p in parts)
