"""From file text to located, described statements.

Each statement is recognised by its leading keywords. CREATE TABLE goes through
sqlglot (with the PARTITION BY clause read by us); ALTER TABLE sub-commands and the
maintenance and lock statements sqlglot does not parse (VACUUM, CLUSTER, REINDEX,
LOCK, CREATE RULE, REFRESH MATERIALIZED VIEW, ...) are read here.
"""
from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from schemacite.model import Index, Location
from schemacite.sources.mysql.alter import AlterSyntaxError, parse_actions
from schemacite.sources.names import NAME, QNAME, column_list, sqlglot_parse, table_key, tokenize
from schemacite.sources.mysql.partition import find_partition_by, parse_partition_by, parse_pg_partition_by
from schemacite.sources.split import split_sql
from schemacite.model.statements import ParseError, Statement

_SEQ = itertools.count(1)


def next_seq() -> int:
    """Replay order across files: statements parsed (or loaded from the cache) later count later."""
    return next(_SEQ)

DIRECTIVE = re.compile(r"schemacite:\s*(ignore-file|ignore|insert-heavy)(?:\[([^\]]*)\])?", re.I)


@dataclass
class ParsedFile:
    path: str
    statements: list[Statement] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)
    ignore_file: frozenset[str] = frozenset()  # rules ignored for the whole file ("*" = all)
    ignore_file_at: int = 0  # the line of the first ignore-file comment
    includes: list[tuple[int, str, bool]] = field(default_factory=list)  # (line, path, relative to this file)


class StatementError(ValueError):
    pass


def read_sql_file(path: str, dialect: str, cache=None) -> ParsedFile:
    """Read and parse one file; unreadable, binary or non-UTF-8 files become a located error."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        return ParsedFile(path, errors=[ParseError(path, 0, f"cannot read file: {e.strerror}")])
    key = cache.key(raw, dialect) if cache is not None else None
    if key is not None:
        parsed = cache.get(key, path)
        if parsed is not None:
            return parsed
    size = len(raw)
    text = _decode(raw, path)
    del raw  # a dump's bytes need not stay beside its text while it is read
    parsed = text if isinstance(text, ParsedFile) else parse_text(text, path, dialect)
    if key is not None:
        cache.put(key, parsed, size=size)
    return parsed


def _decode(raw: bytes, path: str) -> str | ParsedFile:
    """The file's text, or a ParsedFile holding why it is not SQL text."""
    if b"\0" in raw[:8192]:
        return ParsedFile(path, errors=[ParseError(path, 0, "binary file, not SQL")])
    try:
        # CRLF files (MySQL's sample databases ship so) read as LF: lines and columns stay the same
        return raw.decode("utf-8-sig").replace("\r\n", "\n")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        return ParsedFile(path, errors=[ParseError(path, line, f"not valid UTF-8 (byte 0x{raw[e.start]:02x})")])


def parse_text(text: str, path: str, dialect: str) -> ParsedFile:
    return parse_split(split_sql(text, dialect), path, dialect)


