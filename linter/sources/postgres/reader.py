"""PostgreSQL files read by PostgreSQL's own grammar (pglast, libpg_query: the PostgreSQL 18 parser).

The file goes to the parser whole, with only what is not SQL blanked out first (psql
meta-commands, COPY data; see `sources.split`), and the parser splits it. When it refuses the
file, each statement is parsed on its own so that one bad statement costs only itself, and the
error carries PostgreSQL's message at its line and column.

Each parse tree becomes a typed `Op` (model.statements) by the builders below, which switch on
the node type and, inside ALTER TABLE, on `AlterTableCmd.subtype`, the enumeration PostgreSQL's
own lock-level choice switches on. Expressions are kept as the text they were written in (cut
from the source by PostgreSQL's scanner), with the functions they call.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

from schemacite.model.casts import longer_than, unquoted
from schemacite.model.schema import Check, Column, ForeignKey, Index, Partitioning, Table
from schemacite.model.statements import (
    Action,
    AddCheck,
    AddColumn,
    AddForeignKey,
    AddKey,
    AlterColumnType,
    AlterDomain,
    AlterEnum,
    AlterIndex,
    AlterPolicy,
    AlterSequence,
    AlterTable,
    AlterView,
    Analyze,
    Begin,
    Cluster,
    Comment,
    Commit,
    ConstraintAction,
    CopyFrom,
    CreateDomain,
    CreateEnum,
    CreateIndex,
    CreateMatview,
    CreateObject,
    CreatePartition,
    CreatePolicy,
    CreateRoutine,
    CreateRule,
    CreateSchema,
    CreateSequence,
    CreateStatistics,
    CreateTable,
    CreateTableAs,
    CreateTableLike,
    CreateTrigger,
    CreateView,
    Delete,
    DoBlock,
    DropColumn,
    DropIndex,
    DropObjects,
    DropPolicy,
    DropRule,
    DropSequence,
    DropTable,
    DropTrigger,
    DropView,
    Grant,
    IndexAction,
    Inherit,
    Insert,
    LockTable,
    Merge,
    Op,
    Option,
    Other,
    PartitionAction,
    Publication,
    RefreshMatview,
    Reindex,
    Rename,
    RenameEnumValue,
    RenameSchema,
    RenameType,
    RunsUnseen,
    Select,
    SetDefault,
    SetVariable,
    Truncate,
    Update,
    Vacuum,
)
from schemacite.sources.names import quoted_name, relation_key, tokenize
from schemacite.sources.patterns import Pattern
from schemacite.sources.postgres import parser as pg
from schemacite.sources.postgres.types import SERIAL_TYPES

Node = dict[str, Any]
LOCK_MODES = {
    1: "ACCESS SHARE",
    2: "ROW SHARE",
    3: "ROW EXCLUSIVE",
    4: "SHARE UPDATE EXCLUSIVE",
    5: "SHARE",
    6: "SHARE ROW EXCLUSIVE",
    7: "EXCLUSIVE",
    8: "ACCESS EXCLUSIVE",
}


class SyntaxProblem(ValueError):
    """PostgreSQL refused the text: `message` at character `offset` of it."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message, self.offset = message, offset


# ---------------------------------------------------------------- parsing


def parse(text: str) -> list[tuple[int, int, Node]]:
    """(start, end, tree) of every statement of `text`, offsets in characters. SyntaxProblem when
    PostgreSQL refuses it."""
    try:
        doc = json.loads(pg.parse_sql_json(text))
    except pg.ParseError as e:
        message = e.args[0]
        index = e.args[1] if len(e.args) > 1 and isinstance(e.args[1], int) else None
        raise SyntaxProblem(str(message), len(text) if index is None else Offsets(text).chars(index)) from None
    offsets = Offsets(text)
    out = []
    for raw in doc.get("stmts", []):
        start = raw.get("stmt_location", 0)
        length = raw.get("stmt_len", 0)
        end = start + length if length else offsets.size
        out.append((offsets.chars(start), offsets.chars(end), raw["stmt"]))
    return out


def statement_ends(text: str) -> list[int]:
    """Character offsets just past each statement's end, as PostgreSQL's scanner sees them (a place
    to cut a long file into batches); empty when the scanner cannot read the text."""
    try:
        return [s.stop + 1 for s in pg.split(text, with_parser=False, only_slices=True)]
    except pg.ParseError:
        return []


def parse_psql(text: str) -> tuple[list[tuple[int, int, Node]], str]:
    """`parse`, and for a statement PostgreSQL refuses because it uses psql variables (`:name`,
    `:'name'`, `:"name"`, which psql fills in from `\\set` or `-v` before the server sees the
    text), a second reading with each standing for its own name (` name`, ` 'name'`, ` "name"`:
    the same length, so every offset holds). Returns the statements and the text they were read
    from; SyntaxProblem when the second reading fails too, with the first one's message."""
    try:
        return parse(text), text
    except SyntaxProblem as problem:
        named = _psql_variables_as_names(text)
        if named is None:
            raise
        try:
            return parse(named), named
        except SyntaxProblem:
            raise problem from None


def _psql_variables_as_names(text: str) -> str | None:
    try:
        tokens = pg.scan(text)
    except pg.ParseError:
        return None
    colons = [
        tok.start
        for tok, nxt in zip(tokens, tokens[1:])
        if tok.name == "ASCII_58"
        and nxt.start == tok.end + 1
        and (text[nxt.start].isalpha() or text[nxt.start] in "_'\"")
    ]
    if not colons:
        return None
    chars = list(text)
    for at in colons:
        chars[at] = " "
    return "".join(chars)


class Offsets:
    """Character and UTF-8 byte offsets of one text, either way (the same for ASCII text)."""

    def __init__(self, text: str):
        self.ascii = text.isascii()
        self.text = text
        self.size = len(text) if self.ascii else len(text.encode())
        self._starts: list[int] | None = None

    def chars(self, byte_offset: int) -> int:
        return byte_offset if self.ascii else bisect.bisect_left(self._byte_starts(), byte_offset)

    def bytes(self, char_offset: int) -> int:
        return char_offset if self.ascii else self._byte_starts()[char_offset]

    def _byte_starts(self) -> list[int]:
        """The byte offset of every character, worked out once per text."""
        if self._starts is None:
            self._starts = list(itertools.accumulate((len(c.encode()) for c in self.text), initial=0))
        return self._starts


# ---------------------------------------------------------------- source text of expressions


class Source:
    """One statement's text, for cutting out the expressions its tree only locates. Tree locations
    are byte offsets into the parsed text; the scanner's token offsets are characters of the
    statement."""

    def __init__(self, sql: str, base: int):
        self.sql = sql
        self.base = base  # byte offset of the statement in the parsed text
        self._tokens: list | None = None
        self._starts: list[int] = []
        self._bytes = None if sql.isascii() else sql.encode()

    def tokens(self) -> list:
        if self._tokens is None:
            self._tokens = pg.scan(self.sql)
            self._starts = [t.start for t in self._tokens]
        return self._tokens

    def _char(self, location: int) -> int:
        rel = location - self.base
        return rel if self._bytes is None else len(self._bytes[:rel].decode(errors="ignore"))

    def _at(self, location: int) -> int:
        """Index of the first token at or after tree `location`."""
        self.tokens()
        return bisect.bisect_left(self._starts, self._char(location))

    def cut(self, start: int, end: int) -> str:
        return self.sql[start:end].strip()

    def expression(self, location: int | None, until: frozenset[str] = frozenset()) -> str:
        """The expression whose first token is at tree `location`."""
        if location is None or location < 0:
            return ""
        first = self._at(location)
        return "" if first >= len(self.tokens()) else self._from(first, until)

    def after(self, keyword: str, location: int | None, until: frozenset[str] = frozenset()) -> str:
        """The expression written after the last `keyword` before tree `location` (a DEFAULT, a
        USING): an expression's own location may sit inside its parentheses."""
        if location is None or location < 0:
            return ""
        toks = self.tokens()
        k = self._at(location) - 1
        while k >= 0 and toks[k].name != keyword:
            k -= 1
        return "" if k < 0 else self._from(k + 1, until)

    def inside(self, location: int | None) -> str:
        """The text inside the first parentheses at or after tree `location` (CHECK (...),
        GENERATED ALWAYS AS (...))."""
        if location is None or location < 0:
            return ""
        toks = self.tokens()
        first = self._at(location)
        while first < len(toks) and toks[first].name != "ASCII_40":
            first += 1
        if first >= len(toks):
            return ""
        depth = 0
        for i in range(first, len(toks)):
            name = toks[i].name
            if name == "ASCII_40":
                depth += 1
            elif name == "ASCII_41":
                depth -= 1
                if depth == 0:
                    return self.cut(toks[first].end + 1, toks[i].start)
        return self.cut(toks[first].end + 1, len(self.sql))

    def _from(self, first: int, until: frozenset[str]) -> str:
        toks = self.tokens()
        depth, end = 0, None
        for i in range(first, len(toks)):
            tok = toks[i]
            name = tok.name
            if name == "ASCII_40":
                depth += 1
            elif name == "ASCII_41":
                if depth == 0:
                    end = tok.start
                    break
                depth -= 1
            elif depth == 0 and (name in ("ASCII_44", "ASCII_59") or (i > first and name in until)):
                end = tok.start
                break
        return self.cut(toks[first].start, end if end is not None else len(self.sql))


# words that end a column's DEFAULT expression: the next clause of the column definition
_AFTER_DEFAULT = frozenset(
    {
        "NOT",
        "NULL_P",
        "CONSTRAINT",
        "CHECK",
        "DEFAULT",
        "GENERATED",
        "REFERENCES",
        "PRIMARY",
        "UNIQUE",
        "COLLATE",
        "DEFERRABLE",
        "INITIALLY",
    }
)


# ---------------------------------------------------------------- tree helpers


def _strings(nodes: list[Node] | None) -> list[str]:
    return [n["String"]["sval"] for n in nodes or [] if "String" in n]


# the relation names the statement being built leaves unqualified: the search path in force where
# it runs decides their schema (replay resolves them)
_UNQUALIFIED: ContextVar[set[str] | None] = ContextVar("unqualified", default=None)


def key_of(schema: str | None, name: str) -> str:
    """The model's key for a relation (see names.relation_key)."""
    key = relation_key(schema, name)
    seen = _UNQUALIFIED.get()
    if not schema and seen is not None:
        seen.add(key)
    return key


def read_op(tree: Node, src: Source) -> tuple[Op, frozenset[str]]:
    """The typed Op of one statement's parse tree, and the keys of the relations it names
    without a schema."""
    seen: set[str] = set()
    token = _UNQUALIFIED.set(seen)
    try:
        return build(tree, src), frozenset(seen)
    finally:
        _UNQUALIFIED.reset(token)


@functools.lru_cache(maxsize=256)
def constants(sql: str) -> tuple[frozenset[str], frozenset[str]]:
    """The string constants a statement holds, and the types it names (casts, column definitions),
    spelled as `column_type` spells them. Read again from its text when a rule asks (rarely: walking
    every tree at read time cost a sixth of a corpus run)."""
    try:
        trees = [tree for _, _, tree in parse(sql)]
    except SyntaxProblem:
        return frozenset(), frozenset()
    strings: set[str] = set()
    types: set[str] = set()
    stack: list[Any] = list(trees)
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            sval = n.get("sval")
            if isinstance(sval, dict) and isinstance(sval.get("sval"), str):
                strings.add(sval["sval"])  # an A_Const's string
            type_name = n.get("typeName")
            if isinstance(type_name, dict) and type_name.get("names"):
                types.add(column_type(type_name)[1].partition("[")[0])
            stack.extend(n.values())
        elif isinstance(n, list):
            stack.extend(n)
    return frozenset(strings), frozenset(types)


NAME_BYTES = 63  # NAMEDATALEN - 1: the parser keeps the first 63 bytes of a name
_LONG_RUN = re.compile(r"[^\s(),;.'\"]{64}")
_LONG_QUOTED = re.compile(r'"(?:[^"]|""){64}')


