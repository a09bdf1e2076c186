"""What a report says of the evidence its findings cite: a short record per id, and the rules
grouped with the ids and notes they cite.

Reports carry each record once and short: who published it, when, on which server or in which
document, and where to read it. The figures, quotes and limits stay in the catalogue, one command
away (`schemacite evidence show ID`); a machine consumer of a run needs the ids to resolve, not a
copy of the catalogue.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schemacite.model.results import Finding

SHOW = "schemacite evidence show ID"  # where the full record is, said wherever a short one stands
SHORT_KEYS = ("id", "kind", "title", "source", "published", "url", "applies_to")
SETUP_KEYS = ("server", "document")  # the one fact of the setup a citation names


def catalogue() -> dict[str, Any]:
    """The evidence catalogue, or an empty one when it cannot be loaded (ids still appear)."""
    try:
        # start-up: the evidence catalogue loads only when something cites it
        from schemacite.evidence import read_catalogue
    except ImportError:
        return {}
    return read_catalogue()


def short_record(entry_id: str, records: dict[str, Any]) -> dict[str, Any]:
    """The record's id, kind, title, source, date, link, dialects and server (or document): the
    keys of the full record (`as_dict`), fewer of them."""
    entry = records.get(entry_id)
    if entry is None:
        return {"id": entry_id}
    full = entry.as_dict()
    record = {key: full[key] for key in SHORT_KEYS if key in full}
    record["id"] = entry_id
    setup = {key: value for key, value in (full.get("setup") or {}).items() if key in SETUP_KEYS and value}
    if setup:
        record["setup"] = setup
    return record


def short_table(ids: Iterable[str], records: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """id -> short record, each id once, in the order first cited."""
    return {i: short_record(i, records) for i in dict.fromkeys(ids)}


def label(record: dict[str, Any]) -> str:
    """`schemacite 2026 · PostgreSQL 16.14` for a measurement; the document for a manual page."""
    setup = record.get("setup") or {}
    if record.get("kind") == "documentation" and setup.get("document"):
        return str(setup["document"])
    source = record.get("source") or ""
    year = (record.get("published") or "")[:4]
    head = f"{source} {year}".strip()
    return f"{head} · {setup['server']}" if setup.get("server") else head


def by_rule(findings: Iterable[Finding], records: dict[str, Any]) -> dict[tuple[str, str], tuple[list[str], list[str]]]:
    """(code, name) -> (the evidence ids its findings cite, ranked; the notes of those citing no
    measurement), codes in order, each id and note once."""
    rules: dict[tuple[str, str], tuple[dict[str, None], dict[str, None]]] = {}
    for f in sorted(findings, key=lambda f: f.code):
        ids, notes = rules.setdefault((f.code, f.rule), ({}, {}))
        ids.update(dict.fromkeys(f.evidence))
        if f.evidence_note:
            notes[f.evidence_note] = None
    return {key: (ranked(ids, records), list(notes)) for key, (ids, notes) in rules.items()}


def ranked(ids: Iterable[str], records: dict[str, Any]) -> list[str]:
    """Measurements first (the user's own, then schemacite's, then the newest), then the other
    records as cited."""

    def rank(i: str) -> tuple:
        e = records.get(i)
        if e is None or getattr(e, "kind", None) != "measurement":
            return (1,)
        return (0, ":" not in i, e.source != "schemacite", -int(e.published[:4] or 0))

    return sorted(ids, key=rank)
