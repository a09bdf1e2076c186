"""The evidence catalogue: measured results and documentation that rules cite by id.

The built-in catalogue is ``catalogue.toml`` next to this module. Plugins add files of the same
shape through the ``schemacite_evidence`` hook; their ids must be namespaced (``acme:some-id``).

The record's keys are the fields of `Evidence` below and a figure's those of `Figure`, each
with its type and what it holds, read by the one codec (`schemacite.model.codec`), whose errors
name the record and the path (`catalogue.toml: [[evidence]] id=foo: figures[1].number: ...`).
`record_keys()` writes them out for the docs (docs/plugins.md).

Only the standard library is imported, so loading stays cheap; the built-in files are read
through a JSON copy in the user's cache (`schemacite.sources.cache.memo_json`), since parsing TOML
in pure Python took longer than linting a few files. Every record is checked on either path.
"""

from __future__ import annotations

import datetime
import functools
import itertools
import re
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import field
from pathlib import Path
from typing import Annotated, Literal, NotRequired, TypedDict

from schemacite.model import dialects
from schemacite.model.codec import Codec, DecodeError, describe
from schemacite.model.record import record

__all__ = [
    "DIALECTS",
    "KINDS",
    "Catalogue",
    "Evidence",
    "load_catalogue",
    "measured_for",
    "nearest",
    "rate_for",
    "read_catalogue",
    "use_files",
]

DIALECTS = frozenset(dialects.DIALECTS)
QUOTE_WORDS = 25  # short enough to be a quotation, long enough to carry a figure and its context

_SLUG = r"[a-z0-9]+(?:-[a-z0-9]+)*"
_BUILTIN_ID = re.compile(_SLUG)
_PACK_ID = re.compile(rf"[a-z0-9][a-z0-9_-]*:{_SLUG}")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_CITE_KEYS = ("server", "hardware", "tool")


# ---- what a value must be: checks the codec runs after reading a field (`Annotated[type, check]`)


def _words(text: str) -> str:
    if not text.strip():
        raise ValueError("expected some text, got an empty string")
    return text


def _stripped(text: str) -> str:
    return _words(text).strip()


def _quoted(text: str) -> str:
    words = len(_words(text).split())
    if words > QUOTE_WORDS:
        raise ValueError(f"quote has {words} words; quote at most {QUOTE_WORDS} of the source's own")
    return text.strip()


def _date(text: str) -> str:
    if text and not _DATE.fullmatch(text):
        raise ValueError(f'expected a date "YYYY-MM-DD", got {text!r}')
    try:
        return text and datetime.date.fromisoformat(text).isoformat()
    except ValueError:
        raise ValueError(f"{text!r} is not a valid date") from None


def _url(text: str) -> str:
    if not text.startswith(("https://", "http://")):
        raise ValueError("a url starts with https:// or http://")
    return text


def _dialect(name: str) -> str:
    if name not in DIALECTS:
        raise ValueError(f"unknown dialect {name!r} (use {', '.join(sorted(DIALECTS))})")
    return name


def _some(values: frozenset[str]) -> frozenset[str]:
    if not values:
        raise ValueError("expected at least one dialect")
    return values


def _positive(text: str) -> str:
    try:
        if float(text) > 0:
            return text
    except ValueError:
        pass
    raise ValueError(f"expected a positive number, got {text!r}")


def _one_or_many(quotes: str | tuple[str, ...]) -> tuple[str, ...]:
    return (quotes,) if isinstance(quotes, str) else quotes


Words = Annotated[str, _words]
Text = Annotated[str, _stripped]
Quote = Annotated[str, _quoted]
Kind = Literal["measurement", "documentation", "reasoning"]
KINDS = frozenset(typing.get_args(Kind))


