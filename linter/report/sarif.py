"""SARIF 2.1.0, as GitHub code scanning and other SARIF viewers read it.

- `tool.driver.rules`: one reportingDescriptor per rule that produced a result, carrying the
  rule doc and an Evidence section in `help.markdown` (its "What it does" in `fullDescription`),
  the doc URL in `helpUri`, and in `properties.evidence` the ids its results cite; the run's
  `properties.evidence` holds each of those records once, short (id -> id, kind, title, source,
  published, url, applies_to and the server or document of its setup). The full records are
  `schemacite evidence show ID`; every record a rule may cite is on its page (helpUri).
- `results`: one per finding, suppressed findings included with `suppressions`. Files get a
  physicalLocation (a region only when the line is known); findings on live servers get a
  logicalLocation naming the table instead. `partialFingerprints` holds the line-free
  fingerprint that baselines use.
- parse errors: `invocations[0].toolExecutionNotifications`, and `executionSuccessful` false.
"""

from __future__ import annotations

import json
from itertools import chain
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from schemacite import __version__
from schemacite.lint.fingerprint import fingerprint
from schemacite.model.fixes import Fix
from schemacite.model.results import Finding, LintResult, RuleInfo, Severity
from schemacite.report import Reporter
from schemacite.report.evidence import SHOW, by_rule, catalogue, label, short_record, short_table

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/schemacite/schemacite"
FINGERPRINT_KEY = "schemacite/v1"

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def evidence_markdown(rule: RuleInfo, cited: list[str], records: dict[str, Any]) -> str:
    """The `## Evidence` section: the records this run's findings of the rule cite, each with who
    published it, when and on what (every record the rule may cite is on its page, helpUri)."""
    lines = ["## Evidence"]
    for entry_id in cited:
        record = short_record(entry_id, records)
        title = record.get("title") or ""
        title = f"[{title}]({record['url']})" if title and record.get("url") else title
        lines.append(f"- `{entry_id}`: {title} ({label(record)})" if title else f"- `{entry_id}`")
    notes = rule.unmeasured
    if notes:
        lines.append("")
        lines += [f"No measurement on {dialect}: {note}" for dialect, note in notes.items()]
    lines += ["", f"Each record in full: `{SHOW}`."]
    return "\n".join(lines)


def rule_descriptor(rule: RuleInfo, cited: list[str], records: dict[str, Any]) -> dict[str, Any]:
    doc = rule.doc
    markdown = (doc + "\n\n" if doc else "") + evidence_markdown(rule, cited, records)
    short = rule.short
    notes = rule.unmeasured
    what = doc.split("## What it does", 1)[-1].split("\n## ", 1)[0].strip() if doc else ""
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": short},
        "fullDescription": {"text": what or short},
        # viewers that read no markdown get the summary and the link, not the page twice
        "help": {"text": f"{short} {rule.url}", "markdown": markdown},
        "helpUri": rule.url,
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {
            # the ids this run's findings cite, in the run's evidence table (run.properties.evidence)
            "evidence": cited,
            **({"evidenceNote": notes} if notes else {}),
            "status": rule.status,
            "dialects": sorted(rule.dialects),
            "tags": ["schema", *sorted(rule.dialects)],
        },
    }


def finding_descriptor(f: Finding, cited: list[str]) -> dict[str, Any]:
    """A minimal descriptor for a finding whose rule is not among the active rules."""
    descriptor: dict[str, Any] = {
        "id": f.code,
        "name": f.rule,
        "shortDescription": {"text": f.rule},
        "defaultConfiguration": {"level": LEVELS[f.severity]},
        "properties": {"evidence": cited},
    }
    if f.url:
        descriptor["helpUri"] = f.url
    return descriptor


def artifact_uri(path: str) -> str:
    """A relative URI for a file path (made relative to the working directory if absolute)."""
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(Path.cwd())
        except ValueError:
            return p.as_uri()
    return quote(p.as_posix().replace("\\", "/"), safe="/")


def is_server(path: str) -> bool:
    return "://" in path


def locations(f: Finding) -> list[dict[str, Any]]:
    loc = f.location
    logical = None
    if f.table or is_server(loc.file):
        logical = {"name": f.table or loc.file, "kind": "table" if f.table else "resource"}
        if f.table:
            logical["fullyQualifiedName"] = f"{loc.file}/{f.table}" if is_server(loc.file) else f.table
    if loc.line <= 0 and is_server(loc.file):
        return [{"logicalLocations": [logical]}]
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(loc.file)}}
    if loc.line > 0:
        region: dict[str, Any] = {"startLine": loc.line}
        if loc.column > 0:
            region["startColumn"] = loc.column
        physical["region"] = region
    location: dict[str, Any] = {"physicalLocation": physical}
    if logical is not None:
        location["logicalLocations"] = [logical]
    return [location]


