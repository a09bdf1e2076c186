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
from dataclasses import field

from schemacite.model.dialects import MYSQL_FAMILY, Dialect
from schemacite.model.record import record
from schemacite.sources.patterns import Pattern

_SCAN = {
    Dialect.MYSQL: Pattern(r"'|\"|`|--|#|/\*|;|\n"),
    Dialect.POSTGRES: Pattern(r"'|\"|--|/\*|\$(?:[A-Za-z_][A-Za-z_0-9]*)?\$|;|\n|\\"),
}
# Files with no line-level construct (no DELIMITER, no psql meta-command) are scanned faster:
# one match skips plain code and whole quoted strings and stops at the next token that needs
# work, so a dump's thousands of quoted names cost no Python step each. A quote, `$` or
# backtick left as the token opens a string that never ends.
_SKIP = {  # a run reads one dialect: each compiled when first used
    Dialect.MYSQL: Pattern(
        r"(?:[^'\"`;#/\-]+"
        r"|'(?:[^'\\]|\\[\s\S]|'')*'"
        r'|"(?:[^"\\]|\\[\s\S]|"")*"'
        r"|`(?:[^`]|``)*`"
        r"|/(?!\*)|-(?!-))*"
        r"(?P<tok>;|--|#|/\*|['\"`]|\Z)"
    ),
    Dialect.POSTGRES: Pattern(
        r"(?:[^'\"$;/\-eE]+|[eE](?!')"
        r"|[eE]'(?:[^'\\]|\\[\s\S]|'')*'"
        r"|'(?:[^']|'')*'"
        r'|"(?:[^"]|"")*"'
        r"|\$(?P<dq>[A-Za-z_][A-Za-z_0-9]*|)\$[\s\S]*?\$(?P=dq)\$"
        r"|\$(?!(?:[A-Za-z_][A-Za-z_0-9]*)?\$)"
        r"|/(?!\*)|-(?!-))*"
        r"(?P<tok>;|--|/\*|['\"$]|\Z)"
    ),
}
# psql meta-commands that send the query typed so far, as `;` does, wherever they stand on a line
# (`SELECT id FROM t \gset`); any other one in mid-line runs and leaves the query open
PSQL_SENDS = Pattern(r"\\(?:g|gx|gset|gexec|gdesc|crosstabview|watch)(?![A-Za-z])")
_LINE_CONSTRUCT = Pattern(r"^[ \t]*(?:DELIMITER\b|\\|source[ \t])|" + PSQL_SENDS.pattern, re.I | re.M)
# files another file pulls in: psql's \i and \ir (\include, \include_relative), the mysql
# client's `source` and `\.`; \ir is relative to the including file, the others to the
# directory the client runs in
_PSQL_INCLUDE = Pattern(r"\\(ir|include_relative|i|include)[ \t]+(\S.*?)[ \t]*(?=\n|$)")
_MYSQL_INCLUDE = Pattern(r"[ \t]*(?:source|\\\.)[ \t]+(\S.*?)[ \t]*;?[ \t]*(?=\n|$)", re.I)
_COMPOUND = Pattern(
    r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?"
    r"(?:PROCEDURE|FUNCTION|TRIGGER|EVENT)\b",
    re.I,
)
_BLOCK_WORDS = Pattern(r"\b(BEGIN|CASE|END)\b(\s+(?:IF|LOOP|WHILE|REPEAT|CASE)\b)?", re.I)
_COPY_STDIN = Pattern(r"^\s*COPY\b.*\bFROM\s+STDIN\b", re.I | re.S)
_DELIMITER = Pattern(r"[ \t]*DELIMITER[ \t]+(\S+)[ \t]*(?=\n|$)", re.I)
_EXEC_COMMENT = Pattern(r"/\*M?!\d*")
_COPY_END = Pattern(r"^\\\.[ \t]*$", re.M)
_OPENERS = frozenset({"'", '"', "`", "$"})


@record
class Comment:
    """A comment of the file, with the lines it spans."""

    line: int
    end_line: int
    text: str
    start: int = 0  # offsets in the file
    stop: int = 0


@record
class Chunk:
    """One statement's text (comments blanked), with its position."""

    text: str
    start: int  # offset of its first character in the file
    line: int
    column: int
    end_line: int


@record
class Split:
    """A file split into statements, with what is not SQL set aside."""

    chunks: list[Chunk] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)  # (line, message)
    includes: list[tuple[int, str, bool]] = field(default_factory=list)  # (line, path, relative to this file)
    non_sql: list[tuple[int, int]] = field(default_factory=list)  # psql meta-commands, COPY data: (start, stop)
    sends: list[int] = field(default_factory=list)  # where a psql meta-command sends the query, as `;` would


class Lines:
    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.length = len(text)

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def column(self, offset: int) -> int:
        return offset - self.starts[self.line(offset) - 1] + 1

    def offset(self, line: int, column: int) -> int:
        """The offset of (line, column), both from 1; a line past the end is the end."""
        return self.starts[line - 1] + column - 1 if line <= len(self.starts) else self.length


