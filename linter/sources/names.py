"""Identifiers and a small tokenizer for the statement forms we read ourselves."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import NamedTuple

from schemacite.model.dialects import MYSQL_FAMILY, Dialect
from schemacite.sources.patterns import Pattern

NAME = r'(?:`(?:[^`]|``)+`|"(?:[^"]|"")+"|[^\W\d][\w$]*)'
QNAME = rf"{NAME}(?:\s*\.\s*{NAME}){{0,2}}"
_PART = Pattern(NAME)


def sqlglot_dialect(dialect: str) -> str:
    """sqlglot's name for our dialect (MariaDB DDL reads as MySQL)."""
    return "mysql" if dialect in MYSQL_FAMILY else dialect


# PostgreSQL schemas the model leaves out of a key: the default creation schema, and the session's
# temporary schema (a temporary table is known by its bare name)
DEFAULT_SCHEMAS = {Dialect.POSTGRES: {"public", "pg_temp"}, Dialect.MYSQL: set(), Dialect.MARIADB: set()}


def unquote(part: str) -> str:
    if len(part) > 1 and part[0] in '`"' and part[-1] == part[0]:
        q = part[0]
        return part[1:-1].replace(q + q, q)
    return part


def name_parts(qname: str) -> list[str]:
    return [unquote(p) for p in _PART.findall(qname)]


def relation_key(schema: str | None, name: str, dialect: str = Dialect.POSTGRES) -> str:
    """The key a relation is known by in a Schema, from names as the server knows them (a
    PostgreSQL name already folded), without a default schema.

    PostgreSQL keeps the exact name (`"InvitedUsers"` and `invitedusers` are two tables) and a
    non-default schema (`audit.events`). MySQL/MariaDB names are taken case-blind (lower-cased)
    and their database qualifiers dropped (a migration runs against one database)."""
    if dialect in MYSQL_FAMILY:
        return name.lower()
    if not schema or schema in DEFAULT_SCHEMAS[dialect]:
        return name
    return f"{schema}.{name}"


def folded(part: str, dialect: str) -> str:
    """One name part as written (`"InvitedUsers"`, `Users`) as the server knows it: PostgreSQL
    folds a bare name to lower case and keeps a quoted one exactly."""
    if dialect not in MYSQL_FAMILY and len(part) > 1 and part[0] == '"' and part[-1] == '"':
        return unquote(part)
    return unquote(part).lower()


def table_key(qname: str, dialect: str) -> str:
    """`relation_key` of a name as written (`"Audit".events`, `db.t`)."""
    if qname.isidentifier():  # the common case, without the regex
        return qname.lower()
    parts = [folded(p, dialect) for p in _PART.findall(qname)]
    if not parts:
        return qname.lower()
    return relation_key(parts[-2] if len(parts) > 1 else None, parts[-1], dialect)


# a name PostgreSQL reads back unchanged when written bare: it folds only ASCII letters, so other
# letters may stand bare as they are
# a-z or _ (and $, digits after the first), or any non-ASCII character; spelled as what is left out,
# since the same class over \x80-\U0010ffff takes 30 ms to compile
_BARE = Pattern(r"[^\x00-\x5e\x60\x7b-\x7f][^\x00-\x23\x25-\x2f\x3a-\x5e\x60\x7b-\x7f]*")


@functools.cache
def pg_reserved() -> frozenset[str]:
    """The words PostgreSQL accepts as a table, column or constraint name only when quoted."""
    # start-up: pglast loads only when a PostgreSQL name is written (a MySQL run never needs it)
    from schemacite.sources.postgres.parser import RESERVED_WORDS

    return RESERVED_WORDS


def quoted_name(name: str) -> str:
    """A PostgreSQL name as it must be written: bare when it folds to itself and is no reserved
    word, else quoted."""
    if _BARE.fullmatch(name) and name not in pg_reserved():
        return name
    return '"' + name.replace('"', '""') + '"'


