"""prefer-text-over-char: char(n) / character(n) columns (a preference)."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.dialects import Dialect
from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.rules.declared_types import declared_types

# the blank-padded type as each dialect's reader names it (PostgreSQL's "char", one byte, is another type)
_PADDED = {Dialect.POSTGRES: "bpchar", Dialect.MYSQL: "char", Dialect.MARIADB: "char"}


class PreferTextOverChar(Rule):
    """Column declared char(n) or character(n).

    ## What it does
    Flags a `char(n)` or `character(n)` column (`character` alone is `character(1)`) that a
    `CREATE TABLE`, `ADD COLUMN`, `ALTER COLUMN ... TYPE` or MySQL/MariaDB `MODIFY`/`CHANGE`
    declares. PostgreSQL's one-byte `"char"` type is another type and is not flagged. A
    preference: it runs only when selected (`select = ["prefer-text-over-char"]`, `"SC201"` or
    `"preferences"`).

    ## Why is this bad?
    The stored value is not the string the application wrote. PostgreSQL pads a shorter value
    with spaces to `n` characters, and its manual says `character(n)` has no speed advantage there
    and is usually the slowest of the three string types. MySQL and MariaDB pad on write and strip
    trailing spaces on read (unless `PAD_CHAR_TO_FULL_LENGTH` is set), so a value written with
    trailing spaces comes back without them. Turn it on if your codes and identifiers should come
    back exactly as written; leave it off where `char(n)` holds fixed-width codes on purpose.

    ## Example
    ```sql postgres
    CREATE TABLE countries (code char(2) PRIMARY KEY, name text NOT NULL);
    ```

    ## Use instead
    ```sql postgres
    CREATE TABLE countries (code text PRIMARY KEY CHECK (length(code) = 2), name text NOT NULL);
    ```
    On MySQL and MariaDB, `varchar(n)`.

    ## References
    - [PostgreSQL: Character Types](https://www.postgresql.org/docs/current/datatype-character.html)
    - [MySQL: The CHAR and VARCHAR Types](https://dev.mysql.com/doc/refman/8.4/en/char.html)
    - [MariaDB: CHAR](https://mariadb.com/docs/server/reference/data-types/string-data-types/char)
    - [PostgreSQL wiki: Don't Do This, Don't use char(n)](https://wiki.postgresql.org/wiki/Don't_Do_This#Don.27t_use_char.28n.29)
    """

    code = "SC201"
    name = "prefer-text-over-char"
    family = "preferences"
    summary = "Column {table}.{column} is {type}, which {what}"
    default_severity = Severity.WARNING
    dialects = frozenset({"postgres", "mysql", "mariadb"})
    evidence = ("pg-doc-character-types", "mysql-doc-char-trailing-spaces", "mariadb-doc-char-trailing-spaces")
    evidence_note = "A type preference: documented behaviour of the type, no cost to measure."

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        for col in declared_types(stmt):
            if col.base_type != _PADDED[ctx.dialect]:
                continue
            n = col.type_args or "1"
            postgres = ctx.dialect is Dialect.POSTGRES
            yield self.finding(
                stmt.location,
                table=col.table,
                column=col.column,
                type=f"char({n}){'[]' if col.array else ''}",
                what=f"pads shorter values with spaces to {n} characters"
                if postgres
                else "strips trailing spaces from values on read",
                suggestion=f"declare it text (with CHECK (length({col.column}) <= {n}) if the limit matters)"
                if postgres
                else f"declare it varchar({n})",
                dialect=ctx.dialect,
                identity=col.column,
            )
