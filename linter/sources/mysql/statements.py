"""MySQL/MariaDB statements recognised by their leading keywords and read into typed ops.

CREATE TABLE goes through sqlglot (with the PARTITION BY clause read by us, and dumps read
line by line, see create_table); ALTER TABLE sub-commands, index, lock and maintenance statements
are read here and in alter.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from schemacite.model import Index, Location, Statement
from schemacite.model.statements import (
    AlterTable,
    Analyze,
    Begin,
    Commit,
    CreateIndex,
    CreateObject,
    CreateRoutine,
    CreateTable,
    CreateTableAs,
    CreateTableLike,
    CreateTrigger,
    CreateView,
    Delete,
    DropIndex,
    DropObjects,
    DropTable,
    DropTrigger,
    DropView,
    LockTable,
    Op,
    OptimizeTable,
    Other,
    RenameTable,
    SetVariable,
    Truncate,
    Update,
)
from schemacite.sources.mysql.alter import AlterSyntaxError, parse_actions
from schemacite.sources.mysql.partition import find_partition_by, parse_partition_by
from schemacite.sources.names import NAME, QNAME, column_list, prefix_in, table_key, tokenize, unquote
from schemacite.sources.patterns import Pattern


class StatementError(ValueError):
    """A statement that cannot be read; the message says why."""


Handler = Callable[[re.Match, str, str], Op]
# handlers by the statement's first word, patterns compiled on first use: start-up time
# matters to a pre-commit hook, and most runs meet only a few statement kinds
_BY_WORD: dict[str, list[tuple[str, Handler]]] = {}
_FALLBACK: list[tuple[str, Handler]] = []
_LEADING_WORD = Pattern(r"[A-Za-z_]+")


def handles(pattern: str, first: tuple[str, ...] | None = None) -> Callable[[Handler], Handler]:
    words = first if first is not None else (_LEADING_WORD.match(pattern).group(0),)  # type: ignore[union-attr]

    def register(fn: Handler) -> Handler:
        for w in words:
            _BY_WORD.setdefault(w, []).append((pattern, fn))
        if not words:
            _FALLBACK.append((pattern, fn))
        return fn

    return register


@functools.cache
def _compiled(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.I | re.S)


def describe(sql: str, loc: Location, dialect: str) -> Statement:
    lead = _LEADING_WORD.match(sql)
    candidates = _BY_WORD.get(lead.group(0).upper(), []) if lead else []
    for pattern, handler in [*candidates, *_FALLBACK]:
        m = _compiled(pattern).match(sql)
        if m:
            return Statement(sql=sql, location=loc, dialect=dialect, op=handler(m, sql, dialect))
    head = " ".join(sql.split())[:40]
    raise StatementError(f"unrecognised statement: {head!r}")


def _key(name: str, dialect: str) -> str:
    return table_key(name, dialect)


_QNAMES = Pattern(QNAME)


def _names(text: str, dialect: str) -> list[str]:
    return [_key(n, dialect) for n in _QNAMES.findall(text)]


def _ifx(m: re.Match) -> bool:
    return bool(m.group("ifx"))


_PARTITION_BY = Pattern(r"\bPARTITION\s+BY\b", re.I)
_LIKE = Pattern(rf"\s*\(?\s*LIKE\s+(?P<src>{QNAME})", re.I)


@handles(
    rf"CREATE\s+(?:OR\s+REPLACE\s+)?(?P<temp>TEMPORARY\s+)?TABLE\s+(?P<ine>IF\s+NOT\s+EXISTS\s+)?(?P<name>{QNAME})"
)
def _create_table(m: re.Match, sql: str, dialect: str) -> Op:
    # start-up: sqlglot, which create_table reads with, loads only for the MySQL statements that need it
    from schemacite.sources.mysql.create_table import Unread, parse_create, read_dump_layout

    key = _key(m.group("name"), dialect)
    rest = sql[m.end() :]
    like = _LIKE.match(rest)
    if like:
        return CreateTableLike(
            name=key,
            source=_key(like.group("src"), dialect),
            copies_keys=True,
            persistence="temporary" if m.group("temp") else "permanent",
        )
    # the PARTITION BY clause is read by us, the rest by sqlglot
    toks = tokenize(sql) if _PARTITION_BY.search(sql) else []
    cut = find_partition_by(toks)
    partitioning = None
    body = sql
    if cut >= 0:
        try:
            partitioning = parse_partition_by(toks[cut:], sql)
        except ValueError as e:
            raise StatementError(f"cannot read PARTITION BY: {e}") from None
        body = sql[: toks[cut].start]
    if_not_exists = bool(m.group("ine"))
    dumped = read_dump_layout(body, dialect)
    if dumped is not None:
        table, refs = dumped
    else:
        try:
            table, refs, as_query = parse_create(body, dialect)
        except Unread as e:
            said = "" if e.said is None else f": {e.said}"
            raise StatementError(f"cannot parse CREATE TABLE{said}") from None
        if as_query:
            table.name, table.partitioning = key, partitioning
            if m.group("temp"):
                table.persistence = "temporary"
            return CreateTableAs(model=table, reads=None, if_not_exists=if_not_exists)
    table.name = key
    table.partitioning = partitioning
    if m.group("temp"):
        table.persistence = "temporary"
    return CreateTable(model=table, if_not_exists=if_not_exists, references=tuple(refs))


@handles(rf"ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE\s+(?P<ifx>IF\s+EXISTS\s+)?(?P<name>{QNAME})")
def _alter_table(m: re.Match, sql: str, dialect: str) -> Op:
    body = sql[m.end() :]
    if not body.strip():
        raise StatementError("ALTER TABLE without an action")
    try:
        actions = parse_actions(body, dialect)
    except AlterSyntaxError as e:
        raise StatementError(str(e)) from None
    return AlterTable(name=_key(m.group("name"), dialect), actions=actions, if_exists=_ifx(m))


# plain `a, b DESC, c` column lists need no tokenizing; anything else (expressions, prefixes)
# goes through the tokenizer
_COLUMN_NAME = Pattern(rf"({NAME})(?:\s+(?:ASC|DESC))?\s*(?:,|$)", re.I)
_SIMPLE_COLUMNS = Pattern(rf"\s*{NAME}(?:\s+(?:ASC|DESC))?(?:\s*,\s*{NAME}(?:\s+(?:ASC|DESC))?)*\s*", re.I)
_CLAUSES = tuple((c.lower(), re.compile(rf"\b{c}\s*=?\s*(\w+)", re.I)) for c in ("ALGORITHM", "LOCK"))


def _clauses(text: str) -> dict[str, str]:
    return {clause: c.group(1).upper() for clause, pattern in _CLAUSES if (c := pattern.search(text))}


@handles(
    rf"CREATE\s+(?P<replace>OR\s+REPLACE\s+)?(?P<unique>UNIQUE\s+)?(?P<kind>FULLTEXT\s+|SPATIAL\s+)?INDEX\s+"
    rf"(?P<ine>IF\s+NOT\s+EXISTS\s+)?(?P<name>{QNAME}\s+)?(?:USING\s+\w+\s+)?ON\s+(?P<table>{QNAME})"
)
def _create_index(m: re.Match, sql: str, dialect: str) -> Op:
    rest = sql[m.end() :]
    open_at = rest.find("(")
    close_at = _closing_paren(rest, open_at) if open_at >= 0 else -1
    if close_at < 0:
        raise StatementError("CREATE INDEX without a complete column list")
    inner = rest[open_at + 1 : close_at]
    simple = _SIMPLE_COLUMNS.fullmatch(inner)
    toks = [] if simple else tokenize(inner)
    columns = tuple(table_key(c, dialect) for c in _COLUMN_NAME.findall(inner)) if simple else column_list(toks)
    if not columns:
        raise StatementError("CREATE INDEX with an empty column list")
    name = m.group("name")
    index = Index(
        name=table_key(name, dialect) if name else None,
        columns=columns,
        unique=bool(m.group("unique")),
        kind=(m.group("kind") or "").strip().lower() or "btree",
        prefix=prefix_in(toks),
    )
    clauses = _clauses(rest[close_at + 1 :])
    return CreateIndex(
        on=_key(m.group("table"), dialect),
        index=index,
        algorithm=clauses.get("algorithm"),
        lock=clauses.get("lock"),
        if_not_exists=bool(m.group("ine")),
        or_replace=bool(m.group("replace")),
    )


def _closing_paren(text: str, start: int) -> int:
    """Index of the parenthesis closing the one at `start`, skipping quoted text; -1 if none."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c in "'\"`":
            end = text.find(c, i + 1)
            if end < 0:
                return -1
            i = end + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