class Figure(TypedDict):
    """One figure of a record, as the catalogue writes it (every value a string)."""

    metric: Annotated[Words, "what was measured"]
    value: Annotated[Words, "the figure as a person reads it"]
    note: NotRequired[Annotated[Words, "a remark on it"]]
    quantity: NotRequired[Annotated[Words, "the name lock estimates read its number by (rewrite_bytes_per_second)"]]
    number: NotRequired[Annotated[str, _positive, 'the number itself ("3.1e+07"); goes with quantity']]
    runs: NotRequired[Annotated[Words, 'how many runs it is the median of ("1": one run, spread unknown)']]
    low: NotRequired[Annotated[Words, "the lowest run, with high, over two runs or more"]]
    high: NotRequired[Annotated[Words, "the highest run"]]
    fit: NotRequired[Annotated[Words, "R² of the line a rate is the slope of"]]
    quote: NotRequired[Annotated[Quote, f"the source's own words that support it (at most {QUOTE_WORDS})"]]
    headline: NotRequired[Annotated[Words, "the rules (comma-separated) whose evidence it heads in the README"]]


def _figure(fig: Figure) -> Figure:
    """A figure's keys that go together, and agree."""
    if ("quantity" in fig) != ("number" in fig):
        raise ValueError("quantity and number go together")
    given = [k for k in ("runs", "low", "high", "fit") if k in fig]
    if given and "number" not in fig:
        raise ValueError(f"{', '.join(given)} go with a number")
    if ("low" in fig) != ("high" in fig):
        raise ValueError("low and high go together")
    try:
        runs = int(fig.get("runs", "1"))
        low, high = float(fig.get("low", 0)), float(fig.get("high", 0))
        fit = float(fig.get("fit", 0))
    except ValueError:
        raise ValueError("runs must be a whole number; low, high and fit numbers") from None
    if runs < 1:
        raise ValueError("runs must be at least 1")
    if "low" in fig and (runs < 2 or not low <= float(fig["number"]) <= high):
        raise ValueError("low <= number <= high, over two runs or more")
    if not 0 <= fit <= 1:
        raise ValueError("fit is R², between 0 and 1")
    return fig


@record(frozen=True)
class Evidence:
    """One catalogue record. ``published`` is "" for undated documentation pages."""

    id: Annotated[Text, "kebab-case; a plugin's namespaced as pack:kebab-id"]
    kind: Annotated[Kind, "what backs it: a run, a manual page, or an argument"]
    title: Annotated[Text, "the source's title"]
    source: Annotated[Text, "who published it"]
    shows: Annotated[Text, "what it shows, in a sentence"]
    applies_to: Annotated[frozenset[Annotated[str, _dialect]], _some, "the dialects it holds for"]
    published: Annotated[str, _date, '"YYYY-MM-DD"; required unless a documentation page (undated)'] = ""
    url: Annotated[str, _url, "where to read it"] | None = None
    authors: Annotated[tuple[Text, ...], "names"] = ()
    setup: Annotated[dict[str, Words], "server, hardware, tool, ...; a measurement needs one"] = field(
        default_factory=dict
    )
    figures: Annotated[tuple[Annotated[Figure, _figure], ...], "a measurement needs at least one"] = ()
    limits: Annotated[str, str.strip, "what it does not show"] = ""
    rules: Annotated[tuple[Text, ...], "the rules a measurement of one's own backs: their findings cite it"] = ()
    quotes: Annotated[
        Quote | tuple[Quote, ...],
        _one_or_many,
        f"the source's words for shows (a list when it says more than one thing), at most {QUOTE_WORDS} words each",
    ] = field(default=(), metadata={"key": "quote"})
    unquoted: Annotated[Text, "why a published record carries no quote"] = ""

    def __hash__(self) -> int:  # setup is a dict; the id identifies a record
        return hash(self.id)

    @property
    def year(self) -> str:
        return self.published[:4]

    def citation(self) -> str:
        """Short one-liner for text output.

        ``Percona 2013 · MySQL 5.5.34 Community Server, 16 vCPU, 60.5 GB RAM, sysbench`` for a
        measurement; the manual edition and section for a documentation page.
        """
        if self.kind == "documentation" and self.setup.get("document"):
            parts = [self.setup[k] for k in ("document", "section") if self.setup.get(k)]
            return ", ".join(parts)
        head = f"{self.source} {self.year}" if self.year else self.source
        parts = [self.setup[k] for k in _CITE_KEYS if self.setup.get(k)]
        return f"{head} · {', '.join(parts)}" if parts else head

    def short_citation(self) -> str:
        """`Percona 2013 · MySQL 5.5.34 Community Server`: who, when, on which server."""
        head = f"{self.source} {self.year}" if self.year else self.source
        server = self.setup.get("server") or self.setup.get("document")
        return f"{head} · {server}" if server else head

    def as_dict(self) -> dict:
        """The full record, JSON-ready (lists instead of tuples/sets, None for missing values)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "title": self.title,
            "source": self.source,
            "authors": list(self.authors),
            "url": self.url,
            "published": self.published or None,
            "setup": dict(self.setup),
            "figures": [dict(f) for f in self.figures],
            "shows": self.shows,
            "limits": self.limits,
            "applies_to": sorted(self.applies_to),
            "rules": list(self.rules),
            "quote": list(self.quotes),
            "unquoted": self.unquoted or None,
        }

    def rate(self, quantity: str) -> float | None:
        """The number of the figure measuring `quantity`, if the record has one."""
        for f in self.figures:
            if f.get("quantity") == quantity:
                return float(f["number"])
        return None

    def applies(self, dialect: str) -> bool:
        return dialects.canonical(dialect) in self.applies_to

    def headline(self, rule: str) -> dict | None:
        """The figure that heads `rule`'s evidence, if this record holds it."""
        for f in self.figures:
            if rule in (name.strip() for name in f.get("headline", "").split(",")):
                return f
        return None


