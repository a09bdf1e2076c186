"""Which SQL a project's files are written in, when neither --dialect nor a config says.

Each side has marks the other's grammar does not accept: backticks, AUTO_INCREMENT, ENGINE=
and `/*!40101 ... */` for MySQL and MariaDB; `::` casts, `$$` bodies, SERIAL, jsonb and
plpgsql for PostgreSQL. A Prisma project names its provider outright. The guess is sure only
when the marks point one way (the other side's are none, or a fifth as many); otherwise the run
stops and asks for --dialect rather than lint with the wrong grammar.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator
from typing import NamedTuple

from schemacite.model.dialects import Dialect
from schemacite.model.listing import first_of
from schemacite.sources.patterns import Pattern

HEAD = 65536  # bytes of each file read for marks
FILES = 200  # files read at most


class Mark(NamedTuple):
    """A regular expression counted in a file's lower-cased text.

    Python's regex engine jumps straight to a literal a pattern begins with, but scans every
    character for one that begins with `\\b`, a class or a choice: thirty times slower on a folder
    of migrations. So a mark names the words its matches begin with (`starts`: the pattern is tried
    only where one is, in order, as findall would) or, when no word begins every match, words one
    of which every match holds (`holds`: the pattern runs only on a text holding one). `lead`
    counts the characters a match has before its starting word."""

    pattern: str
    starts: tuple[str, ...] = ()
    holds: tuple[str, ...] = ()
    flags: int = 0
    lead: int = 0


MYSQL_MARKS = {
    "backticks": Mark(r"`[^`\n]{1,64}`", starts=("`",)),
    "AUTO_INCREMENT": Mark(r"\bauto_increment\b", starts=("auto_increment",)),
    "ENGINE=": Mark(r"\)\s*engine\s*=", holds=("engine",)),
    "DEFAULT CHARSET": Mark(r"\bdefault\s+(charset|character\s+set)\s*=", starts=("default",)),
    "/*!version comments": Mark(r"/\*!\d{5}", starts=("/*!",)),
    "UNSIGNED": Mark(r"\b(int|bigint|smallint|tinyint|mediumint)(\(\d+\))?\s+unsigned\b", holds=("unsigned",)),
    "MODIFY/CHANGE COLUMN": Mark(r"\balter\s+table\s+\S+\s+(modify|change)\s+(column\s+)?\S", starts=("alter",)),
    "DELIMITER": Mark(r"^\s*delimiter\s+\S", holds=("delimiter",), flags=re.M),
    "tinyint/mediumtext/longtext": Mark(
        r"\b(tinyint|mediumint|mediumtext|longtext|longblob)\b",
        starts=("tinyint", "mediumint", "mediumtext", "longtext", "longblob"),
    ),
}
POSTGRES_MARKS = {
    ":: casts": Mark(r"\w::\w", starts=("::",), lead=1),
    "$$ bodies": Mark(r"\$(\w*)\$", starts=("$",)),
    "SERIAL": Mark(r"\b(big|small)?serial\b", starts=("big", "small", "serial")),
    "GENERATED AS IDENTITY": Mark(r"\bgenerated\s+(always|by\s+default)\s+as\s+identity\b", starts=("generated",)),
    "jsonb/timestamptz/bytea": Mark(
        r"\b(jsonb|timestamptz|bytea|tsvector|uuid\[\]|text\[\])",
        starts=("jsonb", "timestamptz", "bytea", "tsvector", "uuid[]", "text[]"),
    ),
    "plpgsql": Mark(r"\bplpgsql\b", starts=("plpgsql",)),
    "CREATE EXTENSION": Mark(r"\bcreate\s+extension\b", starts=("create",)),
    "CONCURRENTLY": Mark(r"\bconcurrently\b", starts=("concurrently",)),
    "ALTER TABLE ONLY": Mark(r"\balter\s+table\s+only\b", starts=("alter",)),
    "OWNER TO": Mark(r"\bowner\s+to\b", starts=("owner",)),
    "USING gin/gist/brin": Mark(r"\busing\s+(gin|gist|brin|spgist)\b", starts=("using",)),
}
# SQLite's words neither grammar takes: a file with them is SQLite's, which schemacite does not read
SQLITE_MARKS = {
    "AUTOINCREMENT": Mark(r"\bautoincrement\b", starts=("autoincrement",)),
    "PRAGMA": Mark(r"(^|;)\s*pragma\s+\w", holds=("pragma",), flags=re.M),
    "WITHOUT ROWID": Mark(r"\bwithout\s+rowid\b", holds=("rowid",)),
    "sqlite_ tables": Mark(r"\bsqlite_(master|sequence|schema)\b", starts=("sqlite_",)),
}
# those MySQL's and MariaDB's servers refuse though schemacite's MySQL reader takes them
# (`integer primary key autoincrement`: ERROR 1064): found in files read as MySQL, they show an
# application that rewrites its migrations for each server it runs them on
REFUSED_BY_MYSQL = ("AUTOINCREMENT", "PRAGMA", "WITHOUT ROWID")
_MARIADB = Pattern(r"^--\s*MariaDB dump", re.I | re.M)


def _both_marks(text: str) -> tuple[Counter[str], Counter[str]]:
    """MySQL's and PostgreSQL's marks in `text` (its comments and strings blanked)."""
    lower = text.lower()
    return _marks(lower, MYSQL_MARKS), _marks(lower, POSTGRES_MARKS)


def _marks(lower: str, marks: dict[str, Mark]) -> Counter[str]:
    """Each mark's matches in the lower-cased text, in the order the marks first show (by file,
    when the text joins files with NUL, then in the order listed): the order a tie is shown in."""
    found = {name: _count(mark, lower) for name, mark in marks.items()}
    shown = sorted(
        (lower.count("\0", 0, first), order, name) for order, (name, (n, first)) in enumerate(found.items()) if n
    )
    return Counter({name: found[name][0] for _, _, name in shown})


def _count(mark: Mark, text: str) -> tuple[int, int]:
    """(how many matches findall would find, where the first begins)."""
    if not mark.starts:
        if not any(w in text for w in mark.holds):
            return 0, -1
        starts = [m.start() for m in re.finditer(mark.pattern, text, mark.flags)]
        return len(starts), starts[0] if starts else -1
    places = sorted(_places(text, mark.starts))
    if not places:
        return 0, -1  # start-up: a mark whose words the text lacks is never compiled
    pattern = re.compile(mark.pattern, mark.flags)
    found, first, free = 0, -1, 0  # free: where the next match may begin (findall's never overlap)
    for at in places:
        at -= mark.lead
        if at >= free and (match := pattern.match(text, at)):
            found, free = found + 1, max(match.end(), at + 1)
            first = at if first < 0 else first
    return found, first


def _places(text: str, words: tuple[str, ...]) -> Iterator[int]:
    for word in words:
        at = text.find(word)
        while at >= 0:
            yield at
            at = text.find(word, at + 1)


# what a runner's own settings call each dialect (Prisma's provider, Drizzle's journal)
NAMED = {
    "postgresql": "postgres",
    "postgres": "postgres",
    "pg": "postgres",
    "cockroachdb": "postgres",
    "mysql": "mysql",
    "mariadb": "mariadb",
}
NO_MARKS = "no mark of either dialect in the files"
DEFAULT_DIALECT = "postgres"  # what a run with no dialect named, and no mark of one, lints as


def detect_dialect(texts: list[str], named: tuple[str, str] | None = None) -> tuple[str | None, str]:
    """(dialect, what showed it) for the files' texts, or a runner's setting `named` (its value,
    where it is); (None, why not) when unsure."""
    if named and named[0] in NAMED:
        return NAMED[named[0]], named[1]
    headers = (text[:2000] for text in texts[:FILES])  # a dump's comment
    mariadb = any("mariadb" in header.lower() and _MARIADB.search(header) for header in headers)
    # the files read as one text, one pass a mark: no mark's match can cross the NUL between two
    together = "\n\0\n".join(_without_comments(text[:HEAD]) for text in texts[:FILES])
    mysql, postgres = _both_marks(together)
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


_COMMENT_OR_STRING = Pattern(r"--[^\n]*|/\*(?!!)[\s\S]*?\*/|'(?:[^'\\]|\\.|'')*'")


def _without_comments(text: str) -> str:
    """The text without comments and quoted strings, where either dialect's words may appear."""
    return _COMMENT_OR_STRING.sub(" ", text)