@handles(rf"DROP\s+INDEX\s+(?P<ifx>IF\s+EXISTS\s+)?(?P<name>{QNAME})\s+ON\s+(?P<table>{QNAME})")
def _drop_index(m: re.Match, sql: str, dialect: str) -> Op:
    clauses = _clauses(sql[m.end() :])
    return DropIndex(
        names=(table_key(m.group("name"), dialect),),
        on=_key(m.group("table"), dialect),
        if_exists=_ifx(m),
        algorithm=clauses.get("algorithm"),
        lock=clauses.get("lock"),
    )


@handles(rf"DROP\s+(?:TEMPORARY\s+)?TABLE\s+(?P<ifx>IF\s+EXISTS\s+)?(?P<names>{QNAME}(?:\s*,\s*{QNAME})*)")
def _drop_table(m: re.Match, sql: str, dialect: str) -> Op:
    return DropTable(
        tables=tuple(_names(m.group("names"), dialect)),
        if_exists=_ifx(m),
        cascade=bool(re.search(r"\bCASCADE\s*$", sql, re.I)),
    )


@handles(rf"DROP\s+(?P<what>DATABASE|SCHEMA)\s+(?P<ifx>IF\s+EXISTS\s+)?(?P<name>{NAME})\s*$")
def _drop_database(m: re.Match, sql: str, dialect: str) -> Op:
    # DROP SCHEMA is a synonym of DROP DATABASE
    name = _key(m.group("name"), dialect)
    what = "DROP " + m.group("what").upper()
    return DropObjects(what=what, object="database", names=(name,), if_exists=_ifx(m))