def parse_split(split, path: str, dialect: str) -> ParsedFile:
    """Describe the statements of a split file."""
    result = ParsedFile(path, includes=split.includes)
    result.errors.extend(ParseError(path, line, msg) for line, msg in split.errors)
    directives = _directives(split.comments)
    file_lines = sorted(line for line, (kind, _) in directives.items() if kind == "ignore-file")
    result.ignore_file = frozenset(r for line in file_lines for r in directives[line][1] or {"*"})
    result.ignore_file_at = file_lines[0] if file_lines else 0
    prev_end = 0
    procedures: dict[str, list[tuple[str, int, int]]] = {}
    for chunk in split.chunks:
        suppressed: set[str] = set()
        suppressed_at = 0
        annotations: set[str] = set()
        for line in range(prev_end + 1, chunk.end_line + 1) if directives else ():
            d = directives.get(line)
            if d is None:
                continue
            kind, rules = d
            if kind == "ignore":
                suppressed.update(rules or {"*"})
                suppressed_at = suppressed_at or line
            elif kind == "insert-heavy":
                annotations.add("insert-heavy")
        prev_end = chunk.end_line
        pieces = [(chunk.text, chunk.line, chunk.column)]
        embedded = embedded_ddl(chunk.text, chunk.line, chunk.column, dialect, procedures)
        if embedded:
            pieces += embedded
        for n, (text, line, column) in enumerate(pieces):
            try:
                stmt = describe(text, Location(path, line, column, next(_SEQ)), dialect)
            except StatementError as e:
                result.errors.append(ParseError(path, line, str(e)))
                continue
            except Exception as e:  # a reader bug must not stop the other statements and files
                result.errors.append(ParseError(path, line, f"internal error reading this statement: {e!r}"))
                continue
            stmt.end_line = chunk.end_line if n == 0 else line + text.count("\n")
            if suppressed:
                stmt.suppressed = frozenset(suppressed)
                stmt.suppressed_at = suppressed_at
            if annotations:
                stmt.annotations = frozenset(annotations)
            if n:
                stmt.details["embedded"] = True
            result.statements.append(stmt)
    return result


# DDL that runs from inside another statement: MySQL procedures CALLed in the same file,
# PREPARE strings (`SET @s = IF(..., 'ALTER TABLE ...', 'SELECT 1')`), PostgreSQL DO blocks.
# Migration tools use these to make DDL conditional; the schema they build depends on them.
_DDL_START = r"(?:ALTER\s+TABLE|CREATE\s+(?:UNIQUE\s+)?INDEX|DROP\s+INDEX|CREATE\s+TABLE|DROP\s+TABLE|RENAME\s+TABLE)\b"
_DDL_STRING = re.compile(rf"'(\s*{_DDL_START}(?:[^'\\]|\\.|'')*)'", re.I)
_DDL_IN_BODY = re.compile(
    rf"(?:^|;|\bTHEN\b|\bELSE\b|\bBEGIN\b|\bLOOP\b|\$\$)\s*({_DDL_START}(?:[^;']|'(?:[^']|'')*')*)", re.I
)
_PLACEHOLDER = re.compile(r"%[ILs]|\$\d")  # format()/EXECUTE ... USING: the DDL is built at run time
_PROCEDURE = re.compile(rf"CREATE\s+(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?PROCEDURE\s+(?:IF\s+NOT\s+EXISTS\s+)?({QNAME})", re.I)
_CALL = re.compile(rf"CALL\s+({QNAME})", re.I)


def embedded_ddl(text: str, line: int, column: int, dialect: str, procedures: dict) -> list[tuple[str, int, int]]:
    def at(pos: int, body: str) -> tuple[str, int, int]:
        before = text[:pos]
        nl = before.count("\n")
        col = pos - before.rfind("\n") if nl else column + pos
        return body.strip().rstrip(";").strip(), line + nl, col

    first = text[:1].upper()
    if first not in ("C", "S", "D"):  # CREATE PROCEDURE, CALL, SET, SELECT, DO
        return []
    head = text[:12].upper()
    if dialect != "postgres":
        proc = _PROCEDURE.match(text)
        if proc:
            procedures[table_key(proc.group(1), dialect)] = [at(m.start(1), m.group(1)) for m in _DDL_IN_BODY.finditer(text)]
            return []
        call = _CALL.match(text)
        if call:
            return procedures.get(table_key(call.group(1), dialect), [])
        if not head.startswith(("SET", "SELECT")):
            return []
    elif not head.startswith("DO"):
        return []
    found = [
        at(m.start(1), m.group(1).replace("''", "'").replace("\\'", "'"))
        for m in _DDL_STRING.finditer(text)
        if not _PLACEHOLDER.search(m.group(1))
    ]
    if dialect == "postgres":
        found += [at(m.start(1), m.group(1)) for m in _DDL_IN_BODY.finditer(text)]
    return sorted(found, key=lambda p: (p[1], p[2]))


