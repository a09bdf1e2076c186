"""From a file to located, typed statements.

The file is decoded, split (`sources.split`: what is not SQL is set aside, positions kept),
then read by its dialect's reader: PostgreSQL's own grammar for PostgreSQL
(`sources.postgres.statements`, through `sources.postgres.reader`), sqlglot and our readers for
MySQL and MariaDB (`sources.mysql.statements`). Suppression comments and annotations are attached to the
statements they precede; DDL that runs from inside another statement (a MySQL procedure
CALLed in the file, a PREPARE string, a PostgreSQL DO block) is read as statements of its own.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import field

from schemacite.model import Location
from schemacite.model.dialects import MYSQL_FAMILY, Dialect
from schemacite.model.record import record, replace
from schemacite.model.statements import ParseError, RunsUnseen, SetVariable, Statement, UnreadCreateTable
from schemacite.sources.files import UTF16_BOMS, read_bytes
from schemacite.sources.frameworks.base import Unit
from schemacite.sources.names import QNAME, name_parts, table_key
from schemacite.sources.patterns import Pattern
from schemacite.sources.split import PSQL_SENDS, Split, split_sql

SEQ = itertools.count(1)  # the order statements are read in, across files


def next_seq() -> int:
    """Replay order across files: statements parsed (or loaded from the cache) later count later."""
    return next(SEQ)


def resequence(parsed: ParsedFile, path: str | None = None) -> None:
    """Give a parse made elsewhere (the cache, another process) this run's replay order, and the
    name `path` it is read under here."""
    path = parsed.path if path is None else path
    parsed.path = path
    for stmt in parsed.statements:
        at = stmt.location  # built, not `replace`d: a dump has thousands
        stmt.location = Location(path, at.line, at.column, next(SEQ))
    parsed.errors = [replace(e, file=path) for e in parsed.errors]


def seq_from(start: int) -> None:
    """Replay order goes on from `start` (or from where it is, if further): the next statements
    come after those of a replay read back from the cache."""
    global SEQ
    SEQ = itertools.count(max(start, next(SEQ)))


# `schemacite: ignore[SC104, no-primary-key] reason`, or without brackets `ignore SC104 no-primary-key
# reason`: the rules named (codes or names, comma or space separated), then an optional reason
DIRECTIVE = Pattern(r"\bschemacite:\s*(?P<kind>[\w-]*)(?P<rest>.*)", re.I | re.S)
DIRECTIVES = ("ignore", "ignore-file", "insert-heavy")
_LISTED = Pattern(r"\s*\[(?P<inside>[^\]]*)\]")
# a rule's code (letters then digits) or name (words joined by hyphens), as written without brackets
_RULE_ID = Pattern(r"[,\s]*(?P<id>[a-z]+\d+|[a-z0-9]+(?:-[a-z0-9]+)+)(?![\w-])", re.I)


@record
class ParsedFile:
    """One file read: its statements, errors and `schemacite:` comments."""

    path: str
    statements: list[Statement] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)
    ignore_file: frozenset[str] = frozenset()  # rules ignored for the whole file ("*" = all)
    ignore_file_at: int = 0  # the line of the first ignore-file comment
    bad_directives: list[ParseError] = field(default_factory=list)  # `schemacite:` comments that do not parse
    includes: list[tuple[int, str, bool]] = field(default_factory=list)  # (line, path, relative to this file)
    units: list[Unit] = field(default_factory=list)  # the deploys the framework makes of it (not cached)


def read_sql_file(
    path: str, dialect: str, cache=None, framework=None, data: bytes | None = None, entries_from: int = 0
) -> ParsedFile:
    """Read and parse one file (or `data`, read from standard input under the name `path`);
    unreadable, binary or non-UTF-8 files become a located error. The framework, when given,
    blanks its placeholders before parsing and says which parts of the file deploy. The cache,
    when given, holds the parse of a file of `entries_from` bytes or more."""
    if data is not None:
        raw = data
    else:
        try:
            raw = read_bytes(path)
        except OSError as e:
            return ParsedFile(path, errors=[ParseError(path, 0, f"cannot read file: {e.strerror}")])
    cached = cache is not None and len(raw) >= entries_from
    key = cache.key(raw, f"{dialect}+{framework.name}" if framework else dialect) if cached else None
    parsed = cache.get(key, path) if key is not None else None
    text = _decode(raw, path)
    size = len(raw)
    del raw  # a dump's bytes need not stay beside its text while it is read
    if isinstance(text, ParsedFile):
        return text
    if parsed is None:
        parsed = parse_text(framework.prepare(path, text) if framework else text, path, dialect)
        if key is not None:
            cache.put(key, parsed, size=size)
    if framework is not None:
        parsed.units = framework.units(path, text)
        parsed.errors = framework.unread(path, text, parsed.errors)
    if any(e.line for e in parsed.errors):
        # start-up: the dialect marks are compiled only for a file with a statement that does not parse
        from schemacite.sources.dialect import other_dialect

        if hint := other_dialect(text, dialect, path):
            parsed.errors = [replace(e, message=e.message + hint) if e.line else e for e in parsed.errors]
    return parsed


def decode_text(raw: bytes) -> str:
    """A file's text as the readers see it, for one already read without error."""
    text = _decode(raw, "")
    return "" if isinstance(text, ParsedFile) else text