def _routine_name(name: str, dialect: str) -> str:
    """A stored function's or procedure's name as CREATE and DROP both give it: bare, lower case
    (MySQL's routine names ignore case)."""
    return _key(name, dialect).rsplit(".", 1)[-1].lower()


@handles(
    r"CREATE\s+(?P<replace>OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?(?:AGGREGATE\s+)?"
    rf"(?P<what>FUNCTION|PROCEDURE)\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{QNAME})"
)
def _create_routine(m: re.Match, sql: str, dialect: str) -> Op:
    what = m.group("what").upper()
    return CreateRoutine(
        what="CREATE " + what, name=_routine_name(m.group("name"), dialect), or_replace=bool(m.group("replace"))
    )


@handles(rf"DROP\s+(?P<what>FUNCTION|PROCEDURE)\s+(?P<ifx>IF\s+EXISTS\s+)?(?P<name>{QNAME})")
def _drop_routine(m: re.Match, sql: str, dialect: str) -> Op:
    what = m.group("what").upper()
    return DropObjects(
        what="DROP " + what, object=what.lower(), names=(_routine_name(m.group("name"), dialect),), if_exists=_ifx(m)
    )


@handles(
    r"CREATE\s+(?P<replace>OR\s+REPLACE\s+)?(?:TEMPORARY\s+)?SEQUENCE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    rf"(?P<name>{QNAME})"
)
def _create_sequence(m: re.Match, sql: str, dialect: str) -> Op:
    name = _key(m.group("name"), dialect)
    return CreateObject(what="CREATE SEQUENCE", object="sequence", name=name, or_replace=bool(m.group("replace")))


@handles(rf"DROP\s+(?:TEMPORARY\s+)?SEQUENCE\s+(?P<ifx>IF\s+EXISTS\s+)?(?P<names>{QNAME}(?:\s*,\s*{QNAME})*)")
def _drop_sequence(m: re.Match, sql: str, dialect: str) -> Op:
    names = tuple(_names(m.group("names"), dialect))
    return DropObjects(what="DROP SEQUENCE", object="sequence", names=names, if_exists=_ifx(m))


@handles(rf"TRUNCATE\s+(?:TABLE\s+)?(?P<names>{QNAME})")
def _truncate(m: re.Match, sql: str, dialect: str) -> Op:
    return Truncate(tables=tuple(_names(m.group("names"), dialect)))


@handles(r"RENAME\s+TABLES?\s+(?P<pairs>.*)")
def _rename_table(m: re.Match, sql: str, dialect: str) -> Op:
    pairs = []
    for pair in m.group("pairs").split(","):
        parts = re.split(r"\s+TO\s+", pair.strip(), flags=re.I)
        if len(parts) != 2:
            raise StatementError(f"cannot read RENAME TABLE pair {pair.strip()!r}")
        pairs.append((_key(parts[0], dialect), _key(parts[1], dialect)))
    return RenameTable(pairs=tuple(pairs))