def _directives(comments) -> dict[int, tuple[str, set[str]]]:
    out = {}
    for c in comments:
        m = DIRECTIVE.search(c.text)
        if m:
            rules = {r.strip().lower() for r in (m.group(2) or "").split(",") if r.strip()}
            out[c.end_line] = (m.group(1).lower(), rules)
    return out


# ---- recognising statements -------------------------------------------------------------

Handler = Callable[[re.Match, str, str], dict[str, Any]]
# handlers by the statement's first word, patterns compiled on first use: start-up time
# matters to a pre-commit hook, and most runs meet only a few statement kinds
_BY_WORD: dict[str, list[tuple[str, Handler]]] = {}
_FALLBACK: list[tuple[str, Handler]] = []
_LEADING_WORD = re.compile(r"[A-Za-z_]+")


def handles(pattern: str, first: tuple[str, ...] | None = None) -> Callable[[Handler], Handler]:
    words = first if first is not None else (_LEADING_WORD.match(pattern).group(0),)

    def register(fn: Handler) -> Handler:
        for w in words:
            _BY_WORD.setdefault(w, []).append((pattern, fn))
        if not words:
            _FALLBACK.append((pattern, fn))
        return fn

    return register


@functools.lru_cache(maxsize=None)
def _compiled(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.I | re.S)


def describe(sql: str, loc: Location, dialect: str) -> Statement:
    lead = _LEADING_WORD.match(sql)
    candidates = _BY_WORD.get(lead.group(0).upper(), []) if lead else []
    for pattern, handler in [*candidates, *_FALLBACK]:
        m = _compiled(pattern).match(sql)
        if m:
            fields = handler(m, sql, dialect)
            if "ifx" in m.re.groupindex and m.group("ifx"):
                fields.setdefault("details", {})["if_exists"] = True
            return Statement(sql=sql, location=loc, dialect=dialect, **fields)
    head = " ".join(sql.split())[:40]
    raise StatementError(f"unrecognised statement: {head!r}")


def _key(name: str, dialect: str) -> str:
    return table_key(name, dialect)


def _names(text: str, dialect: str) -> list[str]:
    return [_key(n, dialect) for n in _QNAMES.findall(text)]


def _sqlglot_error(e: Exception) -> str:
    msg = str(e).splitlines()[0]
    return re.sub(r"\x1b\[[0-9;]*m", "", msg)


_PARTITION_BY = re.compile(r"\bPARTITION\s+BY\b", re.I)
_LIKE = re.compile(rf"\s*\(?\s*LIKE\s+(?P<src>{QNAME})", re.I)
_PARTITION_OF = re.compile(rf"\s*PARTITION\s+OF\s+(?P<parent>{QNAME})", re.I)
_USING = re.compile(r"\s*USING\s+(\w+)", re.I)
_QNAMES = re.compile(QNAME)
_TEMP = r"(?:(?:GLOBAL\s+|LOCAL\s+)?(?P<temp>TEMPORARY|TEMP)\s+|(?P<unlogged>UNLOGGED)\s+)?"