def _decode(raw: bytes, path: str) -> str | ParsedFile:
    """The file's text, or a ParsedFile holding why it is not SQL text."""
    if raw[:2] in UTF16_BOMS:
        try:
            return raw.decode("utf-16").replace("\r\n", "\n")
        except UnicodeDecodeError:
            return ParsedFile(path, errors=[ParseError(path, 0, "not valid UTF-16 after its byte order mark")])
    if b"\0" in raw[:8192]:
        return ParsedFile(path, errors=[ParseError(path, 0, "binary file, not SQL")])
    try:
        # CRLF files (MySQL's sample databases ship so) read as LF: lines and columns stay the same
        return raw.decode("utf-8-sig").replace("\r\n", "\n")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        return ParsedFile(path, errors=[ParseError(path, line, f"not valid UTF-8 (byte 0x{raw[e.start]:02x})")])


def load_reader(dialect: str) -> None:
    """Load the dialect's reader now instead of at the first file (a read-ahead child that plans
    the run loads it first: the other process waits for the child's first parse, not its plan)."""
    if Dialect(dialect) is Dialect.POSTGRES:
        # start-up: a run loads only its own dialect's reader
        import schemacite.sources.postgres.statements
    else:
        # start-up: as above
        import schemacite.sources.mysql.statements  # noqa: F401


def parse_text(text: str, path: str, dialect: str) -> ParsedFile:
    dialect = Dialect(dialect)  # callers of the API may name it as text; its statements carry the enum
    postgres = dialect is Dialect.POSTGRES
    if postgres and not _needs_splitter(text):
        # PostgreSQL's grammar finds the statements itself; what is not SQL needs our splitter
        split = None
        result = ParsedFile(path)
        directives: dict[int, tuple[str, set[str]]] = {}
    else:
        split = split_sql(text, dialect)
        result = ParsedFile(path, includes=split.includes)
        result.errors.extend(ParseError(path, line, msg) for line, msg in split.errors)
        directives = _directives(split.comments, path, result.bad_directives)
    file_lines = sorted(line for line, (kind, _) in directives.items() if kind == "ignore-file")
    result.ignore_file = frozenset(r for line in file_lines for r in directives[line][1])
    result.ignore_file_at = file_lines[0] if file_lines else 0
    if postgres:
        # start-up: a run loads only its own dialect's reader
        from schemacite.sources.postgres.statements import statement_groups

        groups = statement_groups(text, split, path, result.errors)
    else:
        groups = _mysql(split, path, dialect, result.errors)
    prev_end = 0
    for end_line, statements in groups:
        suppressed: set[str] = set()
        suppressed_at = 0
        annotations: set[str] = set()
        for line in range(prev_end + 1, end_line + 1) if directives else ():
            d = directives.get(line)
            if d is None:
                continue
            kind, rules = d
            if kind == "ignore":
                suppressed.update(rules)
                suppressed_at = suppressed_at or line
            elif kind == "insert-heavy":
                annotations.add("insert-heavy")
        prev_end = end_line
        for stmt in statements:
            if suppressed:
                stmt.suppressed = frozenset(suppressed)
                stmt.suppressed_at = suppressed_at
            if annotations:
                stmt.annotations = frozenset(annotations)
            result.statements.append(stmt)
    return result


# what only our splitter reads in a PostgreSQL file: psql meta-commands (a line starting with a
# backslash, or a sending one like `\gset` after code), COPY ... FROM stdin data, and
# schemacite's own comments
_META = Pattern(r"^[ \t]*\\|" + PSQL_SENDS.pattern, re.M)


def _needs_splitter(text: str) -> bool:
    return (
        ("\\" in text and _META.search(text) is not None)
        or "stdin" in text
        or "STDIN" in text
        or "schemacite:" in text.lower()  # a case-blind regex scans a large file 10x slower
    )