_extra: list[Path] = []  # files every load_catalogue() includes: plugins' and the config's


def use_files(paths: Iterable[Path | str]) -> None:
    """Include these catalogue files (plugin catalogues, `evidence = [...]` in the config, records
    `evidence reproduce --save` wrote) in every catalogue this process loads."""
    for path in paths:
        if Path(path) not in _extra:
            _extra.append(Path(path))
    _loaded.cache_clear()
    _measurements.cache_clear()


def load_catalogue(extra_paths: Iterable[Path] = ()) -> dict[str, Evidence]:
    """Return the catalogue keyed by id: the built-in files, the files `use_files` named, and any
    extra (plugin) files, every record decoded and checked.

    The built-in file is parsed once per process. Extra files must use namespaced ids
    (``pack:some-id``) that do not repeat an id already loaded. Bad data raises ValueError
    with ``"<path>: [[evidence]] id=<id>: <path in the record>: <message>"`` (``#<N>``, counting
    records from 1, for a record without a usable id).
    """
    extra_paths = tuple(Path(p) for p in extra_paths)
    if not extra_paths:
        return dict(_loaded(tuple(_extra)))  # a copy: callers may change theirs, never the cache
    return dict(_load((*_extra, *extra_paths)))


def read_catalogue() -> Catalogue:
    """The catalogue `load_catalogue()` returns, read-only, not copied, and lazy: a built-in record
    is decoded when it is first read. What a lint run looks records up in."""
    return _loaded(tuple(_extra))


class Catalogue(Mapping[str, Evidence]):
    """The catalogue by id. A built-in record is decoded, and checked, the first time it is read: a
    run with a finding reads the few records its rules cite, where decoding all of them cost a
    pre-commit run more than linting its file did. The extra files' records are decoded (and
    checked) when they load. `where` picks records, screening the built-in ones in their raw form."""

    def __init__(self, builtin: _Builtin, extra: dict[str, Evidence]):
        self._builtin, self._extra = builtin, extra
        # what each finding asks again, by (ids, dialect): the records never change once loaded
        self._holding: dict[tuple[tuple[str, ...], str], tuple[str, ...]] = {}
        self._measuring: dict[tuple[tuple[str, ...], str], bool] = {}

    def holding(self, ids: tuple[str, ...], dialect: str) -> tuple[str, ...]:
        """The ids whose records hold for `dialect`, an id it does not hold kept (a rule may cite
        a record a plugin's catalogue adds)."""
        key = (ids, dialect)
        found = self._holding.get(key)
        if found is None:
            found = self._holding[key] = tuple(i for i in ids if i not in self or self[i].applies(dialect))
        return found

    def measured_on(self, ids: tuple[str, ...], dialect: str) -> bool:
        """Whether one of the records `ids` names is a measurement that holds for `dialect`."""
        key = (ids, dialect)
        found = self._measuring.get(key)
        if found is None:
            found = self._measuring[key] = any(
                i in self and self[i].kind == "measurement" and self[i].applies(dialect) for i in ids
            )
        return found

    def __getitem__(self, key: str) -> Evidence:
        found = self._extra.get(key)
        return found if found is not None else self._builtin.record(key)

    def __contains__(self, key: object) -> bool:
        return key in self._extra or key in self._builtin.raw

    def __iter__(self) -> Iterator[str]:
        return itertools.chain(self._builtin.raw, self._extra)

    def __len__(self) -> int:
        return len(self._builtin.raw) + len(self._extra)

    def where(self, screen: Callable[[dict], bool], test: Callable[[Evidence], bool]) -> list[Evidence]:
        """The records `test` admits; a built-in one is decoded only when `screen`, which must admit
        every raw record whose decoded form `test` could admit, admits its raw form."""
        built = (self._builtin.record(i) for i, (_, raw) in self._builtin.raw.items() if screen(raw))
        return [e for e in itertools.chain(built, self._extra.values()) if test(e)]


