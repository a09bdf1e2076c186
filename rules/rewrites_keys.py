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
from schemacite.locks.duration import estimate, human_bytes, human_seconds, quantity
from schemacite.model import Table
from schemacite.model.dialects import Dialect
from schemacite.model.fixes import Applicability, Fix
from schemacite.rule import Context
from schemacite.rules.rewrites import quoted_name
from schemacite.sources.read import parse_text


def key_fix(table: Table, ctx: Context) -> Fix:
    name = _quoted(table.qualified_name, ctx.dialect)
    key = table.clustering_key if ctx.dialect.is_mysql_family else None
    if key is not None or "id" in table.columns:
        columns = ", ".join(_quoted(c, ctx.dialect) for c in (key.columns if key is not None else ("id",)))
        sql = f"ALTER TABLE {name} ADD PRIMARY KEY ({columns})"
        title = f"declare ({columns}) the primary key"
        if key is None:
            sql = f"-- {columns} must hold unique values and no NULL\n{sql}"
    elif ctx.dialect is Dialect.POSTGRES:
        sql = f"ALTER TABLE {name} ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
        title = "add an identity column as the primary key"
    else:
        sql = f"ALTER TABLE {name} ADD COLUMN id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST"
        title = "add an AUTO_INCREMENT column as the primary key"
    short, cost = _cost(sql, table, ctx)
    return Fix(f"{title} ({short})", Applicability.DISPLAY_ONLY, template=f"-- {cost}\n{sql};")


def _cost(sql: str, table: Table, ctx: Context) -> tuple[str, str]:
    """What running `sql` holds, and for how long when the table's size is known: in a few words
    for the title, and in full."""
    parsed = parse_text(sql, "<fix>", ctx.dialect)
    impacts = impacts_for(parsed.statements[0], ctx.schema, ctx.target) if parsed.statements else []
    if not impacts:
        return "it rewrites the table", "it rewrites the table"
    whole = impacts[-1]  # several actions add one impact for the statement as a whole
    work = quantity(whole, ctx.dialect)[1]
    modes = ", ".join(
        dict.fromkeys(lk.mode if ctx.dialect is Dialect.POSTGRES else f"LOCK={lk.mode}" for lk in whole.locks)
    )
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
