"""A PostgreSQL file's statements as PostgreSQL's own grammar reads them (pglast, through
`sources.postgres.reader`), a batch of statements at a time. `sources.read` hands a PostgreSQL
file here once it is split, as it hands a MySQL file to `sources.mysql.statements`: a run loads
only its own dialect's reader."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from schemacite.model import Location
from schemacite.model.dialects import Dialect
from schemacite.model.statements import Other, ParseError, Statement
from schemacite.sources.postgres.reader import (
    Offsets,
    Source,
    SyntaxProblem,
    long_names,
    may_hold_long_names,
    parse,
    parse_psql,
    read_op,
    statement_ends,
)
from schemacite.sources.read import after_comments, embedded_ddl, next_seq, unread_create_table
from schemacite.sources.split import Lines, Split, blank_spans, split_sql

# looked up once: an enum member looked up on its class costs each statement some 60 ns (Python 3.11)
_POSTGRES = Dialect.POSTGRES
_BATCH = 64_000  # characters parsed at once: a dump's parse trees never all live together


def statement_groups(
    text: str, split: Split | None, path: str, errors: list[ParseError]
) -> Iterator[tuple[int, list[Statement]]]:
    """Statements as PostgreSQL's grammar reads them, a batch of statements at a time; a batch the
    grammar refuses is read statement by statement, so one bad statement costs only itself."""
    lines = Lines(text)
    sql_text = blank_spans(text, split.non_sql) if split else text  # what the parser reads: comments stay
    if split and split.sends:  # `SELECT ... \gset` ends its statement: the parser reads a `;` there
        chars = list(sql_text)
        for at in split.sends:
            chars[at] = ";"
        sql_text = "".join(chars)
    shown = (
        sql_text
        if split is None or not split.comments
        else blank_spans(text, sorted(split.non_sql + [(c.start, c.stop) for c in split.comments]))
    )
    for first, chunk, trees in _parsed_batches(sql_text):
        long_here = may_hold_long_names(chunk)  # one screen a batch: most batches have no long name
        if trees is not None:
            pieces = [(first + s, first + e, tree, chunk, first) for s, e, tree in trees]
        else:
            pieces = []
            for part in split_sql(chunk, Dialect.POSTGRES).chunks:
                try:
                    read, text_read = parse_psql(part.text)
                    pieces += [
                        (first + part.start + s, first + part.start + e, tree, text_read, first + part.start)
                        for s, e, tree in read
                    ]
                except SyntaxProblem as problem:
                    at = first + part.start + problem.offset
                    errors.append(ParseError(path, lines.line(at), problem.message, lines.column(at)))
                    # the statement stands in the replay as the table it creates, where its head says
                    at = first + part.start
                    pieces.append((at, at + len(part.text), None, part.text, at))
        offsets = None
        for start, end, tree, parsed, origin in pieces:
            if split is None:  # comments before the statement are not part of it
                start = after_comments(shown, start, end)
            body = shown[start:end]
            sql = body.strip().rstrip(";").rstrip()
            if not sql:
                continue
            lead = len(body) - len(body.lstrip())
            offset = start + lead
            if tree is None:
                location = Location(path, lines.line(offset), lines.column(offset), next_seq())
                unread = unread_create_table(sql, location, _POSTGRES)
                if unread is not None:
                    unread.end_line = lines.line(offset + len(sql) - 1)
                    yield unread.end_line, [unread]
                continue
            local = offset - origin
            if offsets is None or offsets.text is not parsed:  # one table per batch, not per statement
                offsets = Offsets(parsed)
            base = offsets.bytes(local)
            stmt = _statement(tree, parsed[local : end - origin], base, sql, path, lines, offset, errors, long_here)
            if stmt is None:
                continue
            end_line = lines.line(start + len(body.rstrip()) - 1)
            yield end_line, [stmt, *_embedded(stmt, path, errors)]


def _parsed_batches(text: str) -> Iterator[tuple[int, str, list | None]]:
    """(offset, batch, its statements or None when the grammar refuses it), for batches of about
    _BATCH characters cut at statement ends.

    A batch is first cut after the last `;` ending a line before its size: a cut inside a string,
    a comment or a body leaves the batch unfinished, which the grammar refuses, and only then does
    PostgreSQL's scanner find where the statements end (a scan of the whole text that costs a third
    as much as parsing it)."""
    first, ends = 0, None
    while first < len(text):
        guessed = ends is None and len(text) - first > _BATCH
        if guessed:
            cut = text.rfind(";\n", first, first + _BATCH)
            if cut < 0:
                ends = statement_ends(text)
                continue
            last = cut + 1
        else:
            at = bisect.bisect_left(ends or [], first + _BATCH)
            last = ends[at] if ends and at < len(ends) else len(text)
        batch = text[first:last]
        try:
            read = parse(batch)
        except SyntaxProblem:
            if guessed:
                ends = statement_ends(text)
                continue
            read = None
        yield first, batch, read
        first = last


def _statement(
    tree,
    parsed_sql: str,
    base: int,
    shown_sql: str,
    path: str,
    lines: Lines,
    offset: int,
    errors: list[ParseError],
    long_here: bool = True,
) -> Statement | None:
    location = Location(path, lines.line(offset), lines.column(offset), next_seq())
    try:
        op, unqualified = read_op(tree, Source(parsed_sql, base))
        long = long_names(shown_sql) if long_here else ()
    except Exception as e:  # a reader bug must not stop the other statements and files
        errors.append(ParseError(path, location.line, f"internal error reading this statement: {e!r}"))
        return None
    end_line = lines.line(offset + len(shown_sql) - 1)
    return Statement(
        shown_sql,
        location,
        _POSTGRES,
        op,
        end_line=end_line,
        unqualified=unqualified,
        long_names=long,
    )


def _embedded(stmt: Statement, path: str, errors: list[ParseError]) -> list[Statement]:
    """DDL inside a DO block, read as statements of their own."""
    if not isinstance(stmt.op, Other) or stmt.op.what not in ("DO", "DO block"):
        return []
    out = []
    for text, line, column in embedded_ddl(stmt.sql, stmt.location.line, stmt.location.column, _POSTGRES, {}):
        try:
            parsed = parse(text)
        except SyntaxProblem:
            continue  # DDL assembled at run time, or not DDL after all
        for s, e, tree in parsed:
            try:
                op, unqualified = read_op(tree, Source(text[s:e], 0))
            except Exception:
                continue
            out.append(
                Statement(
                    text[s:e].strip(),
                    Location(path, line, column, next_seq()),
                    _POSTGRES,
                    op,
                    end_line=line + text.count("\n"),
                    embedded=True,
                    unqualified=unqualified,
                )
            )
    return out
