"""`--statistics`: how many findings each rule produced, most frequent first.

`statistics_lines` gives one `count<TAB>code<TAB>name` line per rule (ties broken by code);
the caller prints the `Found N findings.` footer. `statistics_json` gives the same rows as a
JSON-ready list of `{"code", "name", "count"}` objects.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from schemacite.model.results import Finding


def _rows(findings: Iterable[Finding]) -> list[tuple[int, str, str]]:
    counts: Counter[str] = Counter()
    names: dict[str, str] = {}
    for f in findings:
        counts[f.code] += 1
        names.setdefault(f.code, f.rule)
    return sorted(((n, code, names[code]) for code, n in counts.items()), key=lambda r: (-r[0], r[1]))


def statistics_lines(findings: Iterable[Finding]) -> list[str]:
    return [f"{count}\t{code}\t{name}" for count, code, name in _rows(findings)]


def statistics_json(findings: Iterable[Finding]) -> list[dict[str, object]]:
    return [{"code": code, "name": name, "count": count} for count, code, name in _rows(findings)]