def written(key: str, dialect: str) -> str:
    """A relation key or other name as a statement or a message must write it: on PostgreSQL each
    part quoted where the server needs it (`"InvitedUsers"`, `audit."User"`); MySQL/MariaDB names
    as they are."""
    if dialect in MYSQL_FAMILY or not key:
        return key
    return ".".join(quoted_name(p) for p in key.split("."))


def written_names(names: Iterable[str], dialect: str) -> str:
    """Column or index names as a statement's list writes them: `"takenOn", code`."""
    return ", ".join(name if dialect in MYSQL_FAMILY else quoted_name(name) for name in names)


# a MySQL/MariaDB name the server reads bare: letters, digits, `_` and `$`, not all digits
_MYSQL_BARE = Pattern(r"[A-Za-z_$][A-Za-z0-9_$]*")
# reserved in MariaDB but not in MySQL 8.0's list: MariaDB 10.11 refuses them bare as column names
# (tests/test_names_in_sql.py tries every keyword the server lists)
_MARIADB_RESERVED = frozenset(
    {
        "current_role",
        "delete_domain_id",
        "do_domain_ids",
        "ignore_domain_ids",
        "master_demote_to_replica",
        "master_demote_to_slave",
        "offset",
        "page_checksum",
        "parse_vcol_expr",
        "portion",
        "ref_system_id",
        "returning",
        "stats_auto_recalc",
        "stats_persistent",
        "stats_sample_pages",
    }
)


@functools.cache
def _mysql_reserved() -> frozenset[str]:
    """The words MySQL or MariaDB accept as a table or column name only in backticks."""
    # start-up: sqlglot loads only when a MySQL name is written into SQL
    from sqlglot.dialects.mysql import MySQL

    return frozenset(w.lower() for w in MySQL.Generator.RESERVED_KEYWORDS) | _MARIADB_RESERVED


def backquoted(name: str) -> str:
    """A MySQL/MariaDB name as it must be written: bare when the server reads it so, else in
    backticks (a reserved word, a space or other sign in it)."""
    if _MYSQL_BARE.fullmatch(name) and name.lower() not in _mysql_reserved():
        return name
    return "`" + name.replace("`", "``") + "`"


def spelled(name: str, sql: str) -> str:
    """`name` (a model key or column name, lower-cased on MySQL/MariaDB) in the case `sql` (the
    statement that names it) writes it: a MySQL server on Linux tells table `Users` from `users`.
    The name itself when the statement does not write it."""
    if not sql:
        return name
    want = name.lower()
    for tok in tokenize(sql):
        if tok.kind in ("word", "name") and tok.ident.lower() == want:
            return tok.ident
    return name


def in_sql(name: str, dialect: str, sql: str = "") -> str:
    """One name (a column, an index, a constraint) as SQL text for the server must write it: on
    PostgreSQL quoted where needed, on MySQL/MariaDB in backticks where needed and in the case
    `sql`, the statement naming it, writes it."""
    if dialect in MYSQL_FAMILY:
        return backquoted(spelled(name, sql))
    return quoted_name(name)


def relation_in_sql(key: str, dialect: str, sql: str = "") -> str:
    """A relation key as SQL text for the server must write it: `written` on PostgreSQL
    (`audit."Users"`); on MySQL/MariaDB in backticks where needed, in the case `sql` writes it."""
    if dialect in MYSQL_FAMILY:
        return backquoted(spelled(key, sql))
    return written(key, dialect)


def qualifiers(sql: str) -> set[str]:
    """Lower-cased first parts of the dotted names in `sql` (`db` of `db.t`, `t` of `t.col`): the
    databases a MySQL statement may reach outside the current one, among other things."""
    toks = tokenize(sql)
    return {
        toks[i].ident.lower()
        for i in range(len(toks) - 2)
        if toks[i].kind in ("word", "name") and toks[i + 1].text == "." and toks[i + 2].kind in ("word", "name")
    }


