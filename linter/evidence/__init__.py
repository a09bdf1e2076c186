"""The evidence catalogue: measured results and documentation that rules cite by id.

The built-in catalogue is ``catalogue.toml`` next to this module. Plugins add files of the same
shape through the ``schemacite_evidence`` hook; their ids must be namespaced (``acme:some-id``).

Record keys (see ``catalogue.toml`` for examples):

* required: ``id``, ``kind`` (measurement | documentation | reasoning), ``title``, ``source``,
  ``shows``, ``applies_to`` (mysql, mariadb, postgres)
* ``published`` ("YYYY-MM-DD"): required unless ``kind = "documentation"`` (manual pages are
  undated; their edition goes in ``setup.document``)
* a ``measurement`` also needs a non-empty ``setup`` table and at least one figure
* optional: ``url``, ``authors``, ``setup``, ``figures`` (``{metric, value, note?}``), ``limits``

Only the standard library is imported, so loading stays cheap.
"""

from __future__ import annotations

import datetime
import functools
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from schemacite.model import dialects

__all__ = ["DIALECTS", "KINDS", "Evidence", "load_catalogue"]

KINDS = frozenset({"measurement", "documentation", "reasoning"})
DIALECTS = frozenset(dialects.DIALECTS)

_REQUIRED = ("id", "kind", "title", "source", "shows", "applies_to")
_OPTIONAL = ("published", "url", "authors", "setup", "figures", "limits")
_ALLOWED = frozenset(_REQUIRED + _OPTIONAL)
_FIGURE_KEYS = frozenset({"metric", "value", "note"})

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
        }

    def applies(self, dialect: str) -> bool:
        return dialects.canonical(dialect) in self.applies_to


def load_catalogue(extra_paths: Iterable[Path] = ()) -> dict[str, Evidence]:
    """Return the catalogue keyed by id: the built-in file plus any extra (plugin) files.

    The built-in file is parsed once per process. Extra files must use namespaced ids
    (``pack:some-id``) that do not repeat an id already loaded. Bad data raises ValueError
    with ``"<path>: entry <N>: <message>"`` (N counts ``[[evidence]]`` records from 1).
    """
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


@functools.lru_cache(maxsize=1)
def _builtin() -> dict[str, Evidence]:
    res = resources.files(__name__).joinpath("catalogue.toml")
    return {e.id: e for _, e in _parse(res.read_bytes(), str(res), namespaced=False)}


def _parse(data: bytes, where: str, *, namespaced: bool) -> list[tuple[int, Evidence]]:
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not UTF-8 text: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{where}: invalid TOML: {exc}") from None
    unknown = sorted(set(doc) - {"evidence"})
    if unknown:
        raise ValueError(f"{where}: unknown top-level key(s) {', '.join(unknown)} (expected [[evidence]] records)")
    records = doc.get("evidence")
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
    )


def _text(raw: dict, key: str, prefix: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{prefix}: {key} must be a non-empty string")
    return value.strip()