def sqlite_syntax(sql: str) -> Counter[str]:
    """SQLite's words a MySQL or MariaDB server refuses, counted in `sql` (comments and strings aside)."""
    return _marks(_without_comments(sql[:HEAD]).lower(), {n: SQLITE_MARKS[n] for n in REFUSED_BY_MYSQL})


def sqlite_note(files: dict[str, Counter[str]], server: str) -> str:
    """The note on files read as MySQL (or MariaDB) that carry SQLite syntax its server refuses."""
    total: Counter[str] = sum(files.values(), Counter())
    names = first_of(files, 5)
    return (
        f"{len(files)} file(s) carry SQLite syntax {server} refuses ({_list(total)}: {names}): an application "
        f"that rewrites its migrations for each server runs them; findings assume {server}, and fixes are "
        "shown, not applied (the same files run on the other servers)"
    )


def other_dialect(text: str, dialect: str, path: str = "") -> str:
    """When a file the chosen dialect cannot read is SQLite's (its words, or its name says so), a
    hint saying schemacite does not read SQLite; when it bears the other dialect's marks (and few
    of its own), a hint naming them; else ""."""
    bare = _without_comments(text[:HEAD])
    sqlite = _marks(bare.lower(), SQLITE_MARKS)
    if sqlite or "sqlite" in os.path.basename(path).lower():
        seen = _list(sqlite) if sqlite else "sqlite in its name"
        return f" (the file looks like SQLite's: {seen}; schemacite reads MySQL, MariaDB and PostgreSQL, not SQLite)"
    mysql, postgres = _both_marks(bare)
    theirs, ours, name = (mysql, postgres, "MySQL") if dialect == Dialect.POSTGRES else (postgres, mysql, "PostgreSQL")
    if not theirs or sum(theirs.values()) < 2 * sum(ours.values()):
        return ""
    flag = "mysql" if name == "MySQL" else "postgres"
    return f" (the file has {name} marks: {_list(theirs)}; is it {name}? --dialect {flag})"