class Tok(NamedTuple):
    kind: str  # word | name (quoted) | string | number | op | lparen | rparen | comma
    text: str
    start: int
    upper: str  # the word in upper case; "" for anything but a bare word

    @property
    def ident(self) -> str:
        return unquote(self.text) if self.kind in ("word", "name") else self.text


_TOKEN = Pattern(
    r"""(?P<name>`(?:[^`]|``)*`|"(?:[^"]|"")*")
      |(?P<string>[eEnNbBxX]?'(?:[^'\\]|\\.|'')*')
      |(?P<dollar>\$(?P<tag>[A-Za-z_]\w*)?\$.*?\$(?P=tag)?\$)
      |(?P<word>[^\W\d][\w$]*)
      |(?P<number>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
      |(?P<lparen>\()|(?P<rparen>\))|(?P<comma>,)
      |(?P<op>::|<>|!=|<=|>=|\|\||:=|[^\s])""",
    re.X | re.S,
)


def tokenize(text: str) -> list[Tok]:
    toks = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        word = m.group(0)
        if kind == "word":
            toks.append(Tok(kind, word, m.start(), word.upper()))
        else:
            toks.append(Tok("string" if kind in ("tag", "dollar") else kind, word, m.start(), ""))
    return toks


def split_top(toks: list[Tok], sep: str = "comma") -> list[list[Tok]]:
    """Split a token list at top-level separators (outside parentheses)."""
    parts: list[list[Tok]] = [[]]
    depth = 0
    for t in toks:
        if t.kind == "lparen":
            depth += 1
        elif t.kind == "rparen":
            depth -= 1
        if t.kind == sep and depth == 0:
            parts.append([])
        else:
            parts[-1].append(t)
    return [p for p in parts if p]


def paren_group(toks: list[Tok], start: int) -> tuple[list[Tok], int]:
    """Tokens inside the parenthesis opening at toks[start]; returns them and the index after ')'."""
    depth = 0
    for i in range(start, len(toks)):
        if toks[i].kind == "lparen":
            depth += 1
        elif toks[i].kind == "rparen":
            depth -= 1
            if depth == 0:
                return toks[start + 1 : i], i + 1
    return toks[start + 1 :], len(toks)


def text_of(toks: list[Tok], source: str) -> str:
    if not toks:
        return ""
    last = toks[-1]
    return source[toks[0].start : last.start + len(last.text)]


def column_list(toks: list[Tok]) -> tuple[str, ...]:
    """Column names of an index/key column list; expressions are kept as lower-cased text."""
    cols = []
    for part in split_top(toks):
        first = part[0]
        if first.kind in ("word", "name") and (len(part) == 1 or part[1].kind != "lparen" or _is_prefix(part)):
            cols.append(first.ident.lower())
        else:
            cols.append(" ".join(t.text for t in part).lower())
    return tuple(cols)


def prefix_in(toks: list[Tok]) -> bool:
    """Whether an index column list indexes some column by a prefix, `col(10)`."""
    return any(_is_prefix(part) for part in split_top(toks))


def _is_prefix(part: list[Tok]) -> bool:
    # MySQL prefix index `col(10)`: a name followed by (number)
    return len(part) >= 4 and part[1].kind == "lparen" and part[2].kind == "number" and part[3].kind == "rparen"


def idents_in(toks: list[Tok]) -> tuple[str, ...]:
    """Column names an expression reads: names not called as functions, not keywords."""
    out: list[str] = []
    for i, t in enumerate(toks):
        if t.kind == "name" or (t.kind == "word" and t.upper not in EXPR_KEYWORDS):
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            if nxt is not None and t.kind == "word" and (nxt.kind == "lparen" or nxt.upper == "FROM"):
                continue  # a function call, or the unit of EXTRACT(unit FROM col)
            name = t.ident.lower()
            if name not in out:
                out.append(name)
    return tuple(out)


EXPR_KEYWORDS = frozenset(
    "AND OR NOT DIV MOD IS NULL TRUE FALSE CASE WHEN THEN ELSE END INTERVAL AS COLLATE BETWEEN IN LIKE ASC DESC".split()
)
