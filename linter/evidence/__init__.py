"""The evidence catalogue: measured results and documentation that rules cite by id.

The built-in catalogue is ``catalogue.toml`` next to this module. Plugins add files of the same
shape through the ``schemacite_evidence`` hook; their ids must be namespaced (``acme:some-id``).

Record keys (see ``catalogue.toml`` for examples):

* required: ``id``, ``kind`` (measurement | documentation | reasoning), ``title``, ``source``,
  ``shows``, ``applies_to`` (mysql, mariadb, postgres)
* ``published`` ("YYYY-MM-DD"): required unless ``kind = "documentation"`` (manual pages are
  undated; their edition goes in ``setup.document``)
* a ``measurement`` also needs a non-empty ``setup`` table and at least one figure
* optional: ``url``, ``authors``, ``setup``, ``figures`` (``{metric, value, note?}``), ``limits``,
  ``rules`` (the rules a measurement of one's own backs: findings of those rules cite it)
* a figure may carry a ``quantity`` and its ``number`` (``rewrite_bytes_per_second``, ``"3.1e+07"``):
  the rates lock estimates read. With a number go ``runs`` (how many runs it is the median of;
  ``"1"`` for a single run, whose spread is unknown), ``low`` and ``high`` (the lowest and highest
  run, when there were two or more) and ``fit`` (R² of the line a rate is the slope of)
* ``quote``: on a figure, the source's own words that support it; on the record, those words (a
  list when ``shows`` says more than one thing) for its ``shows``. Each at most ``QUOTE_WORDS``
  words, so a reader can check the claim; ``unquoted`` says why a published record carries none
* ``headline``: on a figure, the rules (names, comma-separated) whose evidence it heads in the
  README's rule table; a rule no figure heads is headed by the first figure of the first record
  it cites

Only the standard library is imported, so loading stays cheap; the built-in files are read
through a JSON copy in the user's cache (`schemacite.sources.cache.memo_json`), since parsing TOML
in pure Python took longer than linting a few files. Every record is checked on either path.
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from schemacite.model import dialects

__all__ = ["DIALECTS", "KINDS", "Evidence", "load_catalogue", "measured_for", "nearest", "rate_for", "use_files"]

KINDS = frozenset({"measurement", "documentation", "reasoning"})
DIALECTS = frozenset(dialects.DIALECTS)

_REQUIRED = ("id", "kind", "title", "source", "shows", "applies_to")
_OPTIONAL = ("published", "url", "authors", "setup", "figures", "limits", "rules", "quote", "unquoted")
_ALLOWED = frozenset(_REQUIRED + _OPTIONAL)
_FIGURE_KEYS = frozenset(
    {"metric", "value", "note", "quantity", "number", "quote", "runs", "low", "high", "fit", "headline"}
)
QUOTE_WORDS = 25  # short enough to be a quotation, long enough to carry a figure and its context

_SLUG = r"[a-z0-9]+(?:-[a-z0-9]+)*"
_BUILTIN_ID = re.compile(_SLUG)
_PACK_ID = re.compile(rf"[a-z0-9][a-z0-9_-]*:{_SLUG}")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_CITE_KEYS = ("server", "hardware", "tool")


@dataclass(frozen=True)
class Evidence:
    """One catalogue record. ``published`` is "" for undated documentation pages."""

    id: str
    kind: str
    title: str
    source: str
    published: str
    url: str | None = None
    authors: tuple[str, ...] = ()
    setup: dict = field(default_factory=dict)
    figures: tuple[dict, ...] = ()
    shows: str = ""
    limits: str = ""
    applies_to: frozenset[str] = frozenset()
    rules: tuple[str, ...] = ()
    quotes: tuple[str, ...] = ()
    unquoted: str = ""

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
    extra (plugin) files.

    The built-in file is parsed once per process. Extra files must use namespaced ids
    (``pack:some-id``) that do not repeat an id already loaded. Bad data raises ValueError
    with ``"<path>: entry <N>: <message>"`` (N counts ``[[evidence]]`` records from 1).
    """
    extra_paths = tuple(Path(p) for p in extra_paths)
    if not extra_paths:
        return dict(_loaded(tuple(_extra)))  # a copy: callers may change theirs, never the cache
    return _load((*_extra, *extra_paths))