def _directives(comments, path: str, bad: list[ParseError]) -> dict[int, tuple[str, set[str]]]:
    """The `schemacite:` comments by the line they end on: (kind, rule ids lower-cased). One that
    does not parse, or an ignore naming no rule, is kept in `bad` and silences nothing."""
    out = {}
    for c in comments:
        m = DIRECTIVE.search(c.text)
        if m is None:
            continue
        kind, rest = m.group("kind").lower(), m.group("rest")
        if kind not in DIRECTIVES:
            problem = f"`schemacite: {kind}` is not a directive (use {', '.join(DIRECTIVES)})"
        elif kind == "insert-heavy":
            out[c.end_line] = (kind, set())
            continue
        else:
            rules = _rules_named(rest)
            if rules:
                out[c.end_line] = (kind, rules)
                continue
            problem = f"`schemacite: {kind}` names no rule"
        bad.append(ParseError(path, c.end_line, problem))
    return out


def _rules_named(rest: str) -> set[str]:
    """The rule ids an ignore comment names: all of `[...]`, else the leading words shaped like a
    code or a name (what follows them is the reason)."""
    listed = _LISTED.match(rest)
    if listed:
        return {r.lower() for r in re.split(r"[,\s]+", listed.group("inside")) if r}
    rules, at = set(), 0
    rest = rest.lstrip(":")
    while m := _RULE_ID.match(rest, at):
        rules.add(m.group("id").lower())
        at = m.end()
    return rules


# ---------------------------------------------------------------- PostgreSQL


# the head of a CREATE TABLE up to its column list, read where the grammar refuses what follows
_CREATE_TABLE_HEAD = Pattern(
    r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:GLOBAL|LOCAL)\s+)?(?:(?P<kind>TEMP|TEMPORARY|UNLOGGED)\s+)?TABLE\s+"
    rf"(?P<exists>IF\s+NOT\s+EXISTS\s+)?(?P<name>{QNAME})\s*\(",
    re.I,
)


def unread_create_table(sql: str, location: Location, dialect: Dialect) -> Statement | None:
    """A stand-in for a CREATE TABLE the grammar refused, when its head names the table: a table
    whose CREATE cannot be read is still created on deploy, and later statements meet it there."""
    m = _CREATE_TABLE_HEAD.match(sql, after_comments(sql, 0, len(sql)))
    if m is None:
        return None
    kind = (m["kind"] or "").lower()
    key = table_key(m["name"], dialect)
    op = UnreadCreateTable(
        what="CREATE TABLE",
        name=key,
        persistence="temporary" if kind.startswith("temp") else kind or "permanent",
        if_not_exists=bool(m["exists"]),
    )
    qualified = len(name_parts(m["name"])) > 1
    unqualified = frozenset() if qualified or dialect is not Dialect.POSTGRES else frozenset({key})
    return Statement(sql.strip().rstrip(";").rstrip(), location, dialect, op, unqualified=unqualified)


def after_comments(text: str, start: int, end: int) -> int:
    """Where the first token at or after `start` begins, past blanks, `--` and (nested) `/* */` comments."""
    i = start
    while i < end:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("--", i):
            nl = text.find("\n", i, end)
            i = end if nl < 0 else nl + 1
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < end and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        else:
            break
    return i


# ---------------------------------------------------------------- MySQL and MariaDB


def _mysql(split: Split, path: str, dialect: str, errors: list[ParseError]) -> Iterator[tuple[int, list[Statement]]]:
    # start-up: a run loads only its own dialect's reader
    from schemacite.sources.mysql.statements import StatementError, describe

    procedures: dict[str, list[tuple[str, int, int]]] = {}
    dynamic = _DynamicSql()
    for chunk in split.chunks:
        pieces = [(chunk.text, chunk.line, chunk.column)]
        embedded = embedded_ddl(chunk.text, chunk.line, chunk.column, dialect, procedures)
        if embedded:
            pieces += embedded
        group = []
        for n, (text, line, column) in enumerate(pieces):
            try:
                stmt = describe(text, Location(path, line, column, next(SEQ)), dialect)
            except StatementError as e:
                errors.append(ParseError(path, line, str(e)))
                # the statement stands in the replay as the table it creates, where its head says
                unread = unread_create_table(text, Location(path, line, column, next(SEQ)), Dialect(dialect))
                if unread is not None and n == 0:
                    unread.end_line = chunk.end_line
                    group.append(unread)
                continue
            except Exception as e:  # a reader bug must not stop the other statements and files
                errors.append(ParseError(path, line, f"internal error reading this statement: {e!r}"))
                continue
            stmt.end_line = chunk.end_line if n == 0 else line + text.count("\n")
            stmt.embedded = n > 0
            if n == 0 and (unseen := dynamic.unseen(stmt, procedures)):
                stmt.op = RunsUnseen(what=unseen)
            group.append(stmt)
        yield chunk.end_line, group