def message_text(f: Finding) -> str:
    text = f.message.rstrip()
    if f.suggestion:
        text = f"{text}{'' if text.endswith(('.', '!', '?')) else '.'} {f.suggestion.strip()}"
    return text


def sarif_result(f: Finding, rule_index: int, suppressed: bool) -> dict[str, Any]:
    properties: dict[str, Any] = {"evidence": list(f.evidence), "severity": str(f.severity)}
    if f.estimate is not None:
        for name, value in (
            ("tableRows", f.estimate.table_rows),
            ("tableBytes", f.estimate.table_bytes),
            ("estimatedLockSeconds", f.estimate.seconds),
        ):
            if value is not None:
                properties[name] = value
    if f.table:
        properties["table"] = f.table
    if f.index:
        properties["index"] = f.index
    if f.evidence_note:
        properties["evidenceNote"] = f.evidence_note
    result: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": rule_index,
        "level": LEVELS[f.severity],
        "message": {"text": message_text(f)},
        "locations": locations(f),
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(f)},
        "properties": properties,
    }
    if suppressed:
        result["suppressions"] = [{"kind": "inSource"}]
    if f.fix is not None:
        properties["fix"] = {"title": f.fix.title, "applicability": str(f.fix.applicability)}
        if f.fix.template:
            properties["fix"]["template"] = f.fix.template
        if f.fix.edits:
            result["fixes"] = [sarif_fix(f.fix)]
    return result


def sarif_fix(fix: Fix) -> dict[str, Any]:
    """A fix as SARIF's artifactChanges: each file's replacements (a new file: inserted at its start)."""
    changes: dict[str, list[dict[str, Any]]] = {}
    for e in fix.edits:
        region = {"startLine": e.line, "startColumn": e.column, "endLine": e.end_line, "endColumn": e.end_column}
        changes.setdefault(e.path, []).append({"deletedRegion": region, "insertedContent": {"text": e.text}})
    return {
        "description": {"text": f"{fix.title} ({fix.applicability})"},
        "artifactChanges": [
            {"artifactLocation": {"uri": artifact_uri(path)}, "replacements": replacements}
            for path, replacements in changes.items()
        ],
    }


def build_sarif(result: LintResult) -> dict[str, Any]:
    """The rules that produced a result (reported or suppressed), each citing the records its
    results cite; those records once, short, in the run's evidence table."""
    records = catalogue()
    tagged = [(f, False) for f in result.findings] + [(f, True) for f in result.suppressed]
    tagged.sort(key=lambda pair: (pair[0].sort_key(), pair[1]))
    cited = {code: ids for (code, _name), (ids, _notes) in by_rule((f for f, _ in tagged), records).items()}
    descriptors: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for rule in result.rules:
        if rule.code in cited and rule.code not in index:
            index[rule.code] = len(descriptors)
            descriptors.append(rule_descriptor(rule, cited[rule.code], records))

    results = []
    for f, suppressed in tagged:
        if f.code not in index:
            index[f.code] = len(descriptors)
            descriptors.append(finding_descriptor(f, cited[f.code]))
        results.append(sarif_result(f, index[f.code], suppressed))

    notifications: list[dict[str, Any]] = []
    for error in result.errors:
        physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(error.file)}}
        if error.line > 0:
            physical["region"] = {"startLine": error.line}
        notifications.append(
            {
                "level": "error",
                "message": {"text": error.message},
                "locations": [{"physicalLocation": physical}],
                "descriptor": {"id": "parse-error"},
            }
        )
    for note in result.notes:
        notifications.append({"level": "note", "message": {"text": note}})

    properties: dict[str, Any] = {"evidence": short_table(chain.from_iterable(cited.values()), records)}
    if result.target:  # the server version the verdicts assume
        name, why, unmeasured = result.target
        properties["target"] = {"name": name, "why": why, "unmeasured": unmeasured or None}
    invocation: dict[str, Any] = {"executionSuccessful": not result.errors}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications

    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "schemacite",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": descriptors,
                    }
                },
                "invocations": [invocation],
                "columnKind": "unicodeCodePoints",
                "results": results,
                "properties": properties,
            }
        ],
    }


class SarifReporter(Reporter):
    format = "sarif"
    human = False

    def render(self, result: LintResult, out: IO[str]) -> None:
        json.dump(build_sarif(result), out, indent=2, ensure_ascii=False, default=str)
        out.write("\n")