@handles(
    rf"(?P<verb>CREATE\s+(?P<replace>OR\s+REPLACE\s+)?|ALTER\s+)(?:ALGORITHM\s*=\s*\w+\s+)?"
    rf"(?:DEFINER\s*=\s*\S+\s+)?(?:SQL\s+SECURITY\s+\w+\s+)?VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{QNAME})",
    first=("CREATE", "ALTER"),
)
def _create_view(m: re.Match, sql: str, dialect: str) -> Op:
    """CREATE [OR REPLACE] VIEW, and ALTER VIEW, which redefines the view as OR REPLACE does."""
    replaces = bool(m.group("replace")) or m.group("verb").upper().startswith("ALTER")
    return CreateView(name=_key(m.group("name"), dialect), reads=None, or_replace=replaces)


@handles(rf"DROP\s+VIEW\s+(?P<ifx>IF\s+EXISTS\s+)?(?P<names>{QNAME}(?:\s*,\s*{QNAME})*)")
def _drop_view(m: re.Match, sql: str, dialect: str) -> Op:
    return DropView(names=tuple(_names(m.group("names"), dialect)), if_exists=_ifx(m))


@handles(rf"ANALYZE\s+(?:NO_WRITE_TO_BINLOG\s+|LOCAL\s+)?TABLES?\s+(?P<names>{QNAME}(?:\s*,\s*{QNAME})*)")
def _analyze(m: re.Match, sql: str, dialect: str) -> Op:
    return Analyze(tables=tuple(_names(m.group("names"), dialect)))


@handles(rf"OPTIMIZE\s+(?:NO_WRITE_TO_BINLOG\s+|LOCAL\s+)?TABLES?\s+(?P<names>{QNAME}(?:\s*,\s*{QNAME})*)")
def _optimize(m: re.Match, sql: str, dialect: str) -> Op:
    return OptimizeTable(tables=tuple(_names(m.group("names"), dialect)))


@handles(r"LOCK\s+TABLES?\s+(?P<rest>.*)")
def _lock(m: re.Match, sql: str, dialect: str) -> Op:
    # LOCK TABLES t [AS a] READ [LOCAL] | [LOW_PRIORITY] WRITE, ...
    locks = []
    for item in m.group("rest").split(","):
        words = item.split()
        if not words:
            continue
        mode = "WRITE" if "WRITE" in (w.upper() for w in words) else "READ"
        locks.append((_key(words[0], dialect), mode))
    return LockTable(
        tables=tuple(t for t, _ in locks),
        modes=tuple(locks),
        mode="WRITE" if any(md == "WRITE" for _, md in locks) else "READ",
    )


@handles(
    rf"CREATE\s+(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?TRIGGER\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{QNAME})"
    rf".*?\bON\s+(?P<table>{QNAME})"
)
def _create_trigger(m: re.Match, sql: str, dialect: str) -> Op:
    return CreateTrigger(on=_key(m.group("table"), dialect), name=table_key(m.group("name"), dialect))


@handles(rf"DROP\s+TRIGGER\s+(?P<ifx>IF\s+EXISTS\s+)?(?P<name>{QNAME})")
def _drop_trigger(m: re.Match, sql: str, dialect: str) -> Op:
    return DropTrigger(name=table_key(m.group("name"), dialect), if_exists=_ifx(m))


@handles(r"(?:BEGIN|START\s+TRANSACTION)\b(?!\s+ATOMIC)", first=("BEGIN", "START"))
def _begin(m: re.Match, sql: str, dialect: str) -> Op:
    return Begin()


@handles(r"(?:COMMIT|ROLLBACK)\b", first=("COMMIT", "ROLLBACK"))
def _commit(m: re.Match, sql: str, dialect: str) -> Op:
    return Commit(rollback=sql[:8].upper().startswith("ROLLBACK"))


@handles(
    r"SET\s+(?:SESSION\s+|LOCAL\s+|(?P<server>GLOBAL\s+)|@@(?:session\.)?)?(?P<var>[\w.@]+)\s*(?::?=|TO)\s*(?P<value>.*)"
)
def _set(m: re.Match, sql: str, dialect: str) -> Op:
    return SetVariable(
        variable=m.group("var").lower().lstrip("@"),
        value=m.group("value").strip().strip("'\" "),
        server=bool(m.group("server")),
    )


# a constant as MySQL writes one: a string (quotes doubled or escaped) or a number
_CONSTANT = r"'(?:[^'\\]|\\.|'')*'|-?\d+(?:\.\d+)?"
# `WHERE col = constant` or `WHERE col IN (constants)`, and nothing more
_ONLY_WHERE = (
    rf"\s+WHERE\s+(?P<where>{NAME})\s*(?:=\s*(?P<one>{_CONSTANT})|IN\s*\((?P<many>(?:{_CONSTANT})"
    rf"(?:\s*,\s*(?:{_CONSTANT}))*)\s*\))\s*;?\s*$"
)