def picked(catalogue: Mapping[str, Evidence], screen: Callable[[dict], bool], test: Callable[[Evidence], bool]):
    """`catalogue.where(screen, test)` for the lazy catalogue, the same pick from any mapping."""
    if isinstance(catalogue, Catalogue):
        return catalogue.where(screen, test)
    return [e for e in catalogue.values() if test(e)]


@functools.lru_cache(maxsize=4)
def _loaded(paths: tuple[Path, ...]) -> Catalogue:
    return _load(paths)


def _load(extra_paths: tuple[Path, ...]) -> Catalogue:
    builtin = _builtin()
    extra: dict[str, Evidence] = {}
    origin: dict[str, str] = {}
    for path in extra_paths:
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ValueError(f"{path}: cannot read evidence catalogue: {exc.strerror or exc}") from None
        for _, entry in _parse(data, str(path), namespaced=True):
            if entry.id in extra or entry.id in builtin.raw:
                was = origin.get(entry.id, "built-in catalogue")
                raise ValueError(f"{path}: [[evidence]] id={entry.id}: duplicate id (already defined in {was})")
            extra[entry.id] = entry
            origin[entry.id] = str(path)
    return Catalogue(builtin, extra)


# --- internals ---------------------------------------------------------------------------------


BUILTIN_FILES = ("catalogue.toml", "measured.toml")  # published sources; schemacite's own measurements


class _Builtin:
    """The built-in files' records by id, raw, and each decoded the first time it is read. Their ids
    are checked when the files load; the rest of a record when it is decoded (the suite decodes
    every one)."""

    def __init__(self) -> None:
        self.raw: dict[str, tuple[Path, dict]] = {}  # id -> (the file, the record as read)
        self._done: dict[str, Evidence] = {}

    def record(self, key: str) -> Evidence:
        found = self._done.get(key)
        if found is None:
            path, raw = self.raw[key]
            found = self._done[key] = _decoded(raw, path, key)
        return found


@functools.lru_cache(maxsize=1)
def _builtin() -> _Builtin:
    out = _Builtin()
    for name in BUILTIN_FILES:
        res = Path(__file__).with_name(name)
        data = res.read_bytes()
        try:
            records = _raw_ids(_doc(data, str(res), memo=True), str(res))
        except ValueError:  # a damaged copy in the cache: read the TOML itself
            records = _raw_ids(_doc(data, str(res), memo=False), str(res))
        for ident, raw in records:
            if ident in out.raw:
                raise ValueError(f"{res}: [[evidence]] id={ident}: duplicate id")
            out.raw[ident] = (res, raw)
    return out


def _raw_ids(doc: object, where: str) -> list[tuple[str, dict]]:
    """(id, raw record) of a built-in file, its ids checked (a record without a usable id is
    decoded now, for the error saying what is wrong with it)."""
    out = []
    seen: set[str] = set()
    for n, raw in _raw_records(doc, where, allow_empty=True):
        ident = raw.get("id") if isinstance(raw, dict) else None
        if not isinstance(raw, dict) or not isinstance(ident, str) or not ident.strip():
            try:  # decoded for the error saying what is wrong with it
                _codec().decode(raw, _RECORD)
            except DecodeError as e:
                raise ValueError(f"{where}: [[evidence]] #{n}: {e}") from None
            raise ValueError(f"{where}: [[evidence]] #{n}: no id")
        ident = ident.strip()
        if not _BUILTIN_ID.fullmatch(ident):
            raise ValueError(
                f"{where}: [[evidence]] id={ident}: id {ident!r} must be kebab-case (lowercase letters, digits and '-')"
            )
        if ident in seen:
            raise ValueError(f"{where}: [[evidence]] id={ident}: duplicate id {ident!r}")
        seen.add(ident)
        out.append((ident, raw))
    return out


