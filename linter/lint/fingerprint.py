"""Stable fingerprints for findings, shared by SARIF, GitLab Code Quality and the baseline.

A fingerprint identifies "the same problem" across commits: it hashes the rule code, the
file path as the finding gives it, the table, and the statement text with whitespace and
case normalised. The line number is deliberately left out, so a migration that moves down
a file (or gains a comment above it) keeps its fingerprint; changing the table, the rule or
the statement gives a new one.

Table-level findings (from replayed SQL, a live server or a snapshot) carry no statement
text; they hash the finding's `identity` instead (what tells two findings of one rule on one
table apart, such as the key SC103 names), never the message, whose figures change from one
audit to the next.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from schemacite.model.results import Finding

VERSION = "v1"  # bump when the hashed fields change; stored baselines then stop matching

_SPACE = re.compile(r"\s+")


def normalise_sql(text: str) -> str:
    """Collapse runs of whitespace, drop a trailing semicolon and fold case."""
    text = _SPACE.sub(" ", text).strip()
    text = text.rstrip(";").rstrip()
    return text.lower()


def normalise_path(path: str) -> str:
    """The path as given, with Windows separators turned into `/` so runners agree."""
    return path.replace("\\", "/")


def fingerprint(finding: Finding) -> str:
    """Hex sha256 of rule code, file, table and normalised statement (never the line)."""
    statement = normalise_sql(finding.sql) if finding.sql.strip() else "identity:" + finding.identity
    parts = (
        VERSION,
        finding.code,
        normalise_path(finding.location.file),
        (finding.table or "").lower(),
        statement,
    )
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def error_fingerprint(file: str, message: str) -> str:
    """Fingerprint for a parse error (file and message; not the line)."""
    parts = (VERSION, "parse-error", normalise_path(file), normalise_sql(message))
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