@handles(rf"CREATE\s+(?:OR\s+REPLACE\s+)?{_TEMP}TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{QNAME})")
def _create_table(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    import sqlglot
    from sqlglot import exp

    from schemacite.sources.mysql.create_table import like_copies_keys, read_dump_layout, table_from_create

    key = _key(m.group("name"), dialect)
    rest = sql[m.end() :]
    like = _LIKE.match(rest)
    if like:
        return {
            "kind": "create_table_like",
            "table": key,
            "details": {
                "source": _key(like.group("src"), dialect),
                "copies_keys": like_copies_keys(sql, dialect),
                "temporary": bool(m.group("temp")),
            },
        }
    pof = _PARTITION_OF.match(rest)
    # the PARTITION BY clause is read by us, the rest by sqlglot
    toks = tokenize(sql) if _PARTITION_BY.search(sql) else []
    cut = find_partition_by(toks)
    partitioning = None
    body = sql
    if cut >= 0:
        reader = parse_pg_partition_by if dialect == "postgres" else parse_partition_by
        try:
            partitioning = reader(toks[cut:], sql)
        except ValueError as e:
            raise StatementError(f"cannot read PARTITION BY: {e}") from None
        body = sql[: toks[cut].start]
    if not pof and dialect != "postgres":
        dumped = read_dump_layout(body, dialect)
        if dumped is not None:
            table, refs = dumped
            table.name = key
            table.partitioning = partitioning
            table.temporary = bool(m.group("temp"))
            return {"kind": "create_table", "table": key, "details": {"model": table, "references": refs}}
    try:
        parsed = sqlglot_parse(body, dialect)
    except sqlglot.errors.SqlglotError as e:
        raise StatementError(f"cannot parse CREATE TABLE: {_sqlglot_error(e)}") from None
    if not isinstance(parsed, exp.Create):
        raise StatementError("cannot parse CREATE TABLE")
    if pof:
        parent = _key(pof.group("parent"), dialect)
        table, refs = _partition_table(parsed, key, dialect)
        table.partitioning = partitioning
        return {"kind": "create_partition", "table": key,
                "details": {"parent": parent, "model": table, "references": refs}}
    table, refs = table_from_create(parsed, dialect)
    table.name = key
    table.partitioning = partitioning
    table.temporary = table.temporary or bool(m.group("temp"))
    kind = "create_table_as" if parsed.args.get("expression") is not None else "create_table"
    return {"kind": kind, "table": key, "details": {"model": table, "references": refs}}


def _partition_table(parsed, key: str, dialect: str):
    from sqlglot import exp

    from schemacite.model import Table
    from schemacite.sources.mysql.create_table import table_from_create

    prop = parsed.find(exp.PartitionedOfProperty)
    schema = prop.this if prop is not None else None
    if isinstance(schema, exp.Schema) and schema.expressions:
        fake = exp.Create(this=exp.Schema(this=exp.to_table(key), expressions=list(schema.expressions)), kind="TABLE")
        return table_from_create(fake, dialect)
    return Table(name=key), []


@handles(rf"ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE\s+(?P<ifx>IF\s+EXISTS\s+)?(?:ONLY\s+)?(?P<name>{QNAME})\s*\*?")
def _alter_table(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    body = sql[m.end() :]
    if not body.strip():
        raise StatementError("ALTER TABLE without an action")
    try:
        actions = parse_actions(body, dialect)
    except AlterSyntaxError as e:
        raise StatementError(str(e)) from None
    return {"kind": "alter_table", "table": _key(m.group("name"), dialect), "actions": actions}


@handles(
    rf"CREATE\s+(?P<unique>UNIQUE\s+)?(?P<kind>FULLTEXT\s+|SPATIAL\s+)?INDEX\s+(?P<conc>CONCURRENTLY\s+)?"
    rf"(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{QNAME}\s+)?(?:USING\s+\w+\s+)?ON\s+(?:ONLY\s+)?(?P<table>{QNAME})"
)
def _create_index(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    rest = sql[m.end() :]
    open_at = rest.find("(")
    close_at = _closing_paren(rest, open_at) if open_at >= 0 else -1
    if close_at < 0:
        raise StatementError("CREATE INDEX without a complete column list")
    inner = rest[open_at + 1 : close_at]
    simple = _SIMPLE_COLUMNS.fullmatch(inner)
    columns = tuple(table_key(c, dialect) for c in _COLUMN_NAME.findall(inner)) if simple else column_list(tokenize(inner))
    if not columns:
        raise StatementError("CREATE INDEX with an empty column list")
    method = _USING.match(rest)
    name = m.group("name")
    tail = rest[close_at + 1 :]
    index = Index(
        name=table_key(name, dialect) if name else None,
        columns=columns,
        unique=bool(m.group("unique")),
        kind=(m.group("kind") or "").strip().lower() or (method.group(1).lower() if method else "btree"),
        partial=bool(_WHERE.search(tail)),
    )
    details = {"index": index, "concurrently": bool(m.group("conc")), "unique": index.unique}
    for clause, pattern in _CLAUSES:
        c = pattern.search(tail)
        if c:
            details[clause] = c.group(1).upper()
    return {"kind": "create_index", "table": _key(m.group("table"), dialect), "target": index.name, "details": details}


# plain `a, "b" DESC, c` column lists need no tokenizing; anything else (expressions,
# prefixes, operator classes) goes through the tokenizer
_COLUMN_NAME = re.compile(rf"({NAME})(?:\s+(?:ASC|DESC))?\s*(?:,|$)", re.I)
_SIMPLE_COLUMNS = re.compile(rf"\s*{NAME}(?:\s+(?:ASC|DESC))?(?:\s*,\s*{NAME}(?:\s+(?:ASC|DESC))?)*\s*", re.I)
_WHERE = re.compile(r"\bWHERE\b", re.I)
_CLAUSES = tuple((c.lower(), re.compile(rf"\b{c}\s*=?\s*(\w+)", re.I)) for c in ("ALGORITHM", "LOCK"))


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


@handles(rf"DROP\s+INDEX\s+(?P<conc>CONCURRENTLY\s+)?(?P<ifx>IF\s+EXISTS\s+)?(?P<names>{QNAME}(?:\s*,\s*{QNAME})*)(?:\s+ON\s+(?P<table>{QNAME}))?")
def _drop_index(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    names = [table_key(n, dialect) for n in _QNAMES.findall(m.group("names"))]
    names = [n for n in names if n.upper() not in ("CASCADE", "RESTRICT")]
    table = _key(m.group("table"), dialect) if m.group("table") else None
    details: dict[str, Any] = {"concurrently": bool(m.group("conc")), "names": names}
    for clause, pattern in _CLAUSES:
        c = pattern.search(sql, m.end())
        if c:
            details[clause] = c.group(1).upper()
    return {"kind": "drop_index", "table": table, "target": names[0] if names else None, "details": details}


@handles(rf"ALTER\s+INDEX\s+(?P<ifx>IF\s+EXISTS\s+)?(?P<name>{QNAME})\s+(?P<rest>.*)")
def _alter_index(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    rest = m.group("rest").strip()
    op = rest.split(None, 1)[0].lower() if rest else ""
    details: dict[str, Any] = {"op": op, "text": rest}
    attach = re.match(rf"ATTACH\s+PARTITION\s+(?P<p>{QNAME})", rest, re.I)
    if attach:
        details["op"] = "attach_partition"
        details["partition"] = table_key(attach.group("p"), dialect)
    elif re.match(r"RENAME\b", rest, re.I):
        details["new_name"] = table_key(rest.split()[-1], dialect)
    elif re.match(r"SET\s+TABLESPACE\b", rest, re.I):
        details["op"] = "set_tablespace"
    elif re.match(r"SET\s*\(|RESET\s*\(", rest, re.I):
        details["op"] = "set_storage_params"
    return {"kind": "alter_index", "target": table_key(m.group("name"), dialect), "details": details}


@handles(rf"DROP\s+(?:TEMPORARY\s+)?TABLE\s+(?P<ifx>IF\s+EXISTS\s+)?(?P<names>{QNAME}(?:\s*,\s*{QNAME})*)")
def _drop_table(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    tables = _names(m.group("names"), dialect)
    return {"kind": "drop_table", "table": tables[0], "details": {"tables": tables}}


@handles(rf"TRUNCATE\s+(?:TABLE\s+)?(?:ONLY\s+)?(?P<names>{QNAME}(?:\s*\*?\s*,\s*(?:ONLY\s+)?{QNAME})*)")
def _truncate(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    tables = [t for t in _names(m.group("names"), dialect) if t != "only"]
    return {"kind": "truncate", "table": tables[0], "details": {"tables": tables}}


@handles(r"RENAME\s+TABLES?\s+(?P<pairs>.*)")
def _rename_table(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    pairs = []
    for pair in m.group("pairs").split(","):
        parts = re.split(r"\s+TO\s+", pair.strip(), flags=re.I)
        if len(parts) != 2:
            raise StatementError(f"cannot read RENAME TABLE pair {pair.strip()!r}")
        pairs.append((_key(parts[0], dialect), _key(parts[1], dialect)))
    return {"kind": "rename_table", "table": pairs[0][0], "details": {"pairs": pairs}}


@handles(
    rf"CREATE\s+(?:OR\s+REPLACE\s+)?(?:ALGORITHM\s*=\s*\w+\s+)?(?:DEFINER\s*=\s*\S+\s+)?(?:SQL\s+SECURITY\s+\w+\s+)?"
    rf"(?:TEMP\s+|TEMPORARY\s+|RECURSIVE\s+)*(?P<mat>MATERIALIZED\s+)?VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{QNAME})"
)
def _create_view(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    kind = "create_matview" if m.group("mat") else "create_view"
    return {"kind": kind, "target": _key(m.group("name"), dialect)}


@handles(rf"DROP\s+(?P<mat>MATERIALIZED\s+)?VIEW\s+(?P<ifx>IF\s+EXISTS\s+)?(?P<names>{QNAME}(?:\s*,\s*{QNAME})*)")
def _drop_view(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    names = _names(m.group("names"), dialect)
    return {"kind": "drop_view", "target": names[0], "details": {"names": names, "materialized": bool(m.group("mat"))}}


@handles(rf"REFRESH\s+MATERIALIZED\s+VIEW\s+(?P<conc>CONCURRENTLY\s+)?(?P<name>{QNAME})")
def _refresh(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    name = _key(m.group("name"), dialect)
    return {"kind": "refresh_matview", "table": name, "target": name, "details": {"concurrently": bool(m.group("conc"))}}


@handles(r"VACUUM\b(?P<rest>.*)")
def _vacuum(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    rest = m.group("rest")
    opts = ""
    paren = re.match(r"\s*\((?P<opts>[^)]*)\)", rest)
    if paren:
        opts, rest = paren.group("opts"), rest[paren.end() :]
    else:
        words = re.match(r"\s*((?:(?:FULL|FREEZE|VERBOSE|ANALYZE|ANALYSE)\s+)*)", rest + " ", re.I)
        opts, rest = words.group(1), rest[words.end() :] if words else rest
    full = bool(re.search(r"\bFULL\b(?!\s+(?:false|off|0)\b)", opts, re.I))
    tables = [t for t in _names(re.sub(r"\([^)]*\)", "", rest), dialect)]
    return {"kind": "vacuum", "table": tables[0] if tables else None, "details": {"full": full, "tables": tables}}


@handles(first=("ANALYZE", "ANALYSE"), pattern=rf"ANALY[SZ]E\s+(?:VERBOSE\s+|\([^)]*\)\s*)?(?P<names>{QNAME}(?:\s*\([^)]*\))?(?:\s*,\s*{QNAME}(?:\s*\([^)]*\))?)*)?")
def _analyze(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    names = m.group("names") or ""
    tables = [t for t in _names(re.sub(r"\([^)]*\)", "", names), dialect) if t not in ("table", "local", "no_write_to_binlog")]
    return {"kind": "analyze", "table": tables[0] if tables else None, "details": {"tables": tables}}


@handles(rf"CLUSTER\b(?:\s+VERBOSE)?(?:\s*\([^)]*\))?(?:\s+(?P<name>{QNAME}))?(?:\s+USING\s+(?P<idx>{QNAME}))?\s*$")
def _cluster(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    table = _key(m.group("name"), dialect) if m.group("name") else None
    return {"kind": "cluster", "table": table, "details": {"index": m.group("idx")}}


@handles(rf"REINDEX\s+(?:\([^)]*\)\s*)?(?P<obj>INDEX|TABLE|SCHEMA|DATABASE|SYSTEM)\s+(?P<conc>CONCURRENTLY\s+)?(?P<name>{QNAME})?")
def _reindex(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    obj = m.group("obj").lower()
    name = _key(m.group("name"), dialect) if m.group("name") else None
    return {
        "kind": "reindex",
        "table": name if obj == "table" else None,
        "target": name,
        "details": {"object": obj, "concurrently": bool(m.group("conc"))},
    }


@handles(r"LOCK\s+(?:TABLES?\s+)?(?P<rest>.*)")
def _lock(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    rest = m.group("rest")
    if dialect == "postgres":
        mode = re.search(r"\bIN\s+(.+?)\s+MODE\b", rest, re.I)
        names_part = re.split(r"\bIN\b", rest, maxsplit=1, flags=re.I)[0]
        names_part = re.sub(r"\bONLY\b|\bNOWAIT\b|\*", " ", names_part, flags=re.I)
        tables = _names(names_part, dialect)
        return {
            "kind": "lock_table",
            "table": tables[0] if tables else None,
            "details": {"mode": (mode.group(1).upper() if mode else "ACCESS EXCLUSIVE"), "tables": tables},
        }
    # MySQL: LOCK TABLES t [AS a] READ [LOCAL] | [LOW_PRIORITY] WRITE, ...
    locks = []
    for item in rest.split(","):
        words = item.split()
        if not words:
            continue
        mode = "WRITE" if "WRITE" in (w.upper() for w in words) else "READ"
        locks.append((_key(words[0], dialect), mode))
    tables = [t for t, _ in locks]
    modes = {t: md for t, md in locks}
    return {"kind": "lock_table", "table": tables[0] if tables else None, "details": {"tables": tables, "modes": modes,
            "mode": "WRITE" if "WRITE" in modes.values() else "READ"}}


@handles(rf"OPTIMIZE\s+(?:NO_WRITE_TO_BINLOG\s+|LOCAL\s+)?TABLES?\s+(?P<names>{QNAME}(?:\s*,\s*{QNAME})*)")
def _optimize(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    tables = _names(m.group("names"), dialect)
    return {"kind": "optimize_table", "table": tables[0], "details": {"tables": tables}}


@handles(
    rf"CREATE\s+(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?(?:CONSTRAINT\s+)?TRIGGER\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{QNAME})"
    rf".*?\bON\s+(?P<table>{QNAME})"
)
def _create_trigger(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    return {"kind": "create_trigger", "table": _key(m.group("table"), dialect), "target": m.group("name")}


@handles(rf"DROP\s+TRIGGER\s+(?P<ifx>IF\s+EXISTS\s+)?(?P<name>{QNAME})(?:\s+ON\s+(?P<table>{QNAME}))?")
def _drop_trigger(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    table = _key(m.group("table"), dialect) if m.group("table") else None
    return {"kind": "drop_trigger", "table": table, "target": m.group("name")}


@handles(rf"CREATE\s+(?:OR\s+REPLACE\s+)?RULE\s+(?P<name>{QNAME})\s+AS\s+ON\s+\w+\s+TO\s+(?P<table>{QNAME})")
def _create_rule(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    return {"kind": "create_rule", "table": _key(m.group("table"), dialect), "target": m.group("name")}


@handles(rf"DROP\s+RULE\s+(?P<ifx>IF\s+EXISTS\s+)?(?P<name>{QNAME})\s+ON\s+(?P<table>{QNAME})")
def _drop_rule(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    return {"kind": "drop_rule", "table": _key(m.group("table"), dialect), "target": m.group("name")}


@handles(rf"CREATE\s+POLICY\s+(?P<name>{QNAME})\s+ON\s+(?P<table>{QNAME})")
def _create_policy(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    return {"kind": "create_policy", "table": _key(m.group("table"), dialect), "target": m.group("name")}


@handles(rf"CREATE\s+STATISTICS\s+.*?\bFROM\s+(?P<table>{QNAME})")
def _create_statistics(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    return {"kind": "create_statistics", "table": _key(m.group("table"), dialect)}


@handles(rf"COMMENT\s+ON\s+(?P<obj>TABLE|COLUMN|INDEX|CONSTRAINT|VIEW|MATERIALIZED\s+VIEW|\w+)\s+(?P<name>{QNAME})")
def _comment(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    obj = m.group("obj").upper()
    name = m.group("name")
    table = None
    if obj == "TABLE":
        table = _key(name, dialect)
    elif obj == "COLUMN":
        table = _key(name.rsplit(".", 1)[0], dialect) if "." in name else None
    elif obj == "CONSTRAINT":
        on = re.search(rf"\bON\s+(?P<t>{QNAME})", sql[m.end() :], re.I)
        table = _key(on.group("t"), dialect) if on else None
    return {"kind": "comment", "table": table, "details": {"object": obj.lower()}}


@handles(r"(?:BEGIN|START\s+TRANSACTION)\b(?!\s+ATOMIC)", first=("BEGIN", "START"))
def _begin(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    return {"kind": "begin"}


@handles(r"(?:COMMIT|END|ROLLBACK|ABORT)\b", first=("COMMIT", "END", "ROLLBACK", "ABORT"))
def _commit(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    return {"kind": "commit"}


@handles(r"SET\s+(?:SESSION\s+|LOCAL\s+|GLOBAL\s+|@@(?:session\.)?)?(?P<var>[\w.@]+)\s*(?:=|TO)\s*(?P<value>.*)")
def _set(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    return {"kind": "set", "details": {"variable": m.group("var").lower().lstrip("@"), "value": m.group("value").strip()}}


# statements with no effect on the schema model or on locks of existing tables
_OBJECTS = (
    r"(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?(?:TRUSTED\s+|PROCEDURAL\s+|UNIQUE\s+|DEFAULT\s+)?"
    r"(?:FUNCTION|PROCEDURE|SEQUENCE|TYPE|EXTENSION|SCHEMA|DATABASE|DOMAIN|ROLE|USER|GROUP|EVENT|AGGREGATE|CAST|"
    r"COLLATION|CONVERSION|OPERATOR|PUBLICATION|SUBSCRIPTION|SERVER|FOREIGN|TEXT\s+SEARCH|LANGUAGE|TABLESPACE|"
    r"ACCESS\s+METHOD|POLICY|STATISTICS|TRANSFORM|ROUTINE|SYSTEM|DEFAULT\s+PRIVILEGES|LARGE\s+OBJECT|OWNED|"
    r"LOGFILE|RESOURCE|SPATIAL\s+REFERENCE|INSTANCE|TRIGGER|RULE|EVENT\s+TRIGGER|PACKAGE|SYNONYM)\b"
)
_OTHER = (
    r"(?:INSERT|UPDATE|DELETE|REPLACE|SELECT|WITH|VALUES|TABLE|MERGE|COPY|GRANT|REVOKE|SET|RESET|SHOW|DO|CALL|"
    r"PREPARE|EXECUTE|DEALLOCATE|USE|DECLARE|SAVEPOINT|RELEASE|DISCARD|NOTIFY|LISTEN|UNLISTEN|UNLOCK|FLUSH|LOAD|"
    r"HANDLER|CHECKPOINT|SECURITY|EXPLAIN|DESCRIBE|DESC|PURGE|XA|SIGNAL|RESIGNAL|CHECK|REPAIR|CHECKSUM|"
    r"INSTALL|UNINSTALL|KILL|IMPORT|REASSIGN|SECURITY\s+LABEL|CLOSE|FETCH|MOVE)\b"
    rf"|(?:CREATE|ALTER|DROP|COMMENT\s+ON)\s+{_OBJECTS}"
)


@handles(_OTHER, first=())
def _other(m: re.Match, sql: str, dialect: str) -> dict[str, Any]:
    return {"kind": "other"}
