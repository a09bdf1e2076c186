"""Split a SQL file into statements with exact positions.

The splitter blanks what is not SQL (comments, `COPY ... FROM stdin` data, psql
meta-commands, `DELIMITER` lines) with spaces, keeping every newline, so offsets,
lines and columns in the blanked text are those of the original file. MySQL
executable comments (`/*!50100 PARTITION BY ... */`) are real DDL: only their
markers are blanked and the content stays.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

MYSQL_FAMILY = frozenset({"mysql", "mariadb"})

_SCAN = {
    "mysql": re.compile(r"'|\"|`|--|#|/\*|;|\n"),
    "postgres": re.compile(r"'|\"|--|/\*|\$(?:[A-Za-z_][A-Za-z_0-9]*)?\$|;|\n"),
}
# the same without stopping at every newline, for files with no line-level construct
_SCAN_FAST = {family: re.compile(pattern.pattern.removesuffix(r"|\n")) for family, pattern in _SCAN.items()}
_LINE_CONSTRUCT = re.compile(r"^[ \t]*(?:DELIMITER\b|\\)", re.I | re.M)
_COMPOUND = re.compile(
    r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?"
    r"(?:PROCEDURE|FUNCTION|TRIGGER|EVENT)\b",
    re.I,
)
_BLOCK_WORDS = re.compile(r"\b(BEGIN|CASE|END)\b(\s+(?:IF|LOOP|WHILE|REPEAT|CASE)\b)?", re.I)
_COPY_STDIN = re.compile(r"^\s*COPY\b.*\bFROM\s+STDIN\b", re.I | re.S)
_DELIMITER = re.compile(r"[ \t]*DELIMITER[ \t]+(\S+)[ \t]*(?=\n|$)", re.I)
_EXEC_COMMENT = re.compile(r"/\*M?!\d*")
_COPY_END = re.compile(r"^\\\.[ \t]*$", re.M)


@dataclass
class Comment:
    line: int
    end_line: int
    text: str


@dataclass
class Chunk:
    """One statement's text (comments blanked), with its position."""

    text: str
    start: int  # offset of its first character in the file
    line: int
    column: int
    end_line: int


@dataclass
class Split:
    chunks: list[Chunk] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)  # (line, message)


class _Lines:
    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def column(self, offset: int) -> int:
        return offset - self.starts[self.line(offset) - 1] + 1


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def _block_depth(code: str) -> int:
    depth = 0
    for m in _BLOCK_WORDS.finditer(code):
        word = m.group(1).upper()
        if word in ("BEGIN", "CASE"):
            depth += 1
        elif not m.group(2) or m.group(2).strip().upper() == "CASE":
            depth -= 1
    return depth


