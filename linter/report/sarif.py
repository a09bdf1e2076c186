"""SARIF 2.1.0, as GitHub code scanning and other SARIF viewers read it.

- `tool.driver.rules`: one reportingDescriptor per active rule (plus any rule that produced
  a finding without being listed), carrying the rule doc and a generated Evidence section in
  `help` (its "What it does" in `fullDescription`), the doc URL in `helpUri`, and the ids of
  its evidence in `properties.evidence`; the run's `properties.evidence` holds each record
  once (id -> record).
- `results`: one per finding, suppressed findings included with `suppressions`. Files get a
  physicalLocation (a region only when the line is known); findings on live servers get a
  logicalLocation naming the table instead. `partialFingerprints` holds the line-free
  fingerprint that baselines use.
- parse errors: `invocations[0].toolExecutionNotifications`, and `executionSuccessful` false.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from schemacite import __version__, hookimpl
from schemacite.lint.rule import Finding, Rule, Severity
from schemacite.model.fixes import Fix
from schemacite.model.results import LintResult
from schemacite.report import Reporter
from schemacite.report.fingerprint import fingerprint

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/schemacite/schemacite"
FINGERPRINT_KEY = "schemacite/v1"

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def load_evidence() -> dict[str, Any]:
    """The evidence catalogue, or an empty one when it cannot be loaded (ids still appear)."""
    try:
        from schemacite.evidence import load_catalogue
    except ImportError:
        return {}
    return load_catalogue()


def evidence_record(entry_id: str, catalogue: dict[str, Any]) -> dict[str, Any]:
    entry = catalogue.get(entry_id)
    if entry is None:
        return {"id": entry_id}
    record = dict(entry.as_dict())
    record.setdefault("id", entry_id)
    return record


def evidence_table(descriptors: list[dict[str, Any]], catalogue: dict[str, Any]) -> dict[str, Any]:
    """Every record the rules cite, once: id -> record."""
    cited = dict.fromkeys(i for d in descriptors for i in d["properties"]["evidence"])
    return {i: evidence_record(i, catalogue) for i in cited}


def evidence_markdown(rule: type[Rule], catalogue: dict[str, Any]) -> str:
    """The generated `## Evidence` section for a rule."""
    lines = ["## Evidence"]
    for entry_id in rule.cited():
        entry = catalogue.get(entry_id)
        if entry is None:
            lines.append(f"- `{entry_id}`")
            continue
        title = f"[{entry.title}]({entry.url})" if entry.url else entry.title
        lines.append(f"- `{entry_id}`: {title} ({entry.citation()})")
    notes = rule.unmeasured_notes()
    if notes:
        lines.append("")
        lines += [f"No measurement on {dialect}: {note}" for dialect, note in notes.items()]
    return "\n".join(lines)


def first_line(text: str) -> str:
    return text.strip().splitlines()[0].strip() if text.strip() else ""


def rule_descriptor(rule: type[Rule], catalogue: dict[str, Any]) -> dict[str, Any]:
    doc = rule.doc()
    markdown = (doc + "\n\n" if doc else "") + evidence_markdown(rule, catalogue)
    short = first_line(doc) or rule.summary
    notes = rule.unmeasured_notes()
    what = doc.split("## What it does", 1)[-1].split("\n## ", 1)[0].strip() if doc else ""
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": short},
        "fullDescription": {"text": what or short},
        "help": {"text": markdown, "markdown": markdown},
        "helpUri": rule.url(),
        "defaultConfiguration": {"level": LEVELS[Severity(rule.default_severity)]},
        "properties": {
            # ids in the run's evidence table (run.properties.evidence), each record written once
            "evidence": list(rule.cited()),
            **({"evidenceNote": notes} if notes else {}),
            "status": rule.status,
            "dialects": sorted(rule.dialects),
            "tags": ["schema", *sorted(rule.dialects)],
        },
    }


def finding_descriptor(f: Finding, catalogue: dict[str, Any]) -> dict[str, Any]:
    """A minimal descriptor for a finding whose rule is not among the active rules."""
    descriptor: dict[str, Any] = {
        "id": f.code,
        "name": f.rule,
        "shortDescription": {"text": f.rule},
        "defaultConfiguration": {"level": LEVELS[f.severity]},
        "properties": {"evidence": list(f.evidence)},
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
    for key, name in (
        ("table_rows", "tableRows"),
        ("table_bytes", "tableBytes"),
        ("estimated_lock_seconds", "estimatedLockSeconds"),
    ):
        if f.extra.get(key) is not None:
            properties[name] = f.extra[key]
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
    catalogue = load_evidence()
    descriptors: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for rule in result.rules:
        cls = rule if isinstance(rule, type) else type(rule)
        if cls.code not in index:
            index[cls.code] = len(descriptors)
            descriptors.append(rule_descriptor(cls, catalogue))

    results = []
    tagged = [(f, False) for f in result.findings] + [(f, True) for f in result.suppressed]
    tagged.sort(key=lambda pair: (pair[0].sort_key(), pair[1]))
    for f, suppressed in tagged:
        if f.code not in index:
            index[f.code] = len(descriptors)
            descriptors.append(finding_descriptor(f, catalogue))
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
                "properties": {"evidence": evidence_table(descriptors, catalogue)},
            }
        ],
    }


class SarifReporter(Reporter):
    format = "sarif"
    human = False

    def render(self, result: LintResult, out: IO[str]) -> None:
        json.dump(build_sarif(result), out, indent=2, ensure_ascii=False, default=str)
        out.write("\n")


@hookimpl
def schemacite_reporter(format: str) -> type[Reporter] | None:
    return SarifReporter if format == "sarif" else None