def _blank(s: str) -> str:
    if "\n" not in s:
        return " " * len(s)
    return "\n".join(" " * len(part) for part in s.split("\n"))


def _block_depth(code: str) -> int:
    depth = 0
    for m in _BLOCK_WORDS.finditer(code):
        word = m.group(1).upper()
        if word in ("BEGIN", "CASE"):
            depth += 1
        elif not m.group(2) or m.group(2).strip().upper() == "CASE":
            depth -= 1
    return depth


def blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the given spans blanked (newlines kept, so positions stay the same)."""
    if not spans:
        return text
    out, last = [], 0
    for start, stop in spans:
        out += [text[last:start], _blank(text[start:stop])]
        last = stop
    out.append(text[last:])
    return "".join(out)


def split_sql(text: str, dialect: str) -> Split:
    """Split `text`; unterminated strings and comments are reported, not fatal."""
    return _Splitter(text, dialect).run()


class _Splitter:
    """One scan of a text, statement by statement."""

    def __init__(self, text: str, dialect: str):
        self.text, self.dialect = text, dialect
        # MySQL's SQL (MariaDB's too), else PostgreSQL's: a flag, as the scan asks once a token
        self.mysql = dialect in MYSQL_FAMILY
        # stopping at newlines is only needed to see DELIMITER lines and psql meta-commands
        self.line_mode = _LINE_CONSTRUCT.search(text) is not None
        self.scan = (_SCAN if self.line_mode else _SKIP)[Dialect.MYSQL if self.mysql else Dialect.POSTGRES]
        self.lines = Lines(text)
        self.result = Split()
        # The current statement is `cur` (pieces already blanked where needed) followed by the
        # untouched text[seg:i]: code and quoted text are copied only when a blank must follow.
        self.cur: list[str] = []
        self.seg = 0
        self.stmt_start = 0
        self.delimiter = ";"
        self.n = len(text)

    def run(self) -> Split:
        # the scan's own names as locals: the loop below runs once a token
        text, n, scan, line_mode, mysql = self.text, self.n, self.scan, self.line_mode, self.mysql
        lines, result = self.lines, self.result
        i = 0
        while i < n:
            if line_mode and (i == 0 or text[i - 1] == "\n") and not self.has_code(i):
                after = self.directive(i)
                if after >= 0:
                    i = after
                    continue

            if not line_mode:
                m = scan.match(text, i)
                tok, pos = m.group("tok"), m.start("tok")
                if not tok:
                    break
                i = m.end()
                if tok in _OPENERS:
                    result.errors.append((lines.line(pos), f"unterminated {_quote_name(tok)} starting here"))
                    i = n
                    continue
            else:
                m = scan.search(text, i)
            if self.delimiter != ";":
                d = text.find(self.delimiter, i)
                if d >= 0 and (m is None or d < m.start()):
                    self.end_statement(d)
                    self.blank(d, d + len(self.delimiter))
                    i = d + len(self.delimiter)
                    continue
            if line_mode:
                if m is None:
                    break
                tok, pos = m.group(0), m.start()
                i = m.end()
            if tok == "\n":
                continue
            if tok == "\\":  # a psql meta-command after code on its line: the rest of the line is its own
                eol = text.find("\n", pos)
                eol = n if eol < 0 else eol
                if PSQL_SENDS.match(text, pos):
                    self.end_statement(pos)
                    result.sends.append(pos)
                result.non_sql.append((pos, eol))
                self.blank(pos, eol)
                i = eol
                continue
            if tok == ";":
                i = self.semicolon(pos, i)
            elif tok in ("--", "#"):
                i = self.line_comment(tok, pos, i)
            elif tok == "/*":
                i = self.block_comment(pos)
            else:  # a quoted string or name, or a dollar-quoted body: kept as it is
                close = _find_quote_end(text, pos, tok, mysql)
                if close < 0:
                    result.errors.append((lines.line(pos), f"unterminated {_quote_name(tok)} starting here"))
                    i = n
                    continue
                i = close
        self.end_statement(n)
        return result

    def flush(self, upto: int) -> None:
        if self.seg < upto:
            self.cur.append(self.text[self.seg : upto])
        self.seg = upto

    def blank(self, start: int, stop: int, keep: str | None = None) -> None:
        """text[start:stop] becomes spaces (newlines kept), or `keep` (same length)."""
        self.flush(start)
        self.cur.append(_blank(self.text[start:stop]) if keep is None else keep)
        self.seg = stop

    def has_code(self, upto: int) -> bool:
        return any(p.strip() for p in self.cur) or bool(self.text[self.seg : upto].strip())

    def end_statement(self, end: int) -> None:
        self.flush(end)
        body = "".join(self.cur)
        stripped = body.strip()
        if stripped:
            start = self.stmt_start + len(body) - len(body.lstrip())
            self.result.chunks.append(
                Chunk(
                    stripped,
                    start,
                    self.lines.line(start),
                    self.lines.column(start),
                    self.lines.line(self.stmt_start + len(body.rstrip()) - 1),
                )
            )
        self.cur.clear()
        self.stmt_start = end

    def directive(self, i: int) -> int:
        """At the start of a line with no code before it: a DELIMITER or include line (MySQL) or a
        psql meta-command, blanked; returns where the scan goes on, or -1 when there is none."""
        if self.mysql:
            m = _DELIMITER.match(self.text, i)
            if m:
                self.delimiter = m.group(1)
                self.blank(i, m.end())
                return m.end()
            m = _MYSQL_INCLUDE.match(self.text, i)
            if m:
                self.result.includes.append((self.lines.line(i), _unquote_path(m.group(1)), False))
                self.blank(i, m.end())
                return m.end()
        elif self.text.startswith("\\", i):  # psql meta-command, ends with its line
            eol = self.text.find("\n", i)
            eol = self.n if eol < 0 else eol
            m = _PSQL_INCLUDE.match(self.text, i, eol)
            if m:
                self.result.includes.append(
                    (self.lines.line(i), _unquote_path(m.group(2)), m.group(1) in ("ir", "include_relative"))
                )
            self.result.non_sql.append((i, eol))
            self.blank(i, eol)
            return eol
        return -1

    def semicolon(self, pos: int, i: int) -> int:
        """A `;` at `pos`: the end of a statement, unless a DELIMITER is set or a routine body is
        open; after COPY ... FROM stdin the data rows are skipped. Returns where the scan goes on."""
        if self.delimiter != ";":
            return i
        self.flush(pos)
        so_far = "".join(self.cur)
        if _COMPOUND.match(so_far) and _block_depth(so_far) > 0:
            return i  # inside a routine body: not the end of the statement
        self.end_statement(pos)
        self.blank(pos, i)
        if not self.mysql and _COPY_STDIN.match(so_far):
            # data rows follow until a line holding only "\."
            end = _COPY_END.search(self.text, i)
            stop = self.n if end is None else end.end()
            self.result.non_sql.append((i, stop))
            self.blank(i, stop)
            return stop
        return i

    def line_comment(self, tok: str, pos: int, i: int) -> int:
        """A `--` or `#` comment at `pos`, blanked to the end of its line; returns where the scan goes on."""
        if (
            tok == "--"
            and self.mysql
            and self.text[i : i + 1] not in ("", " ", "\t", "\n", "\r")
            and self.has_code(pos)
        ):
            # MySQL needs whitespace after "--": inside a statement it is an operator. Before one
            # (`--DROP PROCEDURE ...` on a line of its own) the server would refuse it, so a deploy
            # that runs passes it through a runner that reads it as a comment, as this does.
            return i
        eol = self.text.find("\n", pos)
        eol = self.n if eol < 0 else eol
        self.result.comments.append(Comment(self.lines.line(pos), self.lines.line(pos), self.text[pos:eol], pos, eol))
        self.blank(pos, eol)
        return eol

    def block_comment(self, pos: int) -> int:
        """A /* comment at `pos`, blanked (but for an executable comment's content); returns its end."""
        close = _find_comment_end(self.text, pos, nested=not self.mysql)
        if close < 0:
            self.result.errors.append((self.lines.line(pos), "unterminated /* comment"))
            self.blank(pos, self.n)
            return self.n
        ex = _EXEC_COMMENT.match(self.text, pos) if self.mysql else None
        if ex and self.text[ex.end() : close].lstrip().startswith("\\"):
            ex = None  # `/*M!999999\- enable the sandbox mode */`: a command to the mysql client, not SQL
        if ex:  # executable comment: its content is code, only the markers are blanked
            self.blank(pos, ex.end())
            self.blank(ex.end(), close - 2, _blank_inner(self.text[ex.end() : close - 2], self.dialect))
            self.blank(close - 2, close)
        else:
            self.result.comments.append(
                Comment(self.lines.line(pos), self.lines.line(close), self.text[pos:close], pos, close)
            )
            self.blank(pos, close)
        return close


def _unquote_path(path: str) -> str:
    return path[1:-1] if len(path) > 1 and path[0] == path[-1] and path[0] in "'\"" else path


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


# a quoted run from its opening quote: doubled quotes always, backslash escapes where the
# server reads them (MySQL strings and "names", PostgreSQL E'...' strings)
_QUOTED: dict[tuple[str, bool], Pattern] = {}
for _q in ("'", '"', "`"):
    _e = re.escape(_q)
    # "unrolled" forms: no backtracking between alternatives on long strings
    _QUOTED[(_q, True)] = Pattern(rf"{_e}[^{_e}\\]*(?:(?:\\.|{_e}{_e})[^{_e}\\]*)*{_e}", re.S)
    _QUOTED[(_q, False)] = Pattern(rf"{_e}[^{_e}]*(?:{_e}{_e}[^{_e}]*)*{_e}")


def _find_quote_end(text: str, pos: int, tok: str, mysql: bool) -> int:
    if tok.startswith("$"):
        end = text.find(tok, pos + len(tok))
        return -1 if end < 0 else end + len(tok)
    backslash = mysql and tok != "`" or (not mysql and tok == "'" and pos > 0 and text[pos - 1] in "eE")
    m = _QUOTED[(tok, backslash)].match(text, pos)
    return m.end() if m else -1


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