def split_sql(text: str, dialect: str) -> Split:
    """Split `text`; unterminated strings and comments are reported, not fatal."""
    family = "mysql" if dialect in MYSQL_FAMILY else "postgres"
    # stopping at newlines is only needed to see DELIMITER lines and psql meta-commands
    scan = (_SCAN if _LINE_CONSTRUCT.search(text) else _SCAN_FAST)[family]
    lines = _Lines(text)
    result = Split()
    cur: list[str] = []  # blanked pieces of the current statement
    started = False  # the current statement has code in it
    stmt_start = 0
    delimiter = ";"
    i, n = 0, len(text)

    def emit(piece: str, code: bool = True) -> None:
        nonlocal started
        cur.append(piece)
        if code and not started and piece.strip():
            started = True

    def end_statement(end: int) -> None:
        nonlocal stmt_start, started
        body = "".join(cur)
        stripped = body.strip()
        if stripped:
            start = stmt_start + len(body) - len(body.lstrip())
            result.chunks.append(
                Chunk(stripped, start, lines.line(start), lines.column(start),
                      lines.line(stmt_start + len(body.rstrip()) - 1))
            )
        cur.clear()
        started = False
        stmt_start = end

    def skip_to(stop: int) -> None:
        """Blank text[i:stop] outside any statement."""
        nonlocal i
        emit(_blank(text[i:stop]), code=False)
        i = stop

    while i < n:
        if not started and (i == 0 or text[i - 1] == "\n"):
            if family == "mysql":
                m = _DELIMITER.match(text, i)
                if m:
                    delimiter = m.group(1)
                    skip_to(m.end())
                    continue
            elif text.startswith("\\", i):  # psql meta-command, ends with its line
                eol = text.find("\n", i)
                skip_to(n if eol < 0 else eol)
                continue

        m = scan.search(text, i)
        if delimiter != ";":
            d = text.find(delimiter, i)
            if d >= 0 and (m is None or d < m.start()):
                emit(text[i:d])
                end_statement(d)
                emit(" " * len(delimiter), code=False)
                i = d + len(delimiter)
                continue
        if m is None:
            emit(text[i:])
            break
        emit(text[i : m.start()])
        tok, pos = m.group(0), m.start()
        i = m.end()
        if tok == "\n":
            emit("\n", code=False)
        elif tok == ";":
            if delimiter != ";":
                emit(";")
                continue
            so_far = "".join(cur)
            if _COMPOUND.match(so_far) and _block_depth(so_far) > 0:
                emit(";")  # inside a routine body: not the end of the statement
                continue
            end_statement(pos)
            emit(" ", code=False)
            if family == "postgres" and _COPY_STDIN.match(so_far):
                # data rows follow until a line holding only "\."
                end = _COPY_END.search(text, i)
                skip_to(n if end is None else end.end())
        elif tok in ("--", "#"):
            if tok == "--" and family == "mysql" and text[i : i + 1] not in ("", " ", "\t", "\n", "\r"):
                emit(tok)  # MySQL needs whitespace after "--"; otherwise it is an operator
                continue
            eol = text.find("\n", pos)
            eol = n if eol < 0 else eol
            result.comments.append(Comment(lines.line(pos), lines.line(pos), text[pos:eol]))
            emit(_blank(text[pos:eol]), code=False)
            i = eol
        elif tok == "/*":
            close = _find_comment_end(text, pos, nested=family == "postgres")
            if close < 0:
                result.errors.append((lines.line(pos), "unterminated /* comment"))
                emit(_blank(text[pos:]), code=False)
                i = n
                continue
            ex = _EXEC_COMMENT.match(text, pos) if family == "mysql" else None
            if ex:  # executable comment: its content is code, only the markers are blanked
                emit(" " * (ex.end() - pos), code=False)
                emit(_blank_inner(text[ex.end() : close - 2], dialect))
                emit("  ", code=False)
            else:
                result.comments.append(Comment(lines.line(pos), lines.line(close), text[pos:close]))
                emit(_blank(text[pos:close]), code=False)
            i = close
        else:  # a quoted string or name, or a dollar-quoted body
            close = _find_quote_end(text, pos, tok, family)
            if close < 0:
                result.errors.append((lines.line(pos), f"unterminated {_quote_name(tok)} starting here"))
                emit(text[pos:])
                i = n
                continue
            emit(text[pos:close])
            i = close
    end_statement(n)
    return result


def _quote_name(tok: str) -> str:
    return {"'": "string", '"': "quoted name", "`": "quoted name"}.get(tok, f"{tok} body")


def _find_comment_end(text: str, pos: int, nested: bool) -> int:
    if not nested:
        end = text.find("*/", pos + 2)
        return -1 if end < 0 else end + 2
    depth, i = 0, pos
    while True:
        m = re.compile(r"/\*|\*/").search(text, i)
        if m is None:
            return -1
        depth += 1 if m.group(0) == "/*" else -1
        i = m.end()
        if depth == 0:
            return i


def _find_quote_end(text: str, pos: int, tok: str, family: str) -> int:
    if tok.startswith("$"):
        end = text.find(tok, pos + len(tok))
        return -1 if end < 0 else end + len(tok)
    backslash = family == "mysql" and tok != "`" or (
        family == "postgres" and tok == "'" and pos > 0 and text[pos - 1] in "eE"
    )
    i = pos + 1
    n = len(text)
    while i < n:
        c = text[i]
        if backslash and c == "\\":
            i += 2
            continue
        if c == tok:
            if i + 1 < n and text[i + 1] == tok:  # doubled quote
                i += 2
                continue
            return i + 1
        i += 1
    return -1


def _blank_inner(inner: str, dialect: str) -> str:
    """Blank comments inside an executable comment, keeping its code."""
    if "--" not in inner and "#" not in inner and "/*" not in inner:
        return inner
    sub = split_sql(inner, dialect)
    # rebuild: chunks at their offsets, everything else blank
    buf = list(_blank(inner))
    for ch in sub.chunks:
        buf[ch.start : ch.start + len(ch.text)] = ch.text
    return "".join(buf)