@handles(
    rf"UPDATE\s+(?:LOW_PRIORITY\s+)?(?:IGNORE\s+)?(?P<table>{QNAME})\s+SET\s+(?P<col>{NAME})\s*=\s*"
    rf"(?:(?P<value>{_CONSTANT})|(?!(?:NULL|DEFAULT)\b)(?P<source>{NAME}))(?:{_ONLY_WHERE}|\s*;?\s*$)"
)
def _update(m: re.Match, sql: str, dialect: str) -> Op:
    """`UPDATE t SET c = 'x'` or `SET c = other_column` with no WHERE: a backfill of every row
    (Kill Bill's `update invoices set grp_id=id` before `modify grp_id ... NOT NULL`). `UPDATE t SET
    status = 'paused' WHERE status = 'scheduled'` (or `IN (...)`): after it no row holds the
    constants the WHERE names. Any other UPDATE is read as an Other."""
    into, column = _key(m.group("table"), dialect), _column(m.group("col"))
    every_row = m.group("where") is None
    if m.group("source"):
        if not every_row:
            return Other(what="UPDATE")
        return Update(into=into, columns=(column,), every_row=True, copies=((column, _column(m.group("source"))),))
    value = _unquoted(m.group("value"))
    if every_row:
        return Update(into=into, columns=(column,), every_row=True, set_to=((column, value),))
    where, held = _column(m.group("where")), _constants(m)
    clears = (column, *held) if column == where and value not in held else ()
    return Update(into=into, columns=(column,), filtered_on=(where,), clears=clears, set_to=((column, value),))


@handles(rf"DELETE\s+(?:(?:LOW_PRIORITY|QUICK|IGNORE)\s+)*FROM\s+(?P<table>{QNAME}){_ONLY_WHERE}")
def _delete_values(m: re.Match, sql: str, dialect: str) -> Op:
    """`DELETE FROM t WHERE status = 'scheduled'`: after it no row holds the constants named."""
    where = _column(m.group("where"))
    return Delete(into=_key(m.group("table"), dialect), filtered_on=(where,), clears=(where, *_constants(m)))


def _column(name: str) -> str:
    return unquote(name).lower()  # MySQL's column names are the same in any case: the model keeps them lower


def _constants(m: re.Match) -> tuple[str, ...]:
    listed = m.group("many")
    return tuple(_unquoted(c) for c in re.findall(_CONSTANT, listed)) if listed else (_unquoted(m.group("one")),)


def _unquoted(constant: str) -> str:
    if not constant.startswith("'"):
        return constant
    return re.sub(r"\\(.)|''", lambda c: c.group(1) or "'", constant[1:-1])


# statements with no effect on the schema model or on locks of existing tables
_OBJECTS = (
    r"(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?(?:AGGREGATE\s+|UNIQUE\s+|DEFAULT\s+)?"
    r"(?:FUNCTION|PROCEDURE|SEQUENCE|SCHEMA|DATABASE|ROLE|USER|EVENT|SERVER|TABLESPACE|LOGFILE|RESOURCE|"
    r"SPATIAL\s+REFERENCE|INSTANCE|PACKAGE|SYNONYM)\b"
)
_OTHER = (
    r"(?P<what>INSERT|UPDATE|DELETE|REPLACE|SELECT|WITH|VALUES|TABLE|GRANT|REVOKE|SET|SHOW|DO|CALL|"
    r"PREPARE|EXECUTE|DEALLOCATE|USE|DECLARE|SAVEPOINT|RELEASE|UNLOCK|FLUSH|LOAD|HANDLER|EXPLAIN|DESCRIBE|DESC|"
    r"PURGE|XA|SIGNAL|RESIGNAL|CHECK|REPAIR|CHECKSUM|INSTALL|UNINSTALL|KILL|IMPORT|CACHE|RESET|CHANGE|STOP|HELP)\b"
    rf"|(?P<ddl>(?:CREATE|ALTER|DROP)\s+{_OBJECTS})"
)


@handles(_OTHER, first=())
def _other(m: re.Match, sql: str, dialect: str) -> Op:
    what = m.group("what") or " ".join(m.group("ddl").split()[:2])
    return Other(what=what.upper())