def may_hold_long_names(sql: str) -> bool:
    """Whether the text may hold a name over 63 bytes: 64 ASCII characters in a row, a quoted name
    of 64, or any other character (16 of which can make 64 bytes). Every text read is screened, so
    the common case is a split in C, not a regular expression tried at each character: only a word
    of 64 characters or more is searched."""
    if not sql.isascii() or any(len(word) >= 64 and _LONG_RUN.search(word) for word in sql.split()):
        return True
    return '"' in sql and _LONG_QUOTED.search(sql) is not None


def long_names(sql: str) -> tuple[tuple[str, str], ...]:
    """The names the statement writes longer than PostgreSQL keeps, as (the name its parse tree
    holds, the name as written): the parser cuts them to 63 bytes."""
    if not may_hold_long_names(sql):
        return ()
    out: dict[tuple[str, str], None] = {}
    for token in pg.scan(sql):
        if token.name != "IDENT":
            continue
        text = sql[token.start : token.end + 1]
        if text.startswith('"'):
            name = text[1:-1].replace('""', '"')
        else:
            name = "".join(c.lower() if c.isascii() else c for c in text)
        written = name.encode()
        if len(written) > NAME_BYTES:
            out[written[:NAME_BYTES].decode(errors="ignore"), name] = None
    return tuple(out)


def _rel(rv: Node | None) -> str:
    if not rv:
        return ""
    return key_of(rv.get("schemaname"), rv.get("relname", ""))


def _qualified(names: list[str]) -> str:
    return key_of(names[-2] if len(names) > 1 else None, names[-1]) if names else ""


def _only(rv: Node | None) -> bool:
    return bool(rv) and not rv.get("inh", False)