@functools.lru_cache(maxsize=4)
def _loaded(paths: tuple[Path, ...]) -> dict[str, Evidence]:
    return _load(paths)


def _load(extra_paths: tuple[Path, ...]) -> dict[str, Evidence]:
    catalogue = dict(_builtin())
    origin = dict.fromkeys(catalogue, "built-in catalogue")
    for path in extra_paths:
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ValueError(f"{path}: cannot read evidence catalogue: {exc.strerror or exc}") from None
        for n, entry in _parse(data, str(path), namespaced=True):
            if entry.id in catalogue:
                raise ValueError(
                    f"{path}: entry {n}: duplicate id {entry.id!r} (already defined in {origin[entry.id]})"
                )
            catalogue[entry.id] = entry
            origin[entry.id] = str(path)
    return catalogue


# --- internals ---------------------------------------------------------------------------------


BUILTIN_FILES = ("catalogue.toml", "measured.toml")  # published sources; schemacite's own measurements


@functools.lru_cache(maxsize=1)
def _builtin() -> dict[str, Evidence]:
    out: dict[str, Evidence] = {}
    for name in BUILTIN_FILES:
        res = Path(__file__).with_name(name)
        for n, e in _parse(res.read_bytes(), str(res), namespaced=False, allow_empty=True, memo=True):
            if e.id in out:
                raise ValueError(f"{res}: entry {n}: duplicate id {e.id!r}")
            out[e.id] = e
    return out


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


def measured_for(rule: str, dialect: str, target: dialects.Target, catalogue: dict[str, Evidence]) -> tuple[str, ...]:
    """The measurements of one's own (records naming `rule` in `rules`) a finding of `rule` cites:
    per experiment, the user's own run if one is loaded, else the run nearest the target."""
    by_tool: dict[str, list[Evidence]] = {}
    for e in catalogue.values():
        if rule in e.rules and e.applies(dialect):
            by_tool.setdefault(e.setup.get("tool", e.id), []).append(e)
    return tuple(nearest(records, target).id for _, records in sorted(by_tool.items()))


def measurements(rule: str, dialect: str, target: dialects.Target) -> tuple[tuple[str, ...], frozenset[str]]:
    """(the measurements of one's own a finding of `rule` cites, the ids of every measurement that
    holds for `dialect`), for the catalogue as loaded now; kept per run, as findings ask often."""
    return _measurements(rule, dialect, target, tuple(_extra))


@functools.lru_cache(maxsize=256)
def _measurements(
    rule: str, dialect: str, target: dialects.Target, files: tuple
) -> tuple[tuple[str, ...], frozenset[str]]:
    catalogue = _loaded(files)
    ids = frozenset(i for i, e in catalogue.items() if e.kind == "measurement" and e.applies(dialect))
    return measured_for(rule, dialect, target, catalogue), ids


def rate_for(
    quantity: str, dialect: str, target: dialects.Target, catalogue: dict[str, Evidence]
) -> tuple[float, Evidence] | None:
    """(rate, record) of `quantity` measured on this dialect, from the record nearest the target
    (the user's own first)."""
    records = [e for e in catalogue.values() if e.applies(dialect) and e.rate(quantity) is not None]
    if not records:
        return None
    best = nearest(records, target)
    return best.rate(quantity) or 0.0, best


def _parse(
    data: bytes, where: str, *, namespaced: bool, allow_empty: bool = False, memo: bool = False
) -> list[tuple[int, Evidence]]:
    if memo:  # the built-in files: tomllib is pure Python and took longer than linting a few files
        # start-up: loaded only when this runs, not by every import of this module
        from schemacite.sources.cache import memo_json

        try:
            doc = memo_json("evidence", data, lambda: _jsonable(_toml(data, where)))
            return _records(doc, where, namespaced=namespaced, allow_empty=allow_empty)
        except ValueError:
            pass  # a damaged copy in the cache: read the TOML itself
    return _records(_toml(data, where), where, namespaced=namespaced, allow_empty=allow_empty)