_PREPARE = Pattern(r"PREPARE\s+(\w+)\s+FROM\s+(.*)", re.I | re.S)
_EXECUTE = Pattern(r"EXECUTE\s+(\w+)", re.I)
_DYNAMIC_BODY = Pattern(r"\bPREPARE\b|\bEXECUTE\s+IMMEDIATE\b", re.I)


class _DynamicSql:
    """MySQL and MariaDB statements that run SQL the reader cannot see, through one file: a CALL of
    a procedure the file does not define (or one that prepares SQL at run time), EXECUTE of a
    statement prepared from a variable whose SQL was built at run time, EXECUTE IMMEDIATE."""

    def __init__(self) -> None:
        self.seen_vars: set[str] = set()  # user variables set to SQL written out in full
        self.prepared: set[str] = set()  # statements prepared from SQL written out in full
        self.dynamic: set[str] = set()  # procedures of the file that prepare SQL at run time

    def unseen(self, stmt: Statement, procedures: dict) -> str | None:
        op, text = stmt.op, stmt.sql
        if isinstance(op, SetVariable):
            literal = "'" in text and "@" not in text.split("=", 1)[-1] and "CONCAT" not in text.upper()
            (self.seen_vars.add if literal else self.seen_vars.discard)(op.variable)
            return None
        proc = _PROCEDURE.match(text)
        if proc:
            if _DYNAMIC_BODY.search(text):
                self.dynamic.add(table_key(proc.group(1), stmt.dialect))
            return None
        what = getattr(op, "what", "")
        if what == "CALL" and (call := _CALL.match(text)):
            name = table_key(call.group(1), stmt.dialect)
            return None if name in procedures and name not in self.dynamic else f"CALL {call.group(1)}"
        if what == "PREPARE" and (prep := _PREPARE.match(text)):
            source = prep.group(2).strip()
            visible = source.startswith("'") or source.lstrip("@").lower() in self.seen_vars
            (self.prepared.add if visible else self.prepared.discard)(prep.group(1).lower())
            return None
        if what == "EXECUTE" and (run := _EXECUTE.match(text)):
            name = run.group(1)
            if name.upper() == "IMMEDIATE" or name.lower() not in self.prepared:
                return f"EXECUTE {name}"
        return None


# ---------------------------------------------------------------- DDL inside other statements

# Migration tools make DDL conditional by running it from inside another statement: MySQL
# procedures CALLed in the same file, PREPARE strings (`SET @s = IF(..., 'ALTER TABLE ...',
# 'SELECT 1')`), PostgreSQL DO blocks. The schema they build depends on it.
# ALTER TYPE: a type renamed in a block changes what a later column's type change means
_DDL_START = (
    r"(?:ALTER\s+TABLE|CREATE\s+(?:UNIQUE\s+)?INDEX|DROP\s+INDEX|CREATE\s+TABLE|DROP\s+TABLE|RENAME\s+TABLE"
    r"|ALTER\s+TYPE)\b"
)
_DDL_STRING = Pattern(rf"'(\s*{_DDL_START}(?:[^'\\]|\\.|'')*)'", re.I)
_DDL_IN_BODY = Pattern(
    rf"(?:^|;|\bTHEN\b|\bELSE\b|\bBEGIN\b|\bLOOP\b|\$\$)\s*({_DDL_START}(?:[^;']|'(?:[^']|'')*')*)", re.I
)
_PLACEHOLDER = Pattern(r"%[ILs]|\$\d")  # format()/EXECUTE ... USING: the DDL is built at run time
_PROCEDURE = Pattern(
    rf"CREATE\s+(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?PROCEDURE\s+(?:IF\s+NOT\s+EXISTS\s+)?({QNAME})", re.I
)
_CALL = Pattern(rf"CALL\s+({QNAME})", re.I)


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
    mysql = dialect in MYSQL_FAMILY
    if mysql:
        proc = _PROCEDURE.match(text)
        if proc:
            procedures[table_key(proc.group(1), dialect)] = [
                at(m.start(1), m.group(1)) for m in _DDL_IN_BODY.finditer(text)
            ]
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
    if not mysql:
        found += [at(m.start(1), m.group(1)) for m in _DDL_IN_BODY.finditer(text)]
    return sorted(found, key=lambda p: (p[1], p[2]))