def walk(node: Any) -> Iterator[tuple[str, Node]]:
    """Every (type name, fields) pair below `node`."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            for k, v in n.items():
                if isinstance(v, dict) and k[:1].isupper():
                    yield k, v
                stack.append(v)
        elif isinstance(n, list):
            stack.extend(n)


def calls(node: Any) -> tuple[str, ...]:
    """Lower-case names of the functions an expression calls (CURRENT_TIMESTAMP and the like
    count as calls of the function they stand for)."""
    found: list[str] = []
    for kind, fields in walk(node):
        if kind == "FuncCall":
            names = _strings(fields.get("funcname"))
            if names:
                found.append(names[-1].lower())
        elif kind == "SQLValueFunction":
            found.append(str(fields.get("op", "")).removeprefix("SVFOP_").lower())
    return tuple(dict.fromkeys(found))


def reads(query: Any) -> tuple[str, ...]:
    """The relations a query reads (common table expressions left out)."""
    ctes = {fields.get("ctename", "") for kind, fields in walk(query) if kind == "CommonTableExpr"}
    out: dict[str, None] = {}
    for kind, fields in walk(query):
        if kind == "RangeVar":
            key = _rel(fields)
            if key and key not in ctes:
                out[key] = None
    return tuple(out)


def _const(node: Node) -> str:
    c = node.get("A_Const")
    if c is None:
        return "…"
    if "sval" in c:
        return "'" + c["sval"].get("sval", "").replace("'", "''") + "'"
    if "boolval" in c:
        return "true" if c["boolval"].get("boolval") else "false"
    for k in ("ival", "fval", "bsval"):
        if k in c:
            return str(c[k].get(k, 0 if k == "ival" else ""))
    return "NULL" if c.get("isnull") else "…"


def _bound(spec: Node | None) -> str | None:
    if not spec:
        return None
    if spec.get("is_default"):
        return "DEFAULT"
    strategy = spec.get("strategy")
    if strategy == "l":
        return f"FOR VALUES IN ({', '.join(_const(d) for d in spec.get('listdatums', []))})"
    if strategy == "r":

        def datums(key: str) -> str:
            return ", ".join(
                _const(d)
                if "A_Const" in d
                else str(d.get("ColumnRef", {}).get("fields", [{}])[0].get("String", {}).get("sval", "…")).upper()
                for d in spec.get(key, [])
            )

        return f"FOR VALUES FROM ({datums('lowerdatums')}) TO ({datums('upperdatums')})"
    if strategy == "h":
        return f"FOR VALUES WITH (MODULUS {spec.get('modulus', 0)}, REMAINDER {spec.get('remainder', 0)})"
    return "FOR VALUES …"


def column_type(tn: Node) -> tuple[str, str, str, bool]:
    """(type as text, base type, modifiers, serial?) of a TypeName."""
    names = _strings(tn.get("names"))
    if len(names) > 1 and names[0] in ("pg_catalog", "public"):  # as format_type prints them
        names = names[1:]
    base = ".".join(names).lower() if all(n == n.lower() for n in names) else ".".join(names)
    serial = base in SERIAL_TYPES
    if serial:
        base = SERIAL_TYPES[base]
    mods = []
    for m in tn.get("typmods") or []:
        c = m.get("A_Const", {})
        if "ival" in c:
            mods.append(str(c["ival"].get("ival", 0)))
        elif "sval" in c:
            mods.append(c["sval"].get("sval", ""))
        else:
            mods.append("…")
    args = ",".join(mods)
    text = base + (f"({args})" if args else "") + "[]" * len(tn.get("arrayBounds") or [])
    return text, base + "[]" * len(tn.get("arrayBounds") or []), args, serial


# ---------------------------------------------------------------- columns and constraints


def column(cd: Node, src: Source) -> tuple[Column, list[Node]]:
    """A ColumnDef as a model Column, and its constraints for the table to read."""
    text, base, args, serial = column_type(cd.get("typeName") or {})
    col = Column(cd.get("colname", ""), text, base_type=base, type_args=args, serial=serial)
    if cd.get("collClause"):
        col.collation = ".".join(_strings(cd["collClause"].get("collname")))
    constraints = [c["Constraint"] for c in cd.get("constraints") or [] if "Constraint" in c]
    for c in constraints:
        kind = c.get("contype")
        if kind == "CONSTR_NOTNULL":
            col.nullable = False
        elif kind == "CONSTR_DEFAULT":
            expr = c.get("raw_expr")
            col.default = _simple(expr) or src.after("DEFAULT", _location(expr), _AFTER_DEFAULT) or _plain(expr)
            col.default_calls = calls(expr)
        elif kind == "CONSTR_IDENTITY":
            col.identity = "always" if c.get("generated_when") == "a" else "by default"
            col.nullable = False
        elif kind == "CONSTR_GENERATED":
            col.generated = "stored" if c.get("generated_kind") == "s" else "virtual"
            col.expression = src.inside(c.get("location"))
        elif kind == "CONSTR_PRIMARY":
            col.nullable = False
    if serial:
        col.default, col.default_calls, col.nullable = f"nextval('{col.name}_seq'::regclass)", ("nextval",), False
        col.sequence_type = base
    return col, constraints


def _first_key(node: Node | None) -> str:
    return next(iter(node), "") if node else ""


def _location(node: Node | None) -> int | None:
    """The location of an expression node (the first located node of its tree)."""
    if not node:
        return None
    inner = node.get(_first_key(node), {})
    loc = inner.get("location", -1) if isinstance(inner, dict) else -1
    if loc is not None and loc >= 0:
        if _first_key(node) in ("A_Expr", "BoolExpr", "TypeCast"):  # an operator's location is its sign
            locs = [f.get("location", -1) for _, f in walk(node) if isinstance(f.get("location"), int)]
            locs = [x for x in locs if x >= 0]
            return min(locs) if locs else loc
        return loc
    locs = [f.get("location", -1) for _, f in walk(node) if isinstance(f.get("location"), int) and f["location"] >= 0]
    return min(locs) if locs else None


def _simple(node: Node | None) -> str | None:
    """The text of the commonest defaults, without going back to the source: a constant, a cast
    constant, a call without arguments."""
    if not node:
        return None
    if "A_Const" in node:
        return _const(node) if "isnull" not in node["A_Const"] else "NULL"
    cast = node.get("TypeCast")
    if cast is not None and "A_Const" in cast.get("arg", {}) and "isnull" not in cast["arg"]["A_Const"]:
        return f"{_const(cast['arg'])}::{column_type(cast.get('typeName') or {})[0]}"
    call = node.get("FuncCall")
    if call is not None and not call.get("args") and not call.get("agg_star") and not call.get("over"):
        return ".".join(_strings(call.get("funcname"))) + "()"
    return None


def _plain(node: Node | None) -> str:
    return _const(node) if node and "A_Const" in node else ""


def _index_columns(elems: list[Node], src: Source) -> tuple[str, ...]:
    out = []
    for e in elems:
        ie = e.get("IndexElem", e)
        if ie.get("name"):
            out.append(ie["name"])
        elif ie.get("expr"):
            out.append(src.expression(_location(ie["expr"])) or "(expression)")
    return tuple(out)


def _keys(c: Node) -> tuple[str, ...]:
    return tuple(_strings(c.get("keys")))


def constraint(c: Node, table: str, src: Source, column_name: str | None = None) -> tuple[str, Any]:
    """A table or column constraint as ("primary"|"unique"|"exclude", Index), ("foreign", ForeignKey),
    ("check", Check), ("not_null", Check) or ("other", None)."""
    kind = c.get("contype")
    name = (c.get("conname") or "") or None
    cols = _keys(c) or ((column_name,) if column_name else ())
    if kind == "CONSTR_PRIMARY":
        return "primary", Index(name, cols, unique=True, primary=True, constraint=True)
    if kind == "CONSTR_UNIQUE":
        return "unique", Index(name, cols, unique=True, constraint=True)
    if kind == "CONSTR_EXCLUSION":
        elems = [x["List"]["items"][0] for x in c.get("exclusions", []) if "List" in x]
        return "exclude", Index(name, _index_columns(elems, src), kind="exclude", constraint=True)
    if kind == "CONSTR_FOREIGN":
        return "foreign", ForeignKey(
            name,
            tuple(_strings(c.get("fk_attrs"))) or cols,
            _rel(c.get("pktable")),
            tuple(_strings(c.get("pk_attrs"))),
            validated=not c.get("skip_validation"),
            enforced=bool(c.get("is_enforced")),
        )
    if kind == "CONSTR_CHECK":
        expr = src.inside(c.get("location"))
        return "check", Check(
            name,
            expr,
            validated=not c.get("skip_validation"),
            enforced=bool(c.get("is_enforced")),
            proves_not_null=_null_test(c.get("raw_expr")),
            null_passes=_null_passes(c.get("raw_expr")),
            columns=_read_columns(c.get("raw_expr")),
            allows=_allowed_values(c.get("raw_expr")),
            passes_when=_passes_when(c.get("raw_expr")),
        )
    if kind == "CONSTR_NOTNULL" and cols:
        return "not_null", Check(
            name,
            f"{cols[0]} IS NOT NULL",
            validated=not c.get("skip_validation"),
            not_null=cols[0],
            proves_not_null=cols[0],
        )
    return "other", None


# operators and functions PostgreSQL's catalog marks strict (a NULL argument gives NULL), the
# ones length and range checks are written with; `||` is left out (array_cat is not strict)
_STRICT_OPERATORS = frozenset(
    {"=", "<>", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "~", "~*", "!~", "!~*", "~~", "~~*", "!~~", "!~~*"}
)
_STRICT_FUNCTIONS = frozenset(
    {
        "char_length",
        "character_length",
        "length",
        "octet_length",
        "lower",
        "upper",
        "btrim",
        "ltrim",
        "rtrim",
        "abs",
        "array_length",
        "cardinality",
        "json_typeof",
        "jsonb_typeof",
        "json_array_length",
        "jsonb_array_length",
    }
)


# sets of columns: where every column of one set is NULL, an expression is NULL (or, for a
# condition, not false: a CHECK passes; or not true); at most this many sets are followed
_MOST_SETS = 32


def _null_passes(expr: Node | None) -> tuple[tuple[str, ...], ...]:
    """The sets of columns of a check expression such that, where every column of one set is NULL,
    the expression is not false, and the check passes: `char_length(scopes) <= 4096` passes where
    scopes is NULL (an operator or function PostgreSQL's catalog marks strict gives NULL for a
    NULL); `(a IS NULL AND b IS NULL) OR (a IS NOT NULL AND b IS NOT NULL)` where both are. AND,
    OR and NOT follow SQL's three-valued logic; COALESCE, CASE and anything else unknown count as
    never NULL (the safe side). () when no set is known."""

    def union(*groups: list[frozenset[str]]) -> list[frozenset[str]]:
        out: list[frozenset[str]] = []
        for s in sorted({s for g in groups for s in g}, key=lambda s: (len(s), sorted(s))):
            if not any(kept <= s for kept in out):
                out.append(s)
        return out[:_MOST_SETS]

    def product(groups: list[list[frozenset[str]]]) -> list[frozenset[str]]:
        out = [frozenset[str]()]
        for g in groups:
            out = union([a | b for a in out for b in g])
        return out

    def null(node: Node | None) -> list[frozenset[str]]:
        """Sets making a value NULL."""
        if not isinstance(node, dict) or len(node) != 1:
            return []
        ((kind, f),) = node.items()
        if kind == "ColumnRef":
            names = _strings(f.get("fields"))
            return [frozenset(names[-1:])] if names else []
        if kind == "A_Const":
            return [frozenset()] if f.get("isnull") else []
        if kind == "TypeCast":
            return null(f.get("arg"))
        if kind == "A_Expr":
            name = _strings(f.get("name"))
            if f.get("kind") in ("AEXPR_BETWEEN", "AEXPR_NOT_BETWEEN"):
                return null(f.get("lexpr"))  # NULL for a NULL tested: both its comparisons are
            if f.get("kind") in ("AEXPR_IN", "AEXPR_OP_ANY"):
                # NULL for a NULL on the left: each comparison it makes is, and so their OR
                return null(f.get("lexpr")) if name and name[-1] in _STRICT_OPERATORS else []
            if f.get("kind") not in ("AEXPR_OP", "AEXPR_LIKE", "AEXPR_ILIKE") or len(name) != 1:
                return []
            if name[0] not in _STRICT_OPERATORS:
                return []
            return union(null(f.get("lexpr")), null(f.get("rexpr")))
        if kind == "FuncCall":
            name = _strings(f.get("funcname"))
            plain = not (f.get("agg_star") or f.get("agg_distinct") or f.get("over") or f.get("func_variadic"))
            known = len(name) == 1 or name[:1] == ["pg_catalog"]
            if plain and known and name[-1].lower() in _STRICT_FUNCTIONS:
                return union(*(null(a) for a in f.get("args") or []))
        return []

    def passes(node: Node | None, want: bool) -> list[frozenset[str]]:
        """Sets making a condition not false (want=True) or not true (want=False)."""
        if not isinstance(node, dict) or len(node) != 1:
            return []
        ((kind, f),) = node.items()
        if kind == "BoolExpr":
            args = f.get("args") or []
            op = f.get("boolop")
            if op == "NOT_EXPR":
                return passes(args[0], not want) if args else []
            # AND is not false where no side is false, OR where one side is not false (and the
            # other way round for not true)
            if (op == "AND_EXPR") == want:
                return product([passes(a, want) for a in args])
            return union(*(passes(a, want) for a in args))
        if kind == "NullTest":
            is_null = f.get("nulltesttype") == "IS_NULL"
            return null(f.get("arg")) if is_null == want else []
        if kind == "A_Const" and "boolval" in f:
            return [frozenset()] if bool(f["boolval"].get("boolval")) == want else []
        return null(node)  # a comparison, a boolean column or function: NULL is neither

    return tuple(tuple(sorted(s)) for s in passes(expr, True) if s)


def _read_columns(expr: Node | None) -> tuple[str, ...]:
    """The columns an expression reads, each once."""
    found = (_strings(f.get("fields"))[-1:] for kind, f in walk(expr or {}) if kind == "ColumnRef")
    return tuple(dict.fromkeys(name for names in found for name in names))


def _allowed_values(expr: Node | None) -> tuple[str, ...]:
    """(column, constant, ...) for a check holding one column to a list of constants: `kind IN
    ('a', 'b')`, `kind = ANY (ARRAY['a', 'b'])` (pg_dump's form, casts on either side), `kind =
    'a'`, or an OR of these over the one column; () for any other expression."""
    expr = _uncast(expr)
    either = expr.get("BoolExpr", {})
    if either.get("boolop") == "OR_EXPR":
        parts = [_allowed_values(arg) for arg in either.get("args") or []]
        if parts and all(parts) and len({part[0] for part in parts}) == 1:
            return (parts[0][0], *dict.fromkeys(v for part in parts for v in part[1:]))
        return ()
    f = expr.get("A_Expr", {})
    column = _uncast(f.get("lexpr")).get("ColumnRef", {})
    if _strings(f.get("name")) != ["="] or not column.get("fields"):
        return ()
    right = _uncast(f.get("rexpr"))
    items = {
        "AEXPR_IN": right.get("List", {}).get("items"),
        "AEXPR_OP_ANY": right.get("A_ArrayExpr", {}).get("elements"),
        "AEXPR_OP": [right],
    }.get(f.get("kind") or "")
    values = [_const(_uncast(item)) for item in items or []]
    if not values or any(v in ("…", "NULL") for v in values):
        return ()
    return (_strings(column["fields"])[-1], *dict.fromkeys(values))


def _passes_when(expr: Node | None) -> tuple[tuple[str, str], ...]:
    """(column, constant) pairs, each constant's text unquoted, such that a row holding the
    constant in the column makes the check true: those of `_allowed_values`, and of each side of
    an OR (`type = 'STANDARD' OR versioning_status = 'DISABLED'`)."""
    either = _uncast(expr).get("BoolExpr", {})
    if either.get("boolop") == "OR_EXPR":
        return tuple(dict.fromkeys(pair for arg in either.get("args") or [] for pair in _passes_when(arg)))
    held = _cleared(_allowed_values(expr))
    return tuple((held[0], value) for value in held[1:])


def _shape(node: Any) -> str:
    """An expression's parse tree as compact JSON without its places in the text."""

    def bare(n: Any) -> Any:
        if isinstance(n, dict):
            return {k: bare(v) for k, v in n.items() if k != "location"}
        if isinstance(n, list):
            return [bare(v) for v in n]
        return n

    return json.dumps(bare(node), sort_keys=True, separators=(",", ":"))


def _uncast(node: Node | None) -> Node:
    while node and "TypeCast" in node:
        node = node["TypeCast"].get("arg")
    return node or {}


def _null_test(expr: Node | None) -> str | None:
    """The column of a `col IS NOT NULL` check."""
    test = (expr or {}).get("NullTest")
    if test and test.get("nulltesttype") == "IS_NOT_NULL":
        fields = _strings(test.get("arg", {}).get("ColumnRef", {}).get("fields"))
        return fields[-1] if fields else None
    return None


def _apply_constraint(table: Table, kind: str, value: Any) -> None:
    if kind == "primary":
        table.primary_key = value
        for c in value.columns:
            if c in table.columns:
                table.columns[c].nullable = False
    elif kind in ("unique", "exclude"):
        table.indexes.append(value)
    elif kind == "foreign":
        table.foreign_keys.append(value)
    elif kind == "check":
        table.checks.append(value)
    elif kind == "not_null":
        table.checks.append(value)
        if value.validated and value.not_null in table.columns:
            table.columns[value.not_null].nullable = False


# ---------------------------------------------------------------- statements


def build(tree: Node, src: Source) -> Op:
    """The typed Op of one statement's parse tree."""
    ((kind, fields),) = tree.items()
    builder = _BUILDERS.get(kind)
    if builder is None:
        return Other(what=_what(kind))
    return builder(fields, src)


def _what(kind: str) -> str:
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", kind.removesuffix("Stmt")).upper()
    return words or kind


def _create(f: Node, src: Source) -> Op:
    rv = f["relation"]
    name = _rel(rv)
    persistence = {"u": "unlogged", "t": "temporary"}.get(rv.get("relpersistence", "p"), "permanent")
    elts = f.get("tableElts") or []
    like = next((e["TableLikeClause"] for e in elts if "TableLikeClause" in e), None)
    if like is not None and len(elts) == 1:
        options = like.get("options", 0)
        # CREATE_TABLE_LIKE_INDEXES is bit 5 (1 << 5); ALL sets every bit
        return CreateTableLike(
            name=name, source=_rel(like.get("relation")), copies_keys=bool(options & (1 << 5)), persistence=persistence
        )
    table = Table(name=name, persistence=persistence)
    if f.get("accessMethod"):
        table.engine = f["accessMethod"]
    references: list[str] = []
    pending: list[tuple[str, Any]] = []
    declared = [e["ColumnDef"].get("colname") or "" for e in elts if "ColumnDef" in e]
    for e in elts:
        if "ColumnDef" in e:
            col, constraints = column(e["ColumnDef"], src)
            table.columns[col.name] = col
            for c in constraints:
                kind, value = constraint(c, name, src, col.name)
                if kind == "foreign":
                    references.append(value.references)
                if kind == "not_null" and value.name is None and value.validated:
                    continue  # a plain NOT NULL on the column: the column says so already
                if kind != "other":
                    pending.append((kind, value))
        elif "Constraint" in e:
            kind, value = constraint(e["Constraint"], name, src)
            if kind == "foreign":
                references.append(value.references)
            if kind != "other":
                pending.append((kind, value))
    for kind, value in pending:
        _apply_constraint(table, kind, value)
    spec = f.get("partspec")
    if spec:
        table.partitioning = _partitioning(spec, src)
    parents = f.get("inhRelations") or []
    if f.get("partbound") is not None and parents:
        table.partition_bound = _bound(f["partbound"])
        return CreatePartition(
            model=table,
            parent=_rel(parents[0].get("RangeVar")),
            references=tuple(references),
            if_not_exists=bool(f.get("if_not_exists")),
            repeated=_twice(declared),
        )
    return CreateTable(
        model=table,
        if_not_exists=bool(f.get("if_not_exists")),
        references=tuple(references),
        repeated=_twice(declared),
    )


def _partitioning(spec: Node, src: Source) -> Partitioning:
    method = {
        "PARTITION_STRATEGY_RANGE": "range",
        "PARTITION_STRATEGY_LIST": "list",
        "PARTITION_STRATEGY_HASH": "hash",
    }.get(spec.get("strategy", ""), str(spec.get("strategy", "")).lower())
    cols: list[str] = []
    parts: list[str] = []
    by_expression = False
    for p in spec.get("partParams") or []:
        elem = p.get("PartitionElem", {})
        if elem.get("name"):
            cols.append(elem["name"])
            parts.append(elem["name"])
        elif elem.get("expr"):
            by_expression = True
            parts.append(src.expression(_location(elem["expr"])))
            for kind, fields in walk(elem["expr"]):
                if kind == "ColumnRef":
                    names = _strings(fields.get("fields"))
                    if names:
                        cols.append(names[-1])
    return Partitioning(
        method,
        tuple(dict.fromkeys(cols)),
        f"{method.upper()} ({', '.join(parts)})",
        by_expression=by_expression,
    )


def _create_as(f: Node, src: Source) -> Op:
    into = f.get("into", {})
    rv = into.get("rel", {})
    name = _rel(rv)
    query_reads = reads(f.get("query"))
    with_data = not into.get("skipData", False)
    repeated = _twice(_output_names(_strings(into.get("colNames")), f.get("query")))
    if f.get("objtype") == "OBJECT_MATVIEW":
        return CreateMatview(
            name=name,
            reads=query_reads,
            with_data=with_data,
            if_not_exists=bool(f.get("if_not_exists")),
            repeated=repeated,
        )
    persistence = {"u": "unlogged", "t": "temporary"}.get(rv.get("relpersistence", "p"), "permanent")
    table = Table(name=name, persistence=persistence)
    for c in into.get("colNames") or []:
        col = c["String"]["sval"]
        table.columns[col] = Column(col)
    return CreateTableAs(
        model=table,
        reads=query_reads,
        with_data=with_data,
        if_not_exists=bool(f.get("if_not_exists")),
        repeated=repeated,
    )


def _index(f: Node, src: Source) -> Op:
    rv = f.get("relation", {})
    idx = Index(
        (f.get("idxname") or "") or None,
        _index_columns(f.get("indexParams") or [], src),
        unique=bool(f.get("unique")),
        primary=bool(f.get("primary")),
        kind=f.get("accessMethod", "btree"),
        partial=f.get("whereClause") is not None,
        predicate_columns=_columns_of(None, f.get("whereClause")),
        predicate=_shape(f["whereClause"]) if f.get("whereClause") else "",
    )
    return CreateIndex(
        on=_rel(rv),
        index=idx,
        concurrently=bool(f.get("concurrent")),
        only=_only(rv),
        if_not_exists=bool(f.get("if_not_exists")),
    )


def _object_name(o: Node) -> list[str]:
    """The name parts of an object a DROP names (a type or domain comes as a type name)."""
    if "List" in o:
        return _strings(o["List"]["items"])
    if "TypeName" in o:
        return _strings(o["TypeName"].get("names") or [])
    if "ObjectWithArgs" in o:  # a function, procedure or routine: its name, without the arguments
        return _strings(o["ObjectWithArgs"].get("objname") or [])
    return _strings([o])


def _drop(f: Node, src: Source) -> Op:
    kind = f.get("removeType")
    names = [_object_name(o) for o in f.get("objects") or []]
    keys = tuple(_qualified(n) for n in names if n)
    if_exists = bool(f.get("missing_ok"))
    cascade = f.get("behavior") == "DROP_CASCADE"
    if kind in ("OBJECT_TABLE", "OBJECT_FOREIGN_TABLE"):
        return DropTable(tables=keys, if_exists=if_exists, cascade=cascade)
    if kind == "OBJECT_INDEX":
        return DropIndex(names=keys, concurrently=bool(f.get("concurrent")), if_exists=if_exists, cascade=cascade)
    if kind in ("OBJECT_VIEW", "OBJECT_MATVIEW"):
        return DropView(names=keys, materialized=kind == "OBJECT_MATVIEW", if_exists=if_exists, cascade=cascade)
    if kind == "OBJECT_SEQUENCE":
        return DropSequence(names=keys, if_exists=if_exists, cascade=cascade)
    if kind in ("OBJECT_TRIGGER", "OBJECT_RULE", "OBJECT_POLICY") and names and len(names[0]) >= 2:
        on, name = _qualified(names[0][:-1]), names[0][-1]
        cls = {"OBJECT_TRIGGER": DropTrigger, "OBJECT_RULE": DropRule, "OBJECT_POLICY": DropPolicy}[kind]
        return cls(on=on, name=name, if_exists=if_exists)
    what = str(kind).removeprefix("OBJECT_").replace("_", " ")
    if kind in ("OBJECT_FUNCTION", "OBJECT_PROCEDURE", "OBJECT_ROUTINE", "OBJECT_AGGREGATE"):
        # named as CREATE FUNCTION's are: the bare name, lower case
        keys = tuple(n[-1].lower() for n in names if n)
    return DropObjects(what="DROP " + what, object=what.lower(), names=keys, if_exists=if_exists, cascade=cascade)


def _dropdb(f: Node, src: Source) -> Op:
    return DropObjects(
        what="DROPDB", object="database", names=(str(f.get("dbname", "")),), if_exists=bool(f.get("missing_ok"))
    )


def _truncate(f: Node, src: Source) -> Op:
    rels = [r["RangeVar"] for r in f.get("relations") or [] if "RangeVar" in r]
    return Truncate(
        tables=tuple(_rel(r) for r in rels),
        only=any(_only(r) for r in rels),
        cascade=f.get("behavior") == "DROP_CASCADE",
    )


def _rename(f: Node, src: Source) -> Op:
    kind = f.get("renameType")
    rel = _rel(f.get("relation"))
    new = f.get("newname") or ""
    if kind in ("OBJECT_TABLE", "OBJECT_FOREIGN_TABLE"):
        return AlterTable(
            name=rel,
            actions=[
                Rename("rename_table", "RENAME TO", new_name=key_of(f.get("relation", {}).get("schemaname"), new))
            ],
            if_exists=bool(f.get("missing_ok")),
        )
    if kind == "OBJECT_COLUMN":
        return AlterTable(
            name=rel,
            actions=[Rename("rename_column", "RENAME COLUMN", (f.get("subname") or ""), new_name=new)],
            if_exists=bool(f.get("missing_ok")),
        )
    if kind == "OBJECT_TABCONSTRAINT":
        return AlterTable(
            name=rel,
            actions=[Rename("rename_constraint", "RENAME CONSTRAINT", new_name=new, name=(f.get("subname") or ""))],
        )
    if kind == "OBJECT_INDEX":
        return AlterIndex(name=rel, action="rename", new_name=new, if_exists=bool(f.get("missing_ok")))
    if kind == "OBJECT_TYPE":
        parts = list(_strings((f.get("object") or {}).get("List", {}).get("items"))) or [""]
        schema = [p for p in parts[:-1] if p not in ("public", "pg_catalog")]
        return RenameType(
            what="ALTER TYPE RENAME", name=".".join([*schema, parts[-1]]), new_name=".".join([*schema, new])
        )
    if kind in ("OBJECT_VIEW", "OBJECT_MATVIEW"):
        return AlterView(
            name=rel,
            materialized=kind == "OBJECT_MATVIEW",
            new_name=key_of(f.get("relation", {}).get("schemaname"), new),
        )
    if kind == "OBJECT_SCHEMA":
        return RenameSchema(what="ALTER SCHEMA … RENAME", name=f.get("subname") or "", new_name=new)
    return Other(what="ALTER … RENAME")


def _set_schema(f: Node, src: Source) -> Op:
    if f.get("objectType") in ("OBJECT_TABLE", "OBJECT_FOREIGN_TABLE"):
        return AlterTable(
            name=_rel(f.get("relation")),
            actions=[Option("set_schema", "SET SCHEMA", option="schema", value=f.get("newschema"))],
            if_exists=bool(f.get("missing_ok")),
        )
    if f.get("objectType") in ("OBJECT_VIEW", "OBJECT_MATVIEW"):
        relation = f.get("relation") or {}
        return AlterView(
            name=_rel(relation),
            materialized=f.get("objectType") == "OBJECT_MATVIEW",
            new_name=key_of(f.get("newschema"), relation.get("relname") or ""),
        )
    return Other(what="ALTER … SET SCHEMA")


def _alter_table(f: Node, src: Source) -> Op:
    rv = f.get("relation", {})
    name = _rel(rv)
    objtype = f.get("objtype")
    cmds = [c["AlterTableCmd"] for c in f.get("cmds") or [] if "AlterTableCmd" in c]
    if objtype == "OBJECT_INDEX":
        return _alter_index(name, cmds, f)
    if objtype in ("OBJECT_VIEW", "OBJECT_MATVIEW"):
        params = tuple(
            p
            for c in cmds
            if c.get("subtype") in ("AT_SetRelOptions", "AT_ResetRelOptions")
            for p in _reloptions(c.get("def") or {})
        )
        return AlterView(name=name, materialized=objtype == "OBJECT_MATVIEW", params=params)
    if objtype not in ("OBJECT_TABLE", "OBJECT_FOREIGN_TABLE", None):
        return Other(what="ALTER " + str(objtype).removeprefix("OBJECT_").replace("_", " "))
    actions = []
    for cmd in cmds:
        actions += _action(cmd, name, src)
    return AlterTable(name=name, actions=actions, only=_only(rv), if_exists=bool(f.get("missing_ok")))


def _alter_index(name: str, cmds: list[Node], f: Node) -> Op:
    sub = cmds[0].get("subtype") if cmds else ""
    if sub == "AT_AttachPartition":
        part = _rel(cmds[0].get("def", {}).get("PartitionCmd", {}).get("name"))
        return AlterIndex(name=name, action="attach_partition", partition=part)
    action = {
        "AT_SetTableSpace": "set_tablespace",
        "AT_SetRelOptions": "set_storage_params",
        "AT_ResetRelOptions": "set_storage_params",
        "AT_SetStatistics": "set_statistics",
    }.get(sub, "other")
    return AlterIndex(name=name, action=action, if_exists=bool(f.get("missing_ok")))


# ALTER TABLE sub-commands that carry nothing but their own lock level
_PLAIN = {
    "AT_DropNotNull": "drop_not_null",
    "AT_SetNotNull": "set_not_null",
    "AT_SetStatistics": "set_statistics",
    "AT_SetStorage": "set_storage",
    "AT_SetCompression": "set_compression",
    "AT_AddIdentity": "add_identity",
    "AT_SetIdentity": "set_identity",
    "AT_DropIdentity": "drop_identity",
    "AT_DropExpression": "drop_expression",
    "AT_SetExpression": "set_expression",
    "AT_SetLogged": "set_logged",
    "AT_SetUnLogged": "set_unlogged",
    "AT_DropCluster": "set_without_cluster",
    "AT_EnableTrig": "enable_trigger",
    "AT_EnableAlwaysTrig": "enable_trigger",
    "AT_EnableReplicaTrig": "enable_trigger",
    "AT_EnableTrigAll": "enable_trigger",
    "AT_EnableTrigUser": "enable_trigger",
    "AT_DisableTrig": "disable_trigger",
    "AT_DisableTrigAll": "disable_trigger",
    "AT_DisableTrigUser": "disable_trigger",
    "AT_EnableRule": "enable_rule",
    "AT_EnableAlwaysRule": "enable_rule",
    "AT_EnableReplicaRule": "enable_rule",
    "AT_DisableRule": "disable_rule",
    "AT_EnableRowSecurity": "enable_rls",
    "AT_DisableRowSecurity": "disable_rls",
    "AT_ForceRowSecurity": "force_rls",
    "AT_NoForceRowSecurity": "no_force_rls",
    "AT_ChangeOwner": "owner_to",
    "AT_AddOf": "of_type",
    "AT_DropOf": "not_of",
    "AT_SetOptions": "set_statistics",
    "AT_ResetOptions": "set_statistics",
}


def _action(cmd: Node, table: str, src: Source) -> list[Action]:
    sub = cmd.get("subtype", "")
    handler = _ACTION_BUILDERS.get(sub)
    if handler is not None:
        return [handler(cmd, table, src)]
    return [Action(_PLAIN.get(sub, "unknown"), _what(sub.removeprefix("AT_")), _column_name(cmd))]


def _column_name(cmd: Node) -> str | None:
    """The name a sub-command carries (a column's, or a constraint's or index's), lower-cased."""
    return (cmd.get("name") or "") or None


def _add_column(cmd: Node, table: str, src: Source) -> Action:
    definition, constraints = column((cmd.get("def") or {})["ColumnDef"], src)
    kinds = set()
    refs = []
    for c in constraints:
        kind, value = constraint(c, table, src, definition.name)
        kinds.add(kind)
        if kind == "foreign":
            refs.append(value.references)
    return AddColumn(
        "add_column",
        "ADD COLUMN",
        definition.name,
        definition=definition,
        references=tuple(refs),
        check="check" in kinds,
        primary="primary" in kinds,
        unique="unique" in kinds,
        if_not_exists=bool(cmd.get("missing_ok")),
    )


def _alter_column_type(cmd: Node, table: str, src: Source) -> Action:
    col = _column_name(cmd)
    cd = (cmd.get("def") or {}).get("ColumnDef", {})
    text_, base, args, _serial = column_type(cd.get("typeName") or {})
    using = cd.get("raw_default")
    return AlterColumnType(
        "alter_column_type",
        "ALTER COLUMN TYPE",
        col,
        type=text_,
        base_type=base,
        type_args=args,
        using=src.after("USING", _location(using)) if using else None,
        using_only_column=bool(using) and _is_column(using, col),
        collation=".".join(_strings(cd["collClause"].get("collname"))) if cd.get("collClause") else None,
    )


def _column_default(cmd: Node, table: str, src: Source) -> Action:
    d = cmd.get("def") or {}
    if not d:
        return Action("drop_default", "ALTER COLUMN DROP DEFAULT", _column_name(cmd))
    return SetDefault(
        "set_default",
        "ALTER COLUMN SET DEFAULT",
        _column_name(cmd),
        default=src.after("DEFAULT", _location(d)),
        default_calls=calls(d),
    )


def _add_table_constraint(cmd: Node, table: str, src: Source) -> Action:
    return _add_constraint((cmd.get("def") or {}).get("Constraint", {}), table, src)


def _drop_constraint(cmd: Node, table: str, src: Source) -> Action:
    return ConstraintAction(
        "drop_constraint",
        "DROP CONSTRAINT",
        name=_column_name(cmd),
        if_exists=bool(cmd.get("missing_ok")),
        cascade=cmd.get("behavior") == "DROP_CASCADE",
    )


def _alter_constraint(cmd: Node, table: str, src: Source) -> Action:
    d = cmd.get("def") or {}
    spec = d.get("ATAlterConstraint") or d.get("Constraint") or {}
    enforced = spec.get("is_enforced", False) if spec.get("alterEnforceability") else None
    return ConstraintAction("alter_constraint", "ALTER CONSTRAINT", name=(spec.get("conname") or ""), enforced=enforced)


def _storage_params(cmd: Node, table: str, src: Source) -> Action:
    op = "set_storage_params" if cmd["subtype"] == "AT_SetRelOptions" else "reset_storage_params"
    return Option(op, "SET (...)", option="storage", params=_reloptions(cmd.get("def") or {}))


def _replica_identity(cmd: Node, table: str, src: Source) -> Action:
    ident = (cmd.get("def") or {}).get("ReplicaIdentityStmt", {})
    return IndexAction("replica_identity", "REPLICA IDENTITY", index=(ident.get("name") or "") or None)


def _inherit(cmd: Node, table: str, src: Source) -> Action:
    op = "inherit" if cmd["subtype"] == "AT_AddInherit" else "no_inherit"
    return Inherit(op, "INHERIT", parent=_rel((cmd.get("def") or {}).get("RangeVar")))


def _partition(cmd: Node, table: str, src: Source) -> Action:
    pc = (cmd.get("def") or {}).get("PartitionCmd", {})
    part = _rel(pc.get("name"))
    if cmd["subtype"] == "AT_AttachPartition":
        return PartitionAction("attach_partition", "ATTACH PARTITION", partition=part, bound=_bound(pc.get("bound")))
    if cmd["subtype"] == "AT_DetachPartitionFinalize":
        return PartitionAction("detach_partition_finalize", "DETACH PARTITION FINALIZE", partition=part, finalize=True)
    conc = bool(pc.get("concurrent"))
    return PartitionAction(
        "detach_partition_concurrently" if conc else "detach_partition",
        "DETACH PARTITION",
        partition=part,
        concurrently=conc,
    )


# ALTER TABLE sub-commands that carry more than their own lock level (the others: _PLAIN)
_ACTION_BUILDERS: dict[str, Callable[[Node, str, Source], Action]] = {
    "AT_AddColumn": _add_column,
    "AT_DropColumn": lambda cmd, table, src: DropColumn(
        "drop_column", "DROP COLUMN", _column_name(cmd), if_exists=bool(cmd.get("missing_ok"))
    ),
    "AT_AlterColumnType": _alter_column_type,
    "AT_ColumnDefault": _column_default,
    "AT_AddConstraint": _add_table_constraint,
    "AT_ReAddConstraint": _add_table_constraint,
    "AT_ValidateConstraint": lambda cmd, table, src: ConstraintAction(
        "validate_constraint", "VALIDATE CONSTRAINT", name=_column_name(cmd)
    ),
    "AT_DropConstraint": _drop_constraint,
    "AT_AlterConstraint": _alter_constraint,
    "AT_SetRelOptions": _storage_params,
    "AT_ResetRelOptions": _storage_params,
    "AT_SetTableSpace": lambda cmd, table, src: Option(
        "set_tablespace", "SET TABLESPACE", option="tablespace", value=cmd.get("name")
    ),
    "AT_SetAccessMethod": lambda cmd, table, src: Option(
        "set_access_method", "SET ACCESS METHOD", option="access_method", value=cmd.get("name")
    ),
    "AT_ClusterOn": lambda cmd, table, src: IndexAction("cluster_on", "CLUSTER ON", index=_column_name(cmd)),
    "AT_ReplicaIdentity": _replica_identity,
    "AT_AddInherit": _inherit,
    "AT_DropInherit": _inherit,
    "AT_AttachPartition": _partition,
    "AT_DetachPartition": _partition,
    "AT_DetachPartitionFinalize": _partition,
}


def _reloptions(d: Node) -> tuple[str, ...]:
    """The storage parameters SET (...) or RESET (...) names, `toast.` prefixed where given so."""
    return tuple(
        p["DefElem"].get("defname", "").lower()
        if not p["DefElem"].get("defnamespace")
        else f"{p['DefElem']['defnamespace']}.{p['DefElem']['defname']}".lower()
        for p in d.get("List", {}).get("items", [])
        if "DefElem" in p
    )


def _is_column(expr: Node, name: str | None) -> bool:
    """Whether USING names only the column itself (through casts), so values are not recomputed."""
    node = _uncast(expr)
    fields = _strings(node.get("ColumnRef", {}).get("fields")) if "ColumnRef" in node else []
    return bool(fields) and fields[-1] == name


def _add_constraint(c: Node, table: str, src: Source) -> Action:
    kind, value = constraint(c, table, src)
    not_valid = bool(c.get("skip_validation"))
    using = (c.get("indexname") or "") or None
    if kind == "primary":
        return AddKey("add_primary_key", "ADD PRIMARY KEY", index=value, using_index=using)
    if kind == "unique":
        return AddKey("add_unique", "ADD UNIQUE", index=value, using_index=using)
    if kind == "exclude":
        operators = tuple(
            ".".join(_strings(x["List"]["items"][1].get("List", {}).get("items")))
            if len(x["List"]["items"]) > 1
            else ""
            for x in c.get("exclusions", [])
            if "List" in x
        )
        return AddKey("add_exclude", "ADD EXCLUDE", index=value, operators=operators)
    if kind == "foreign":
        return AddForeignKey("add_foreign_key", "ADD FOREIGN KEY", key=value, not_valid=not_valid)
    if kind == "check":
        reads = tuple(
            dict.fromkeys(
                names[-1]  # as the server stores it: the parser folds a bare name, keeps a quoted one
                for k, fields in walk(c.get("raw_expr"))
                if k == "ColumnRef" and (names := _strings(fields.get("fields")))
            )
        )
        return AddCheck("add_check", "ADD CHECK", constraint=value, not_valid=not_valid, reads=reads)
    if kind == "not_null":
        return AddCheck("add_not_null", "ADD NOT NULL", value.not_null, constraint=value, not_valid=not_valid)
    return Action("add_constraint", "ADD CONSTRAINT")


def _view(f: Node, src: Source) -> Op:
    return CreateView(
        name=_rel(f.get("view")),
        reads=reads(f.get("query")),
        or_replace=bool(f.get("replace")),
        repeated=_twice(_output_names(_strings(f.get("aliases")), f.get("query"))),
    )


def _twice(names: list[str | None]) -> tuple[str, ...]:
    """The names (None: not known) given more than once, each once, in the order first seen."""
    known = [n for n in names if n is not None]
    return tuple(n for n in dict.fromkeys(known) if known.count(n) > 1)


def _output_names(given: list[str], query: Node | None) -> list[str | None]:
    """The column names a view or CREATE TABLE AS takes from `query`: the ones `given` in its own
    column list first, then those PostgreSQL makes up for the rest of the query's select list (None
    where schemacite does not know which name the server would choose)."""
    q = (query or {}).get("SelectStmt", query or {})
    while q.get("larg"):  # a UNION and the like: the first branch names the columns
        q = q["larg"]
    targets = q.get("targetList") or []
    if not targets:  # VALUES (column1, column2, ...) or a query not read here
        return list(given)
    names = [_output_name(t.get("ResTarget", {})) for t in targets]
    return list(given) + names[len(given) :]


def _output_name(target: Node) -> str | None:
    """The name PostgreSQL gives one select-list entry (its FigureColname), where it is certain."""
    if target.get("name"):
        return str(target["name"])
    name, _strength = _figure(target.get("val") or {})
    return name


def _figure(expr: Node) -> tuple[str | None, int]:
    """(name, strength) as PostgreSQL's FigureColnameInternal picks it, for the expressions whose
    name is sure: a column, a function call, a constant ("?column?"), a cast of one of those. Anything
    else is (None, -1): unknown, never taken for a duplicate."""
    if "ColumnRef" in expr:
        fields = expr["ColumnRef"].get("fields") or []
        last = fields[-1] if fields else {}
        return (last["String"]["sval"], 2) if "String" in last else (None, -1)
    if "FuncCall" in expr:
        names = _strings(expr["FuncCall"].get("funcname"))
        return (names[-1], 2) if names else (None, -1)
    if "A_Const" in expr:
        return "?column?", 0
    if "TypeCast" in expr:
        cast = expr["TypeCast"]
        name, strength = _figure(cast.get("arg") or {})
        if strength < 0:
            return None, -1
        if strength <= 1:
            names = _strings((cast.get("typeName") or {}).get("names"))
            return (names[-1], 1) if names else (None, -1)
        return name, strength
    return None, -1


def _refresh(f: Node, src: Source) -> Op:
    return RefreshMatview(
        name=_rel(f.get("relation")), concurrently=bool(f.get("concurrent")), with_data=not f.get("skipData", False)
    )


def _vacuum(f: Node, src: Source) -> Op:
    tables = tuple(_rel(r["VacuumRelation"].get("relation")) for r in f.get("rels") or [] if "VacuumRelation" in r)
    if not f.get("is_vacuumcmd"):
        return Analyze(tables=tables)
    options = {
        o["DefElem"].get("defname", "").lower(): o["DefElem"].get("arg")
        for o in f.get("options") or []
        if "DefElem" in o
    }
    full = "full" in options and not _false(options["full"])
    return Vacuum(tables=tables, full=full)


def _false(arg: Node | None) -> bool:
    if not arg:
        return False
    value = arg.get("String", {}).get("sval") or arg.get("Boolean", {}).get("boolval")
    if "Integer" in arg:
        return not arg["Integer"].get("ival", 0)
    return str(value).lower() in ("false", "off", "0", "no")


def _reindex(f: Node, src: Source) -> Op:
    obj = str(f.get("kind", "")).removeprefix("REINDEX_OBJECT_").lower()
    conc = any(
        p.get("DefElem", {}).get("defname") == "concurrently" and not _false(p["DefElem"].get("arg"))
        for p in f.get("params") or []
    )
    name = _rel(f.get("relation")) if f.get("relation") else (f.get("name") or "") or None
    return Reindex(object=obj, name=name, concurrently=conc)


def _cluster(f: Node, src: Source) -> Op:
    return Cluster(name=_rel(f.get("relation")) or None, index=(f.get("indexname") or "") or None)


def _lock(f: Node, src: Source) -> Op:
    rels = [r["RangeVar"] for r in f.get("relations") or [] if "RangeVar" in r]
    return LockTable(
        tables=tuple(_rel(r) for r in rels),
        mode=LOCK_MODES.get(f.get("mode", 8), "ACCESS EXCLUSIVE"),
        only=any(_only(r) for r in rels),
    )


def _transaction(f: Node, src: Source) -> Op:
    kind = f.get("kind", "")
    if kind in ("TRANS_STMT_BEGIN", "TRANS_STMT_START"):
        return Begin()
    if kind in (
        "TRANS_STMT_COMMIT",
        "TRANS_STMT_ROLLBACK",
        "TRANS_STMT_COMMIT_PREPARED",
        "TRANS_STMT_ROLLBACK_PREPARED",
        "TRANS_STMT_PREPARE",
    ):
        return Commit(rollback="ROLLBACK" in kind)
    return Other(what=kind.removeprefix("TRANS_STMT_").replace("_", " "))


def _set(f: Node, src: Source) -> Op:
    name = (f.get("name") or "").lower()
    values = []
    for a in f.get("args") or []:
        c = a.get("A_Const", {})
        if "sval" in c:
            values.append(c["sval"].get("sval", ""))
        elif "ival" in c:
            values.append(str(c["ival"].get("ival", 0)))
        elif "fval" in c:
            values.append(c["fval"].get("fval", ""))
    if not name:
        return Other(what="SET")
    reset = f.get("kind") in ("VAR_SET_DEFAULT", "VAR_RESET")
    if name == "search_path":
        # each value is a name as the server knows it (a bare one already folded): written back
        # quoted where needed, as the server does, so the setting reads as one written in a file
        values = [quoted_name(v) for v in values]
    return SetVariable(variable=name, value=", ".join(values), local=bool(f.get("is_local")), reset=reset)


def _call(f: Node, src: Source) -> Op:
    name = ".".join(_strings(f.get("funccall", {}).get("funcname")))
    return RunsUnseen(what=f"CALL {name}")


# what may follow the string of an EXECUTE that runs it as written
_EXECUTE_ENDS = frozenset({"USING", "INTO"})


# statements in a function body that change tables other sessions use
_BODY_DDL = Pattern(
    r"\b(?:(?:ALTER|DROP|TRUNCATE|REINDEX|CLUSTER|LOCK)\s+(?:TABLE|INDEX|VIEW|MATERIALIZED|SEQUENCE)|"
    r"CREATE\s+(?:UNIQUE\s+)?INDEX)\b",
    re.I,
)


def _builds_sql(body: str) -> bool:
    """Whether a DO or function body runs SQL it builds at run time (an EXECUTE of anything but
    one string literal: format(), ||, a variable), or calls a procedure. Words inside string
    literals do not count."""
    low = body.lower()
    if "execute" not in low and "call" not in low:
        return False  # most bodies: not tokenized
    toks = tokenize(body)
    for i, t in enumerate(toks):
        if t.upper == "CALL":
            return True
        if t.upper != "EXECUTE" or i + 1 == len(toks) or toks[i + 1].upper in ("FUNCTION", "PROCEDURE", "ON"):
            continue
        after = toks[i + 2] if i + 2 < len(toks) else None
        quoted = toks[i + 1].kind == "string" and not toks[i + 1].text.startswith("$")  # what embedded_ddl reads
        literal = quoted and (after is None or after.text == ";" or after.upper in _EXECUTE_ENDS)
        if not literal:
            return True
    return False


def _body(options: list[Node] | None) -> str:
    for o in options or []:
        d = o.get("DefElem", {})
        if d.get("defname") == "as":
            arg = d.get("arg", {})
            return " ".join(_strings(arg["List"]["items"])) if "List" in arg else arg.get("String", {}).get("sval", "")
    return ""


def _execute(f: Node, src: Source) -> Op:
    # a prepared statement is a query or DML (PREPARE takes nothing else): it locks what it reads
    # and writes, which the PREPARE elsewhere says
    return RunsUnseen(what=f"EXECUTE {f.get('name', '')}", ddl=False)


# what in a DO body may write rows the reader does not read (its DDL it reads)
_BODY_WRITES = Pattern(r"\b(?:INSERT|UPDATE|DELETE|MERGE|COPY|TRUNCATE|PERFORM|CALL)\b", re.I)


def _do(f: Node, src: Source) -> Op:
    body = _body(f.get("args"))
    return (
        RunsUnseen(what="DO block") if _builds_sql(body) else DoBlock(what="DO", writes=bool(_BODY_WRITES.search(body)))
    )


def _function(f: Node, src: Source) -> Op:
    body = _body(f.get("options"))
    name = (_strings(f.get("funcname"))[-1:] or [""])[0].lower()
    what = "CREATE PROCEDURE" if f.get("is_procedure") else "CREATE FUNCTION"
    declared = [
        d["arg"].get("String", {}).get("sval", "")
        for o in f.get("options") or []
        if (d := o.get("DefElem", {})).get("defname") == "volatility" and "arg" in d
    ]
    volatility = "" if f.get("is_procedure") else (declared[-1:] or ["volatile"])[0].lower()
    runs_sql = _builds_sql(body) or bool(_BODY_DDL.search(body))
    return CreateRoutine(
        what=what, name=name, runs_sql=runs_sql, volatility=volatility, or_replace=bool(f.get("replace"))
    )


def _extension(f: Node, src: Source) -> Op:
    return CreateObject(what="CREATE EXTENSION", object="extension", name=(f.get("extname") or "").lower())


def _grant(f: Node, src: Source) -> Op:
    if f.get("targtype") != "ACL_TARGET_OBJECT" or f.get("objtype") not in ("OBJECT_TABLE", "OBJECT_SEQUENCE"):
        return Other(what="GRANT" if f.get("is_grant") else "REVOKE")
    return Grant(tables=tuple(_rel(o["RangeVar"]) for o in f.get("objects") or [] if "RangeVar" in o))


def _trigger(f: Node, src: Source) -> Op:
    return CreateTrigger(on=_rel(f.get("relation")), name=(f.get("trigname") or ""))


def _rule(f: Node, src: Source) -> Op:
    return CreateRule(on=_rel(f.get("relation")), name=(f.get("rulename") or ""))


def _policy(f: Node, src: Source) -> Op:
    return CreatePolicy(on=_rel(f.get("table")), name=(f.get("policy_name") or ""))


def _statistics(f: Node, src: Source) -> Op:
    rels = [r["RangeVar"] for r in f.get("relations") or [] if "RangeVar" in r]
    return CreateStatistics(on=_rel(rels[0]) if rels else None, name=".".join(_strings(f.get("defnames"))))


def _alter_policy(f: Node, src: Source) -> Op:
    return AlterPolicy(on=_rel(f.get("table")), name=(f.get("policy_name") or ""))


def _owned_by(f: Node) -> str | None:
    """The table of a sequence's OWNED BY table.column."""
    for o in f.get("options") or []:
        d = o.get("DefElem", {})
        if d.get("defname") == "owned_by":
            names = _strings(d.get("arg", {}).get("List", {}).get("items"))
            return _qualified(names[:-1]) if len(names) >= 2 else None
    return None


def _create_sequence(f: Node, src: Source) -> Op:
    return CreateSequence(name=_rel(f.get("sequence")), owned_by=_owned_by(f))


def _alter_sequence(f: Node, src: Source) -> Op:
    as_type = None
    for o in f.get("options") or []:
        d = o.get("DefElem", {})
        if d.get("defname") == "as" and "TypeName" in d.get("arg", {}):
            as_type = column_type(d["arg"]["TypeName"])[1]
    return AlterSequence(name=_rel(f.get("sequence")), owned_by=_owned_by(f), as_type=as_type)


def _publication(f: Node, src: Source) -> Op:
    tables = tuple(
        _rel(o["PublicationObjSpec"].get("pubtable", {}).get("relation"))
        for o in f.get("pubobjects") or []
        if o.get("PublicationObjSpec", {}).get("pubobjtype") == "PUBLICATIONOBJ_TABLE"
    )
    return Publication(name=(f.get("pubname") or ""), tables=tables)


def _ctes(f: Node) -> set[str]:
    return {
        c["CommonTableExpr"].get("ctename", "")
        for c in (f.get("withClause") or {}).get("ctes") or []
        if "CommonTableExpr" in c
    }


def _others(f: Node, written: str, skip: tuple[str, ...] = ("relation",)) -> tuple[str, ...]:
    """The relations a data statement reads besides the one it writes."""
    ctes = _ctes(f)
    body = {k: v for k, v in f.items() if k not in skip}
    return tuple(r for r in reads(body) if r != written and r not in ctes)


def _insert(f: Node, src: Source) -> Op:
    into = _rel(f.get("relation"))
    query = (f.get("selectStmt") or {}).get("SelectStmt", {})
    from_rows = bool(query.get("fromClause"))
    columns = tuple((c.get("ResTarget", {}).get("name") or "") for c in f.get("cols") or [])
    on_conflict = (f.get("onConflictClause") or {}).get("targetList")
    return Insert(
        into=into,
        reads=_others(f, into),
        every_row=from_rows and query.get("whereClause") is None,
        columns=columns,
        repeated=_repeated(f.get("cols")) or _repeated(on_conflict),
    )


def _repeated(targets: list[Node] | None) -> tuple[str, ...]:
    """The columns a target list names twice where one of the two is the whole column (not a
    field or an element of it): PostgreSQL refuses those as multiple assignments."""
    whole: dict[str, int] = {}
    parts: set[str] = set()
    for t in targets or []:
        rt = t.get("ResTarget", {})
        name = rt.get("name") or ""
        if rt.get("indirection"):
            parts.add(name)
        else:
            whole[name] = whole.get(name, 0) + 1
    return tuple(n for n, count in whole.items() if count > 1 or n in parts)


def _update(f: Node, src: Source) -> Op:
    into = _rel(f.get("relation"))
    columns = tuple((t.get("ResTarget", {}).get("name") or "") for t in f.get("targetList") or [])
    where = f.get("whereClause")
    named = _range_names(f.get("fromClause"))
    # a join may leave a row out (or give it several matches): only a FROM list of tables says
    # which row of a relation each row updated meets
    listed = named if all("RangeVar" in item for item in f.get("fromClause") or []) else {}
    set_to, nulled = _constants_set(f.get("targetList"))
    return Update(
        into=into,
        reads=_others(f, into),
        every_row=where is None,
        filtered_on=_columns_of(f.get("relation"), where),
        null_tested=_null_tested(f.get("relation"), where),
        nulls_matched=_nulls_matched(f.get("relation"), where),
        columns=columns,
        repeated=_repeated(f.get("targetList")),
        # a FROM with no WHERE pairs each row with any row of it: no source to speak of
        sources=_sources(f.get("targetList"), named if where is not None else {}),
        joins=_joins(f.get("relation"), where, listed),
        reads_itself=_reads_whole(f.get("fromClause"), into),
        clears=_clears(f.get("targetList"), where) if not f.get("fromClause") else (),
        set_to=set_to,
        nulled=nulled,
        copies=_copies(f.get("relation"), f.get("targetList")) if not f.get("fromClause") else (),
        unorphaned=_nulled_orphans(f) if not f.get("fromClause") else (),
        **_nulls_set(f.get("relation"), f.get("targetList"), bool(f.get("fromClause"))),
        distinct_set=_distinct_set(f.get("targetList")),
    )


# functions giving each row a value of its own: random UUIDs, a sequence's next value
_DISTINCT_FUNCTIONS = frozenset({"gen_random_uuid", "uuid_generate_v4", "nextval"})


def _distinct_set(targets: list[Node] | None) -> tuple[str, ...]:
    """The SET columns given `gen_random_uuid()`, `uuid_generate_v4()` or `nextval(...)`."""
    out = []
    for t in targets or []:
        rt = t.get("ResTarget", {})
        call = _uncast(rt.get("val")).get("FuncCall", {})
        name = (_strings(call.get("funcname"))[-1:] or [""])[0].lower()
        if rt.get("name") and not rt.get("indirection") and name in _DISTINCT_FUNCTIONS:
            out.append(rt["name"])
    return tuple(out)


def _nulls_set(target: Node | None, targets: list[Node] | None, joined: bool) -> dict[str, tuple]:
    """Update.may_be_null, null_with and null_with_subquery: what each SET column's value is NULL
    for. Only what surely gives NULL somewhere counts (NULL itself, a CASE with no ELSE, NULLIF),
    and a column of the row, through the operators and functions that give NULL for a NULL, or
    through the `=` a scalar subquery finds its row by; another subquery, another function or
    another relation's column (`joined`: an UPDATE ... FROM) are taken to give a value, as a
    backfill they write means to."""
    own = _names_of(target)
    correlated: list[tuple[str, tuple[str, ...]]] = []  # the current SET column's subquery keys

    def nulls(node: Node | None) -> frozenset[str] | None:
        """None: NULL on some row; else the row's columns whose NULL makes it NULL."""
        if not isinstance(node, dict) or len(node) != 1:
            return frozenset()
        ((kind, f),) = node.items()
        if kind == "A_Const":
            return None if f.get("isnull") else frozenset()
        if kind == "TypeCast":
            return nulls(f.get("arg"))
        if kind == "ColumnRef":
            parts = _strings(f.get("fields"))
            mine = parts and (len(parts) == 1 and not joined or len(parts) == 2 and parts[0] in own)
            return frozenset(parts[-1:]) if mine else frozenset()
        if kind == "A_Expr" and f.get("kind") == "AEXPR_NULLIF":
            return None
        operator = _strings(f.get("name")) if kind == "A_Expr" and f.get("kind") == "AEXPR_OP" else []
        # `||` is NULL where both sides are (arrays) or either is (text): either, the safe side
        if len(operator) == 1 and operator[0] in (*_STRICT_OPERATORS, "||"):
            return _all(nulls(f.get("lexpr")), nulls(f.get("rexpr")))
        if kind == "FuncCall":
            name = (_strings(f.get("funcname"))[-1:] or [""])[0].lower()
            args = [nulls(a) for a in f.get("args") or []]
            if name == "coalesce":
                return _coalesced(args)
            return _all(*args) if name in _STRICT_FUNCTIONS else frozenset()
        if kind == "CoalesceExpr":
            return _coalesced([nulls(a) for a in f.get("args") or []])
        if kind == "CaseExpr":
            if f.get("defresult") is None:
                return None  # a row no WHEN matches gets NULL
            results = [w.get("CaseWhen", {}).get("result") for w in f.get("args") or []]
            return _all(nulls(f.get("defresult")), *(nulls(r) for r in results))
        if kind == "SubLink" and f.get("subLinkType") == "EXPR_SUBLINK":
            correlated.extend(_correlation(f.get("subselect"), own))
        return frozenset()

    may_be_null, null_with, by_subquery = [], [], []
    for t in targets or []:
        rt = t.get("ResTarget", {})
        if not rt.get("name") or rt.get("indirection"):
            continue
        correlated.clear()
        found = nulls(rt.get("val"))
        by_subquery += [(rt["name"], name, inner) for name, inner in correlated]
        if found is None:
            may_be_null.append(rt["name"])
        elif found:
            null_with.append((rt["name"], tuple(sorted(found))))
    return {"may_be_null": tuple(may_be_null), "null_with": tuple(null_with), "null_with_subquery": tuple(by_subquery)}


def _correlation(subselect: Node | None, own: set[str]) -> list[tuple[str, tuple[str, ...]]]:
    """For a scalar subquery of one SELECT, each `x = name` of its WHERE's top-level ANDs whose
    `name` may be the updated row's column (qualified by the row's name or alias, or not at all),
    with the subquery's relations: the row's column if none of them has a column of that name."""
    query = (subselect or {}).get("SelectStmt", {})
    if not query or query.get("op", "SETOP_NONE") != "SETOP_NONE":
        return []
    relations = [rv for kind, rv in walk(query.get("fromClause") or []) if kind == "RangeVar"]
    inner = tuple(dict.fromkeys(_rel(rv) for rv in relations))
    names = set().union(*(_names_of(rv) for rv in relations))
    where = query.get("whereClause") or {}
    both = where.get("BoolExpr", {})
    terms = both.get("args") or [] if both.get("boolop") == "AND_EXPR" else [where]
    out = []
    for term in terms:
        test = term.get("A_Expr", {}) if isinstance(term, dict) else {}
        if test.get("kind") != "AEXPR_OP" or _strings(test.get("name")) != ["="]:
            continue
        for side in (test.get("lexpr"), test.get("rexpr")):
            parts = _strings(_uncast(side).get("ColumnRef", {}).get("fields"))
            outer = len(parts) == 2 and parts[0] in own and parts[0] not in names
            if len(parts) == 1 or outer:
                out.append((parts[-1], () if outer else inner))
    return out


def _all(*parts: frozenset[str] | None) -> frozenset[str] | None:
    """The columns any of which NULL makes the whole NULL; None when a part is NULL somewhere."""
    if any(p is None for p in parts):
        return None
    return frozenset().union(*parts)  # type: ignore[arg-type]


def _coalesced(args: list[frozenset[str] | None]) -> frozenset[str] | None:
    """COALESCE's: a value where one argument always has one; else NULL where all are, counted as
    where any is (the safe side)."""
    if frozenset() in args:
        return frozenset()
    known = [a for a in args if a is not None]
    return frozenset().union(*known) if known else None


def _nulled_orphans(f: Node) -> tuple[str, ...]:
    """`_anti_join` of an UPDATE that sets the column it tests to NULL."""
    found = _anti_join(f.get("relation"), f.get("whereClause"))
    if not found:
        return ()
    setting = [t["ResTarget"] for t in f.get("targetList") or [] if t.get("ResTarget", {}).get("name") == found[0]]
    nulled = len(setting) == 1 and not setting[0].get("indirection")
    return found if nulled and _uncast(setting[0].get("val")).get("A_Const", {}).get("isnull") else ()


def _anti_join(target: Node | None, where: Node | None) -> tuple[str, ...]:
    """(column, relation, its column) for a WHERE that is only `NOT EXISTS (SELECT ... FROM
    relation WHERE relation.its_column = row.column)`: it picks every row whose non-NULL column
    finds no row there."""
    expr = (where or {}).get("BoolExpr", {})
    if expr.get("boolop") != "NOT_EXPR" or len(expr.get("args") or []) != 1:
        return ()
    link = expr["args"][0].get("SubLink", {})
    query = (link.get("subselect") or {}).get("SelectStmt", {})
    items = query.get("fromClause") or []
    if (
        link.get("subLinkType") != "EXISTS_SUBLINK"
        or len(items) != 1
        or "RangeVar" not in items[0]
        or any(query.get(k) for k in ("limitCount", "havingClause", "groupClause", "withClause", "larg"))
    ):
        return ()
    named = _range_names(items)
    own = (target or {}).get("alias", {}).get("aliasname") or (target or {}).get("relname", "")
    if own in named:  # the subquery's relation hides the row's name: the test never reaches the row
        return ()
    joins = _joins(target, query.get("whereClause"), named)
    return joins[0] if len(joins) == 1 else ()


# casts that keep distinct values distinct: to text, or to varchar of no length (one of a length
# cuts the value, and `::char` keeps one character)
_WHOLE_TEXT = frozenset({"text", "varchar"})


def _copies(target: Node | None, targets: list[Node] | None) -> tuple[tuple[str, str], ...]:
    """(column, source) for each SET column given another column of the row updated, as it is or
    cast to text."""
    out = []
    for t in targets or []:
        rt = t.get("ResTarget", {})
        val = rt.get("val") or {}
        if rt.get("indirection") or not rt.get("name"):
            continue
        while "TypeCast" in val:
            type_name = val["TypeCast"].get("typeName") or {}
            names = _strings(type_name.get("names"))
            if not names or names[-1] not in _WHOLE_TEXT or type_name.get("typmods") or type_name.get("arrayBounds"):
                break
            val = val["TypeCast"].get("arg") or {}
        if "ColumnRef" in val and (source := _columns_of(target, val)) and source[0] != rt["name"]:
            out.append((rt["name"], source[0]))
    return tuple(out)


def _clears(targets: list[Node] | None, where: Node | None) -> tuple[str, ...]:
    """(column, text, ...) for an UPDATE setting a column to a constant on the rows holding one of
    some other constants there (`SET status = 'paused' WHERE status = 'scheduled'`): after it no
    row holds those (their text, quotes taken off)."""
    held = _allowed_values(where)
    if not held:
        return ()
    column, values = held[0], held[1:]
    set_to = [
        _const(_uncast(t["ResTarget"].get("val")))
        for t in targets or []
        if t.get("ResTarget", {}).get("name") == column and not t["ResTarget"].get("indirection")
    ]
    if len(set_to) != 1 or set_to[0] in ("…", *values):
        return ()
    return _cleared(held)


def _constants_set(targets: list[Node] | None) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The columns an UPDATE sets to a constant, as (column, its text) (`SET status = 'paused'`),
    and those it sets to NULL (`SET c = NULL`, `SET c = NULL::int`)."""
    set_to, nulled = [], []
    for t in targets or []:
        target = t.get("ResTarget", {})
        if not target.get("name") or target.get("indirection"):
            continue
        value = _const(_uncast(target.get("val")))
        if value == "NULL":
            nulled.append(target["name"])
        elif value != "…":
            set_to.append((target["name"], unquoted(value)))
    return tuple(set_to), tuple(nulled)


def _cleared(held: tuple[str, ...]) -> tuple[str, ...]:
    """(column, constant, ...) as `_allowed_values` gives it, each constant's text unquoted."""
    return held[:1] + tuple(unquoted(v) for v in held[1:])


def _reads_whole(from_clause: list[Node] | None, table: str) -> bool:
    """Whether a query within a FROM list selects from `table` with no WHERE: it reads every row."""
    for kind, fields in walk(from_clause or []):
        if kind == "SelectStmt" and fields.get("whereClause") is None:
            if any(_rel(item.get("RangeVar")) == table for item in fields.get("fromClause") or []):
                return True
    return False


def _range_names(items: list[Node] | None) -> dict[str, str]:
    """The tables of a FROM list by the name its columns are qualified with (alias, else name),
    those its joins name included (`FROM documents d JOIN envelopes e ON ...`; a join given an
    alias of its own hides them)."""
    out = {}
    for item in items or []:
        rv = item.get("RangeVar")
        if rv:
            out[(rv.get("alias") or {}).get("aliasname") or rv.get("relname", "")] = _rel(rv)
        join = item.get("JoinExpr")
        if join and not join.get("alias"):
            out.update(_range_names([join.get("larg") or {}, join.get("rarg") or {}]))
    return out


def _column_of(node: Node | None, named: dict[str, str], bare: str = "") -> tuple[str, str] | None:
    """(relation, column) of a column reference qualified by one of `named` (or, given `bare`, not
    qualified: a column of that relation)."""
    parts = _strings((node or {}).get("ColumnRef", {}).get("fields"))
    if len(parts) == 2 and parts[0] in named:
        return named[parts[0]], parts[1]
    if len(parts) == 1 and bare:
        return bare, parts[0]
    return None


def _sources(targets: list[Node] | None, named: dict[str, str]) -> tuple[tuple[str, str, str], ...]:
    """The SET columns whose value is a column of a relation of FROM, or a scalar subquery reading
    one column of a relation its FROM names (whose value is that column's, or NULL): bare where the
    FROM names one relation, qualified where it joins several."""
    out = []
    for t in targets or []:
        rt = t.get("ResTarget", {})
        val = rt.get("val") or {}
        if rt.get("indirection") or not rt.get("name"):
            continue
        found = _column_of(val, named)
        sub = val.get("SubLink", {})
        query = (sub.get("subselect") or {}).get("SelectStmt", {})
        if found is None and sub.get("subLinkType") == "EXPR_SUBLINK" and len(query.get("targetList") or []) == 1:
            inner = _range_names(query.get("fromClause"))
            if inner and len(query.get("fromClause")) == 1 and not query.get("groupClause"):
                only = next(iter(inner.values())) if len(inner) == 1 else ""
                found = _column_of(query["targetList"][0].get("ResTarget", {}).get("val"), inner, only)
        if found is not None:
            out.append((rt["name"], *found))
    return tuple(out)


def _joins(target: Node | None, where: Node | None, named: dict[str, str]) -> tuple[tuple[str, str, str], ...]:
    """A WHERE made only of equalities between a column of the row updated and a column of a
    relation of FROM, as (column, relation, its column); () for any other WHERE."""
    target = target or {}
    own = {(target.get("alias") or {}).get("aliasname") or target.get("relname", ""): ""}
    terms = (
        where.get("BoolExpr", {}).get("args")
        if where and where.get("BoolExpr", {}).get("boolop") == "AND_EXPR"
        else [where]
    )
    out = []
    for term in terms or []:
        expr = (term or {}).get("A_Expr", {})
        if expr.get("kind") != "AEXPR_OP" or _strings(expr.get("name")) != ["="]:
            return ()
        sides = [(_column_of(expr.get(s), own), _column_of(expr.get(s), named)) for s in ("lexpr", "rexpr")]
        (mine_l, theirs_l), (mine_r, theirs_r) = sides
        if mine_l and theirs_r:
            out.append((mine_l[1], *theirs_r))
        elif mine_r and theirs_l:
            out.append((mine_r[1], *theirs_l))
        else:
            return ()
    return tuple(out)


def _delete(f: Node, src: Source) -> Op:
    into = _rel(f.get("relation"))
    where = f.get("whereClause")
    return Delete(
        into=into,
        reads=_others(f, into),
        every_row=where is None,
        filtered_on=_columns_of(f.get("relation"), where),
        null_tested=_null_tested(f.get("relation"), where),
        nulls_matched=_nulls_matched(f.get("relation"), where),
        clears=(_cleared(_allowed_values(where)) or _too_long(where)) if not f.get("usingClause") else (),
        unorphaned=_anti_join(f.get("relation"), where) if not f.get("usingClause") else (),
    )


_LENGTHS = frozenset({"length", "char_length", "character_length"})


def _too_long(where: Node | None) -> tuple[str, ...]:
    """(column, `longer_than(n)`) for a WHERE that is only `length(col) > n` (or `>= n + 1`;
    char_length, character_length): the rows it picks hold every value longer than n characters."""
    expr = (where or {}).get("A_Expr", {})
    op = _strings(expr.get("name"))
    call = _uncast(expr.get("lexpr")).get("FuncCall", {})
    args = call.get("args") or []
    bound = _const(_uncast(expr.get("rexpr")))
    if (
        expr.get("kind") != "AEXPR_OP"
        or op not in ([">"], [">="])
        or (_strings(call.get("funcname")) or [""])[-1] not in _LENGTHS
        or len(args) != 1
        or not _uncast(args[0]).get("ColumnRef", {}).get("fields")
        or not bound.isdigit()
    ):
        return ()
    column = _strings(_uncast(args[0])["ColumnRef"]["fields"])[-1]
    return (column, longer_than(int(bound) - (op == [">="])))


def _columns_of(target: Node | None, expr: Node | None) -> tuple[str, ...]:
    """Lower-case names of the columns of `target` (a RangeVar) that an expression may use: those
    qualified by its name or alias, and the unqualified ones (which may be its own)."""
    own = _names_of(target)
    used = []
    for kind, fields in walk(expr):
        if kind == "ColumnRef":
            parts = _strings(fields.get("fields"))
            if parts and (len(parts) == 1 or parts[-2] in own):
                used.append((fields.get("location", 0), parts[-1]))
    return tuple(dict.fromkeys(name for _, name in sorted(used)))  # in the order they are written


def _nulls_matched(target: Node | None, where: Node | None) -> tuple[str, ...]:
    """The columns of `target` whose `IS NULL` implies the WHERE, which so matches every row holding
    NULL there: a `col IS NULL` test, an OR one side of which is implied, an AND every side of which is."""

    def implied_by(node: Node | None) -> set[str]:
        if not isinstance(node, dict) or len(node) != 1:
            return set()
        ((kind, f),) = node.items()
        if kind == "NullTest" and f.get("nulltesttype") == "IS_NULL" and "ColumnRef" in (f.get("arg") or {}):
            return set(_columns_of(target, f["arg"]))
        if kind == "BoolExpr" and f.get("boolop") in ("OR_EXPR", "AND_EXPR") and f.get("args"):
            sides = [implied_by(a) for a in f["args"]]
            return set().union(*sides) if f["boolop"] == "OR_EXPR" else set.intersection(*sides)
        return set()

    return tuple(sorted(implied_by(where)))


def _names_of(target: Node | None) -> set[str]:
    """The names a query's columns may be qualified by to mean `target`'s (a RangeVar): its name
    and its alias."""
    target = target or {}
    return {target.get("relname") or "", (target.get("alias") or {}).get("aliasname") or ""} - {""}


def _null_tested(target: Node | None, expr: Node | None) -> tuple[str, ...]:
    """The columns of `target` an expression uses only in `col IS NULL` tests."""
    tested = [
        _columns_of(target, {"ColumnRef": test["arg"]["ColumnRef"]})
        for kind, test in walk(expr)
        if kind == "NullTest" and test.get("nulltesttype") == "IS_NULL" and "ColumnRef" in test.get("arg", {})
    ]
    uses = [name for kind, fields in walk(expr) if kind == "ColumnRef" for name in _columns_of(target, {kind: fields})]
    return tuple(
        c for c in dict.fromkeys(n for t in tested for n in t) if uses.count(c) == sum(t.count(c) for t in tested)
    )


def _merge(f: Node, src: Source) -> Op:
    into = _rel(f.get("relation"))
    clauses = [c.get("MergeWhenClause", {}) for c in f.get("mergeWhenClauses") or []]
    repeated = tuple(dict.fromkeys(n for c in clauses for n in _repeated(c.get("targetList"))))
    return Merge(into=into, reads=_others(f, into), every_row=True, repeated=repeated)


def _copy(f: Node, src: Source) -> Op:
    if f.get("is_from") and f.get("relation"):
        return CopyFrom(into=_rel(f.get("relation")))
    query = f.get("query")
    relation = [_rel(f["relation"])] if f.get("relation") else []
    return Select(reads=tuple(relation) or reads(query), every_row=True)


_ROW_LOCKS = {
    "LCS_FORUPDATE": "FOR UPDATE",
    "LCS_FORNOKEYUPDATE": "FOR NO KEY UPDATE",
    "LCS_FORSHARE": "FOR SHARE",
    "LCS_FORKEYSHARE": "FOR KEY SHARE",
}


def _select(f: Node, src: Source) -> Op:
    if f.get("intoClause"):  # SELECT ... INTO new_table: CREATE TABLE AS
        into = f["intoClause"]
        rv = into.get("rel", {})
        query = {k: v for k, v in f.items() if k != "intoClause"}
        return CreateTableAs(
            model=Table(name=_rel(rv)),
            reads=reads(query),
            repeated=_twice(_output_names(_strings(into.get("colNames")), query)),
        )
    if f.get("valuesLists") and not f.get("fromClause"):
        return Other(what="VALUES")
    setting = _set_config(f)
    if setting is not None:
        return setting
    read = tuple(r for r in reads(f) if r not in _ctes(f))
    if not read:
        # computes values, reads no table (SELECT 1, setval(...), a function call)
        return Other(what="SELECT", calls=calls(f.get("targetList")))
    clauses = [c["LockingClause"] for c in f.get("lockingClause") or [] if "LockingClause" in c]
    row_lock = _ROW_LOCKS.get(clauses[0].get("strength", ""), "FOR UPDATE") if clauses else None
    locked: list[str] = []
    for c in clauses:
        named = [_rel(r.get("RangeVar")) for r in c.get("lockedRels") or [] if "RangeVar" in r]
        locked += named or list(read)
    return Select(
        reads=read, every_row=f.get("whereClause") is None, row_lock=row_lock, locked=tuple(dict.fromkeys(locked))
    )


def _set_config(f: Node) -> SetVariable | None:
    """`SELECT set_config('search_path', 'app', false)` (pg_dump's preamble) as the SET it is."""
    targets = f.get("targetList") or []
    if f.get("fromClause") or len(targets) != 1:
        return None
    call = targets[0].get("ResTarget", {}).get("val", {}).get("FuncCall")
    if not call or _strings(call.get("funcname"))[-1:] != ["set_config"]:
        return None
    args = [a.get("A_Const", {}) for a in call.get("args") or []]
    if len(args) != 3 or not all("sval" in a for a in args[:2]):
        return None
    local = args[2].get("boolval", {}).get("boolval", False) if "boolval" in args[2] else None
    if local is None:
        return None
    return SetVariable(variable=args[0]["sval"]["sval"].lower(), value=args[1]["sval"]["sval"], local=local)


def _comment(f: Node, src: Source) -> Op:
    obj = str(f.get("objtype", "")).removeprefix("OBJECT_").lower()
    items = (
        _strings(f.get("object", {}).get("List", {}).get("items"))
        if "List" in (f.get("object") or {})
        else _strings([f.get("object")])
        if f.get("object")
        else []
    )
    on = None
    if obj in ("table", "view", "matview", "foreign_table") and items:
        on = _qualified(items)
    elif obj in ("column", "tabconstraint", "trigger", "rule", "policy") and len(items) >= 2:
        on = _qualified(items[:-1])
    return Comment(
        on=on,
        name=items[-1] if items else None,
        object={"tabconstraint": "constraint", "matview": "materialized view"}.get(obj, obj),
    )


def _type_name(names: list[Node] | None) -> str:
    """A type's name as `column_type` spells it for the columns of that type."""
    return column_type({"names": names or []})[1]


def _alter_domain(f: Node, src: Source) -> Op:
    action = {"C": "add_constraint", "O": "set_not_null", "V": "validate"}.get(f.get("subtype", ""), "other")
    c = (f.get("def") or {}).get("Constraint", {})
    return AlterDomain(
        what="ALTER DOMAIN",
        name=_type_name(f.get("typeName")),
        action=action,
        constraint=c.get("conname") or f.get("name"),
        not_valid=bool(c.get("skip_validation")),
    )


def _create_schema(f: Node, src: Source) -> Op:
    role = (f.get("authrole") or {}).get("rolename")
    return CreateSchema(what="CREATE SCHEMA", name=f.get("schemaname") or role or "")


def _create_domain(f: Node, src: Source) -> Op:
    return CreateDomain(what="CREATE DOMAIN", name=_type_name(f.get("domainname")))


def _create_enum(f: Node, src: Source) -> Op:
    return CreateEnum(what="CREATE ENUM", name=_type_name(f.get("typeName")), labels=tuple(_strings(f.get("vals"))))


def _alter_enum(f: Node, src: Source) -> Op:
    if f.get("oldVal"):  # RENAME VALUE old TO new: no label is added
        return RenameEnumValue(
            what="ALTER TYPE … RENAME VALUE",
            name=_type_name(f.get("typeName")),
            old=f["oldVal"],
            new=f.get("newVal", ""),
        )
    if not f.get("newVal"):
        return Other(what="ALTER TYPE")
    return AlterEnum(
        what="ALTER TYPE … ADD VALUE",
        name=_type_name(f.get("typeName")),
        value=f["newVal"],
        if_not_exists=bool(f.get("skipIfNewValExists")),
    )


_BUILDERS: dict[str, Callable[[Node, Source], Op]] = {
    "CreateStmt": _create,
    "CreateTableAsStmt": _create_as,
    "IndexStmt": _index,
    "DropStmt": _drop,
    "DropdbStmt": _dropdb,
    "TruncateStmt": _truncate,
    "RenameStmt": _rename,
    "AlterObjectSchemaStmt": _set_schema,
    "AlterTableStmt": _alter_table,
    "ViewStmt": _view,
    "RefreshMatViewStmt": _refresh,
    "VacuumStmt": _vacuum,
    "ReindexStmt": _reindex,
    "ClusterStmt": _cluster,
    "LockStmt": _lock,
    "TransactionStmt": _transaction,
    "VariableSetStmt": _set,
    "GrantStmt": _grant,
    "CallStmt": _call,
    "DoStmt": _do,
    "ExecuteStmt": _execute,
    "CreateFunctionStmt": _function,
    "CreateExtensionStmt": _extension,
    "CreateTrigStmt": _trigger,
    "RuleStmt": _rule,
    "CreatePolicyStmt": _policy,
    "AlterPolicyStmt": _alter_policy,
    "CreateSeqStmt": _create_sequence,
    "AlterSeqStmt": _alter_sequence,
    "CreatePublicationStmt": _publication,
    "AlterPublicationStmt": _publication,
    "InsertStmt": _insert,
    "UpdateStmt": _update,
    "DeleteStmt": _delete,
    "MergeStmt": _merge,
    "CopyStmt": _copy,
    "SelectStmt": _select,
    "CreateStatsStmt": _statistics,
    "CommentStmt": _comment,
    "AlterDomainStmt": _alter_domain,
    "CreateDomainStmt": _create_domain,
    "AlterEnumStmt": _alter_enum,
    "CreateEnumStmt": _create_enum,
    "CreateSchemaStmt": _create_schema,
}
