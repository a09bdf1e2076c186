"""Baselines: accept the findings a legacy schema already has, report only new ones.

`write_baseline` stores one entry per finding, keyed by its fingerprint (see
`schemacite.lint.fingerprint`), sorted so the file reads well in code review::

    {
      "version": 1,
      "findings": [
        {"fingerprint": "…", "rule": "no-primary-key", "code": "SC101",
         "file": "migrations/001_init.sql", "table": "events", "message": "…"},
        …
      ]
    }

`filter_new` drops the findings the baseline already holds. Fingerprints have no line
number, so edits that shift statements up or down keep matching. Each entry matches
at most once: a baseline holding a fingerprint twice absorbs two findings with that
fingerprint, and a third one is new.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from schemacite.lint.fingerprint import fingerprint

if TYPE_CHECKING:
    from schemacite.model.results import Finding, LintResult

BASELINE_VERSION = 1


class BaselineError(ValueError):
    """The baseline file is not one schemacite wrote (or of a version it cannot read)."""


def baseline_entries(findings: Iterable[Finding]) -> list[dict[str, str | None]]:
    entries = [
        {
            "fingerprint": fingerprint(f),
            "rule": f.rule,
            "code": f.code,
            "file": f.location.file,
            "table": f.table,
            "message": f.message,
        }
        for f in findings
    ]
    entries.sort(key=lambda e: (e["file"], e["code"], e["table"] or "", e["fingerprint"]))
    return entries


def write_baseline(path: str | Path, findings: Iterable[Finding]) -> int:
    """Write the baseline file; returns the number of entries written."""
    entries = baseline_entries(findings)
    document = {"version": BASELINE_VERSION, "findings": entries}
    Path(path).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return len(entries)


def read_baseline(path: str | Path) -> Counter[str]:
    """Fingerprint -> number of occurrences recorded in the baseline."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{path}: not a JSON baseline ({exc})") from None
    if not isinstance(document, dict) or not isinstance(document.get("findings"), list):
        raise BaselineError(f"{path}: not a schemacite baseline (no 'findings' list)")
    if document.get("version") != BASELINE_VERSION:
        raise BaselineError(
            f"{path}: baseline version {document.get('version')!r} is not supported "
            f"(expected {BASELINE_VERSION}); write it again with --write-baseline"
        )
    counts: Counter[str] = Counter()
    for entry in document["findings"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
            raise BaselineError(f"{path}: baseline entry without a fingerprint: {entry!r}")
        counts[entry["fingerprint"]] += 1
    return counts


def filter_new(findings: Iterable[Finding], path: str | Path) -> tuple[list[Finding], int]:
    """Findings not in the baseline at `path`, and how many findings the baseline matched."""
    remaining = read_baseline(path)
    new: list[Finding] = []
    matched = 0
    for f in findings:
        key = fingerprint(f)
        if remaining[key] > 0:
            remaining[key] -= 1
            matched += 1
        else:
            new.append(f)
    return new, matched


def leave_out_baselined(result: LintResult, path: str | Path) -> None:
    """Drop from `result` the findings the baseline at `path` holds, with a note saying how many."""
    result.findings, matched = filter_new(result.findings, path)
    if matched:
        result.notes.append(f"{matched} finding(s) already in baseline {path} not shown")
