"""Which SQL a project's files are written in, when neither --dialect nor a config says.

Each side has marks the other's grammar does not accept: backticks, AUTO_INCREMENT, ENGINE=
and `/*!40101 ... */` for MySQL and MariaDB; `::` casts, `$$` bodies, SERIAL, jsonb and
plpgsql for PostgreSQL. A Prisma project names its provider outright. The guess is sure only
when the marks point one way (the other side's are none, or a fifth as many); otherwise the run
stops and asks for --dialect rather than lint with the wrong grammar.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import NamedTuple

from schemacite.model.dialects import Dialect

HEAD = 65536  # bytes of each file read for marks
FILES = 200  # files read at most


class Mark(NamedTuple):
    """A regular expression counted in a file's text, and the words one of which each of its
    matches holds (in lower case): the expression runs only on a text that holds one, as most
    texts hold few of the twenty marks and scanning for a word costs a fraction of a regex."""

    pattern: str
    words: tuple[str, ...]
    flags: int = re.I


MYSQL_MARKS = {
    "backticks": Mark(r"`[^`\n]{1,64}`", ("`",), 0),
    "AUTO_INCREMENT": Mark(r"\bauto_increment\b", ("auto_increment",)),
    "ENGINE=": Mark(r"\)\s*engine\s*=", ("engine",)),
    "DEFAULT CHARSET": Mark(r"\bdefault\s+(charset|character\s+set)\s*=", ("charset", "character")),
    "/*!version comments": Mark(r"/\*!\d{5}", ("/*!",), 0),
    "UNSIGNED": Mark(r"\b(int|bigint|smallint|tinyint|mediumint)(\(\d+\))?\s+unsigned\b", ("unsigned",)),
    "MODIFY/CHANGE COLUMN": Mark(r"\balter\s+table\s+\S+\s+(modify|change)\s+(column\s+)?\S", ("modify", "change")),
    "DELIMITER": Mark(r"^\s*delimiter\s+\S", ("delimiter",), re.I | re.M),
    "tinyint/mediumtext/longtext": Mark(
        r"\b(tinyint|mediumint|mediumtext|longtext|longblob)\b",
        ("tinyint", "mediumint", "mediumtext", "longtext", "longblob"),
    ),
}
POSTGRES_MARKS = {
    ":: casts": Mark(r"\w::\w", ("::",), 0),
    "$$ bodies": Mark(r"\$(\w*)\$", ("$",), 0),
    "SERIAL": Mark(r"\b(big|small)?serial\b", ("serial",)),
    "GENERATED AS IDENTITY": Mark(r"\bgenerated\s+(always|by\s+default)\s+as\s+identity\b", ("identity",)),
    "jsonb/timestamptz/bytea": Mark(
        r"\b(jsonb|timestamptz|bytea|tsvector|uuid\[\]|text\[\])",
        ("jsonb", "timestamptz", "bytea", "tsvector", "uuid[]", "text[]"),
    ),
    "plpgsql": Mark(r"\bplpgsql\b", ("plpgsql",)),
    "CREATE EXTENSION": Mark(r"\bcreate\s+extension\b", ("extension",)),
    "CONCURRENTLY": Mark(r"\bconcurrently\b", ("concurrently",)),
    "ALTER TABLE ONLY": Mark(r"\balter\s+table\s+only\b", ("only",)),
    "OWNER TO": Mark(r"\bowner\s+to\b", ("owner",)),
    "USING gin/gist/brin": Mark(r"\busing\s+(gin|gist|brin|spgist)\b", ("using",)),
}
_MARIADB = re.compile(r"^--\s*MariaDB dump", re.I | re.M)


def _marks(text: str, marks: dict[str, Mark]) -> Counter[str]:
    words = text.casefold()  # as re.I compares
    return Counter(
        {
            name: n
            for name, mark in marks.items()
            if any(w in words for w in mark.words) and (n := len(re.findall(mark.pattern, text, mark.flags)))
        }
    )


# what a runner's own settings call each dialect (Prisma's provider, Drizzle's journal)
NAMED = {
    "postgresql": "postgres",
    "postgres": "postgres",
    "pg": "postgres",
    "cockroachdb": "postgres",
    "mysql": "mysql",
}
NO_MARKS = "no mark of either dialect in the files"
DEFAULT_DIALECT = "postgres"  # what a run with no dialect named, and no mark of one, lints as


def detect_dialect(texts: list[str], named: tuple[str, str] | None = None) -> tuple[str | None, str]:
    """(dialect, what showed it) for the files' texts, or a runner's setting `named` (its value,
    where it is); (None, why not) when unsure."""
    if named and named[0] in NAMED:
        return NAMED[named[0]], named[1]
    mysql: Counter[str] = Counter()
    postgres: Counter[str] = Counter()
    mariadb = False
    for text in texts[:FILES]:
        mariadb = mariadb or bool(_MARIADB.search(text[:2000]))  # a dump's header comment
        text = _without_comments(text[:HEAD])
        mysql += _marks(text, MYSQL_MARKS)
        postgres += _marks(text, POSTGRES_MARKS)
    m, p = sum(mysql.values()), sum(postgres.values())
    seen = f"MySQL marks: {_list(mysql)}; PostgreSQL marks: {_list(postgres)}"
    if m and m >= 5 * p:
        dialect = "mariadb" if mariadb else "mysql"
        return dialect, f"detected from {_list(mysql)}" + (f" (PostgreSQL marks: {_list(postgres)})" if p else "")
    if p and p >= 5 * m:
        return "postgres", f"detected from {_list(postgres)}" + (f" (MySQL marks: {_list(mysql)})" if m else "")
    return None, seen if m or p else NO_MARKS


def _list(counts: Counter[str]) -> str:
    return ", ".join(f"{name} ×{n}" for name, n in counts.most_common(3)) or "none"


_COMMENT_OR_STRING = re.compile(r"--[^\n]*|/\*(?!!)[\s\S]*?\*/|'(?:[^'\\]|\\.|'')*'")


def _without_comments(text: str) -> str:
    """The text without comments and quoted strings, where either dialect's words may appear."""
    return _COMMENT_OR_STRING.sub(" ", text)


def other_dialect(text: str, dialect: str) -> str:
    """When a file the chosen dialect cannot read bears the other dialect's marks (and few of its
    own), a hint naming them, else ""."""
    text = _without_comments(text[:HEAD])
    mysql, postgres = _marks(text, MYSQL_MARKS), _marks(text, POSTGRES_MARKS)
    theirs, ours, name = (mysql, postgres, "MySQL") if dialect == Dialect.POSTGRES else (postgres, mysql, "PostgreSQL")
    if not theirs or sum(theirs.values()) < 2 * sum(ours.values()):
        return ""
    flag = "mysql" if name == "MySQL" else "postgres"
    return f" (the file has {name} marks: {_list(theirs)}; is it {name}? --dialect {flag})"