def _decoded(raw: dict, path: Path, ident: str) -> Evidence:
    """A built-in record, decoded and checked; read again from the TOML itself when the cache's
    copy does not decode (a damaged copy), and refused with its place when that fails too."""
    try:
        return _codec().decode(raw, _RECORD)
    except DecodeError:
        pass
    doc = _jsonable(_toml(path.read_bytes(), str(path)))
    for _, entry in _records(doc, str(path), namespaced=False, allow_empty=True):
        if entry.id == ident:
            return entry
    raise ValueError(f"{path}: [[evidence]] id={ident}: the record is gone from the file")


# ---- which measurements a finding cites -------------------------------------------------------


def server_version(record: Evidence) -> tuple[int, ...]:
    """The server version a measurement ran on, from setup.server ("PostgreSQL 15.4", "10.11.6-MariaDB")."""
    m = re.search(r"(\d+)\.(\d+)", record.setup.get("server", ""))
    return (int(m.group(1)), int(m.group(2))) if m else ()


def nearest(records: list[Evidence], target: dialects.Target) -> Evidence:
    """The user's own record (namespaced id) first; else the one measured nearest the target."""
    want = target.version
    postgres = target.dialect is dialects.Dialect.POSTGRES

    def distance(e: Evidence) -> tuple:
        v = server_version(e)[: 1 if postgres else 2]
        gap = abs(v[0] - want[0]) * 100 + (abs(v[1] - want[1]) if len(v) > 1 and len(want) > 1 else 0) if v else 10**6
        return (":" not in e.id, gap, e.id)

    return min(records, key=distance)


def naming(catalogue: Mapping[str, Evidence], rule: str) -> list[Evidence]:
    """The records whose `rules` name `rule` (measurements of one's own that back its findings)."""
    return picked(catalogue, lambda raw: rule in str(raw.get("rules")), lambda e: rule in e.rules)


def measured_for(
    rule: str, dialect: str, target: dialects.Target, catalogue: Mapping[str, Evidence]
) -> tuple[str, ...]:
    """The measurements of one's own (records naming `rule` in `rules`) a finding of `rule` cites:
    per experiment, the user's own run if one is loaded, else the run nearest the target."""
    by_tool: dict[str, list[Evidence]] = {}
    for e in naming(catalogue, rule):
        if e.applies(dialect):
            by_tool.setdefault(e.setup.get("tool", e.id), []).append(e)
    return tuple(nearest(records, target).id for _, records in sorted(by_tool.items()))


def measurements(rule: str, dialect: str, target: dialects.Target) -> tuple[str, ...]:
    """The measurements of one's own a finding of `rule` cites, for the catalogue as loaded now;
    kept per run, as findings ask often."""
    return _measurements(rule, dialect, target, tuple(_extra))


@functools.lru_cache(maxsize=256)
def _measurements(rule: str, dialect: str, target: dialects.Target, files: tuple) -> tuple[str, ...]:
    return measured_for(rule, dialect, target, _loaded(files))


def measured_on(ids: Iterable[str], dialect: str) -> bool:
    """Whether one of the records `ids` names is a measurement that holds for `dialect`."""
    return read_catalogue().measured_on(tuple(ids), dialect)


def rate_for(
    quantity: str, dialect: str, target: dialects.Target, catalogue: Mapping[str, Evidence]
) -> tuple[float, Evidence] | None:
    """(rate, record) of `quantity` measured on this dialect, from the record nearest the target
    (the user's own first)."""
    measuring = picked(
        catalogue, lambda raw: quantity in str(raw.get("figures")), lambda e: e.rate(quantity) is not None
    )
    records = [e for e in measuring if e.applies(dialect)]
    if not records:
        return None
    best = nearest(records, target)
    return best.rate(quantity) or 0.0, best