def _records(doc: object, where: str, *, namespaced: bool, allow_empty: bool) -> list[tuple[int, Evidence]]:
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
    seen: dict[str, int] = {}
    out = []
    for n, raw in enumerate(records, start=1):
        prefix = f"{where}: entry {n}"
        if not isinstance(raw, dict):
            raise ValueError(f"{prefix}: must be a table")
        entry = _entry(raw, prefix, namespaced=namespaced)
        if entry.id in seen:
            raise ValueError(f"{prefix}: duplicate id {entry.id!r} (already used by entry {seen[entry.id]})")
        seen[entry.id] = n
        out.append((n, entry))
    return out


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
    """A TOML document as JSON holds it: dates as the ISO text `_entry` also accepts."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return value


def _entry(raw: dict, prefix: str, *, namespaced: bool) -> Evidence:
    unknown = sorted(set(raw) - _ALLOWED)
    if unknown:
        raise ValueError(f"{prefix}: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(_ALLOWED))})")
    missing = [k for k in _REQUIRED if k not in raw]
    if missing:
        raise ValueError(f"{prefix}: missing required key(s) {', '.join(missing)}")

    ident = _text(raw, "id", prefix)
    if namespaced:
        if not _PACK_ID.fullmatch(ident):
            raise ValueError(
                f"{prefix}: id {ident!r} must be namespaced as 'pack:kebab-id' (for example 'acme:slow-insert')"
            )
    elif not _BUILTIN_ID.fullmatch(ident):
        raise ValueError(f"{prefix}: id {ident!r} must be kebab-case (lowercase letters, digits and '-')")

    kind = _text(raw, "kind", prefix)
    if kind not in KINDS:
        raise ValueError(f"{prefix}: kind {kind!r} is not one of {', '.join(sorted(KINDS))}")

    published = raw.get("published", "")
    if isinstance(published, datetime.date) and not isinstance(published, datetime.datetime):
        published = published.isoformat()
    if published == "" and kind != "documentation":
        raise ValueError(f'{prefix}: missing required key published ("YYYY-MM-DD")')
    if published != "":
        if not isinstance(published, str) or not _DATE.fullmatch(published):
            raise ValueError(f'{prefix}: published must be a date "YYYY-MM-DD", got {published!r}')
        try:
            datetime.date.fromisoformat(published)
        except ValueError:
            raise ValueError(f"{prefix}: published {published!r} is not a valid date") from None

    url = raw.get("url")
    if url is not None:
        url = _text(raw, "url", prefix)
        if not url.startswith(("https://", "http://")):
            raise ValueError(f"{prefix}: url must start with https:// or http://")

    authors = raw.get("authors", [])
    if not isinstance(authors, list) or not all(isinstance(a, str) and a.strip() for a in authors):
        raise ValueError(f"{prefix}: authors must be a list of names")

    setup = raw.get("setup", {})
    if not isinstance(setup, dict) or not all(isinstance(v, str) and v.strip() for v in setup.values()):
        raise ValueError(f"{prefix}: setup must be a table of non-empty strings")

    figures = raw.get("figures", [])
    if not isinstance(figures, list):
        raise ValueError(f"{prefix}: figures must be an array of {{ metric = ..., value = ... }} tables")
    for i, fig in enumerate(figures, start=1):
        if not isinstance(fig, dict) or not {"metric", "value"} <= set(fig) or set(fig) - _FIGURE_KEYS:
            raise ValueError(f"{prefix}: figure {i} must be {{ metric = ..., value = ... }} (optional note)")
        if not all(isinstance(v, str) and v.strip() for v in fig.values()):
            raise ValueError(f"{prefix}: figure {i} values must be non-empty strings")
        if ("quantity" in fig) != ("number" in fig):
            raise ValueError(f"{prefix}: figure {i}: quantity and number go together")
        if "number" in fig:
            try:
                if not float(fig["number"]) > 0:
                    raise ValueError
            except ValueError:
                raise ValueError(f"{prefix}: figure {i}: number must be a positive number") from None
        _quote(fig.get("quote", ""), f"{prefix}: figure {i}")
        _spread(fig, f"{prefix}: figure {i}")

    if kind == "measurement":
        if not setup:
            raise ValueError(f"{prefix}: a measurement needs a setup table (server, hardware, tool, ...)")
        if not figures:
            raise ValueError(f"{prefix}: a measurement needs at least one figure")

    applies_to = raw["applies_to"]
    if not isinstance(applies_to, list) or not applies_to or not all(isinstance(d, str) for d in applies_to):
        raise ValueError(f"{prefix}: applies_to must be a non-empty list of dialects")
    bad = sorted(set(applies_to) - DIALECTS)
    if bad:
        raise ValueError(
            f"{prefix}: unknown dialect(s) {', '.join(bad)} in applies_to (use {', '.join(sorted(DIALECTS))})"
        )

    limits = raw.get("limits", "")
    if not isinstance(limits, str):
        raise ValueError(f"{prefix}: limits must be a string")
    rules = raw.get("rules", [])
    if not isinstance(rules, list) or not all(isinstance(r, str) and r.strip() for r in rules):
        raise ValueError(f"{prefix}: rules must be a list of rule names")

    quotes = raw.get("quote", [])
    quotes = [quotes] if isinstance(quotes, str) else quotes
    if not isinstance(quotes, list) or not all(isinstance(q, str) and q.strip() for q in quotes):
        raise ValueError(f"{prefix}: quote must be the source's words: a string or a list of strings")
    for q in quotes:
        _quote(q, prefix)
    if "unquoted" in raw:
        _text(raw, "unquoted", prefix)

    return Evidence(
        id=ident,
        kind=kind,
        title=_text(raw, "title", prefix),
        source=_text(raw, "source", prefix),
        published=published,
        url=url,
        authors=tuple(authors),
        setup=dict(setup),
        figures=tuple(dict(f) for f in figures),
        shows=_text(raw, "shows", prefix),
        limits=limits.strip(),
        applies_to=frozenset(applies_to),
        rules=tuple(rules),
        quotes=tuple(q.strip() for q in quotes),
        unquoted=raw.get("unquoted", "").strip(),
    )


def _quote(text: str, prefix: str) -> None:
    words = len(text.split())
    if words > QUOTE_WORDS:
        raise ValueError(f"{prefix}: quote has {words} words; quote at most {QUOTE_WORDS} of the source's own")


def _spread(fig: dict, prefix: str) -> None:
    """`runs`, `low`, `high` and `fit` go with a number and agree with it."""
    given = [k for k in ("runs", "low", "high", "fit") if k in fig]
    if given and "number" not in fig:
        raise ValueError(f"{prefix}: {', '.join(given)} go with a number")
    if ("low" in fig) != ("high" in fig):
        raise ValueError(f"{prefix}: low and high go together")
    try:
        runs = int(fig.get("runs", "1"))
        low, high = float(fig.get("low", 0)), float(fig.get("high", 0))
        fit = float(fig.get("fit", 0))
    except ValueError:
        raise ValueError(f"{prefix}: runs must be a whole number; low, high and fit numbers") from None
    if runs < 1:
        raise ValueError(f"{prefix}: runs must be at least 1")
    if "low" in fig and (runs < 2 or not low <= float(fig["number"]) <= high):
        raise ValueError(f"{prefix}: low <= number <= high, over two runs or more")
    if not 0 <= fit <= 1:
        raise ValueError(f"{prefix}: fit is R², between 0 and 1")


def _text(raw: dict, key: str, prefix: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{prefix}: {key} must be a non-empty string")
    return value.strip()
