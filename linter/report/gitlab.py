"""GitLab Code Quality report (a JSON list of Code Climate issues).

Each finding becomes `{type, description, check_name, fingerprint, severity, location}`:
`check_name` is the rule name, `description` the message, suggestion, evidence ids and doc
URL, `fingerprint` the line-free fingerprint baselines use, and `location` the path with
`lines.begin` (1 when the line is unknown, e.g. findings on a live server, since GitLab
needs a line). Severity: info → `info`, warning → `minor`, error → `major`; parse errors,
which stop the analysis of a file, are `critical`. GitLab keeps one issue per fingerprint,
so a second identical finding in the same file gets a fingerprint derived from the first and
its occurrence number. Suppressed findings are left out.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import IO, Any

from schemacite.lint.fingerprint import error_fingerprint, fingerprint
from schemacite.model.results import Finding, LintResult, Severity
from schemacite.report import Reporter, finding_text

SEVERITIES = {Severity.INFO: "info", Severity.WARNING: "minor", Severity.ERROR: "major"}
PARSE_ERROR_SEVERITY = "critical"


def description(f: Finding) -> str:
    return f"{f.code} {finding_text(f)}"


def issues(result: LintResult) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen: Counter[str] = Counter()

    def unique(fp: str) -> str:
        seen[fp] += 1
        n = seen[fp]
        return fp if n == 1 else hashlib.sha256(f"{fp}:{n}".encode()).hexdigest()

    for error in sorted(result.errors, key=lambda e: (e.file, e.line)):
        out.append(
            {
                "type": "issue",
                "description": f"parse error: {error.message}",
                "check_name": "parse-error",
                "fingerprint": unique(error_fingerprint(error.file, error.message)),
                "severity": PARSE_ERROR_SEVERITY,
                "location": {"path": error.file.replace("\\", "/"), "lines": {"begin": max(error.line, 1)}},
            }
        )
    for f in sorted(result.findings, key=Finding.sort_key):
        out.append(
            {
                "type": "issue",
                "description": description(f),
                "check_name": f.rule,
                "fingerprint": unique(fingerprint(f)),
                "severity": SEVERITIES[f.severity],
                "location": {
                    "path": f.location.file.replace("\\", "/"),
                    "lines": {"begin": max(f.location.line, 1)},
                },
            }
        )
    return out


class GitlabReporter(Reporter):
    format = "gitlab"
    human = False

    def render(self, result: LintResult, out: IO[str]) -> None:
        json.dump(issues(result), out, indent=2, ensure_ascii=False, default=str)
        out.write("\n")