def _parse(
    data: bytes, where: str, *, namespaced: bool, allow_empty: bool = False, memo: bool = False
) -> list[tuple[int, Evidence]]:
    doc = _doc(data, where, memo=memo)
    try:
        return _records(doc, where, namespaced=namespaced, allow_empty=allow_empty)
    except ValueError:
        if not memo:
            raise
    # a damaged copy in the cache: read the TOML itself
    return _records(_jsonable(_toml(data, where)), where, namespaced=namespaced, allow_empty=allow_empty)


def _doc(data: bytes, where: str, *, memo: bool) -> object:
    """A catalogue file as JSON-ready data; the built-in files' (`memo`) from the user's cache."""
    if memo:  # the built-in files: tomllib is pure Python and took longer than linting a few files
        # start-up: the parse cache's memo (and its hash) loads only when the built-in files are read
        from schemacite.sources.cache import memo_json

        return memo_json("evidence", data, lambda: _jsonable(_toml(data, where)))
    return _jsonable(_toml(data, where))


def _raw_records(doc: object, where: str, *, allow_empty: bool) -> list[tuple[int, object]]:
    """The file's records as read, numbered from 1, the file's own shape checked."""
    if not isinstance(doc, dict):
        raise ValueError(f"{where}: not a TOML document")
    unknown = sorted(set(doc) - {"evidence"})
    if unknown:
        raise ValueError(f"{where}: unknown top-level key(s) {', '.join(unknown)} (expected [[evidence]] records)")
    records = doc.get("evidence")
    if records is None and allow_empty:
        return []
    if not isinstance(records, list) or not records:
        raise ValueError(f"{where}: no [[evidence]] records")
    return list(enumerate(records, start=1))


def _records(doc: object, where: str, *, namespaced: bool, allow_empty: bool) -> list[tuple[int, Evidence]]:
    seen: dict[str, int] = {}
    out = []
    for n, raw in _raw_records(doc, where, allow_empty=allow_empty):
        ident = raw.get("id") if isinstance(raw, dict) else None
        prefix = f"{where}: [[evidence]] " + (f"id={ident}" if isinstance(ident, str) and ident.strip() else f"#{n}")
        try:
            entry = _codec().decode(raw, _RECORD)
        except DecodeError as e:
            raise ValueError(f"{prefix}: {e}") from None
        if namespaced and not _PACK_ID.fullmatch(entry.id):
            raise ValueError(
                f"{prefix}: id {entry.id!r} must be namespaced as 'pack:kebab-id' (for example 'acme:slow-insert')"
            )
        if not namespaced and not _BUILTIN_ID.fullmatch(entry.id):
            raise ValueError(f"{prefix}: id {entry.id!r} must be kebab-case (lowercase letters, digits and '-')")
        if entry.id in seen:
            raise ValueError(f"{prefix}: duplicate id {entry.id!r} (already used by [[evidence]] #{seen[entry.id]})")
        seen[entry.id] = n
        out.append((n, entry))
    return out


@functools.lru_cache(maxsize=1)
def _codec() -> Codec:
    return Codec()


def _toml(data: bytes, where: str) -> dict:
    # start-up: tomllib loads only when there is a TOML file to read
    import tomllib

    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not UTF-8 text: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{where}: invalid TOML: {exc}") from None


def _jsonable(value: object) -> object:
    """A TOML document as JSON holds it: dates as ISO text (a record's `published`)."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return value


def _whole(e: Evidence) -> Evidence:
    """What a record's keys say together."""
    if not e.published and e.kind != "documentation":
        raise ValueError('missing published ("YYYY-MM-DD")')
    if e.kind == "measurement" and not e.setup:
        raise ValueError("a measurement needs a setup table (server, hardware, tool, ...)")
    if e.kind == "measurement" and not e.figures:
        raise ValueError("a measurement needs at least one figure")
    return e


_RECORD = Annotated[Evidence, _whole]


def record_keys() -> str:
    """The record's and a figure's keys, their types and what they hold, as Markdown."""
    return f"{describe(Evidence)}\n\nA figure (`figures = [{{ metric = ..., value = ... }}]`):\n\n{describe(Figure)}\n"
