"""JUnit XML, for CI systems that show test reports (GitLab, Jenkins, Azure, CircleCI).

    <testsuites name="schemacite" tests=… failures=… errors=… skipped=…>
      <testsuite name="schemacite" …same counts…>
        <testcase classname="migrations/001.sql" name="SC101 no-primary-key: events @ 3">
          <failure message="Table events has no primary key" type="no-primary-key">…</failure>
        </testcase>
        <testcase classname="migrations/002.sql" name="no findings"/>
        <testcase classname="migrations/003.sql" name="parse error @ 7"><error …/></testcase>

One failing testcase per finding at warning or error (its text: location, message, suggestion,
evidence ids and doc URL), one passing testcase per info finding (the same text as its
`<system-out>`, its rule and severity as `<properties>`: advice, not a failed build), one
`<error>` testcase per parse error, one `<skipped>` testcase per suppressed
finding, and one passing testcase per reported file that has neither findings nor parse
errors, so a clean run is a suite of passes rather than an empty suite.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import IO

from schemacite.model.results import Finding, LintResult, Severity
from schemacite.report import Reporter

# characters XML 1.0 cannot carry, even escaped
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def case_name(f: Finding) -> str:
    name = f"{f.code} {f.rule}: {f.table or '-'}"
    return f"{name} @ {f.location.line}" if f.location.line > 0 else name


def failure_text(f: Finding) -> str:
    lines = [f"{f.location}: {f.code} {f.rule} [{f.severity}] {f.message}"]
    if f.suggestion:
        lines.append(f"suggestion: {f.suggestion}")
    lines.append("evidence: " + (", ".join(f.evidence) or "none"))
    if f.evidence_note:
        lines.append(f"no measurement: {f.evidence_note}")
    if f.url:
        lines.append(f"see: {f.url}")
    return "\n".join(lines)


def build_junit(result: LintResult) -> ET.Element:
    cases: list[tuple[tuple, ET.Element]] = []
    failed_files: set[str] = set()  # files with a case of their own: no "no findings" case for them
    failures = 0

    for f in result.findings:
        failed_files.add(f.location.file)
        case = ET.Element("testcase", classname=clean(f.location.file), name=clean(case_name(f)), time="0")
        if f.severity > Severity.INFO:
            failure = ET.SubElement(case, "failure", message=clean(f.message), type=f.rule)
            failure.text = clean(failure_text(f))
            failures += 1
        else:
            properties = ET.SubElement(case, "properties")
            for name, value in (("rule", f.rule), ("code", f.code), ("severity", str(f.severity))):
                ET.SubElement(properties, "property", name=name, value=clean(value))
            ET.SubElement(case, "system-out").text = clean(failure_text(f))
        cases.append(((f.location.file, f.location.line, 1, f.code), case))

    for error in result.errors:
        failed_files.add(error.file)
        name = f"parse error @ {error.line}" if error.line > 0 else "parse error"
        case = ET.Element("testcase", classname=clean(error.file), name=name, time="0")
        element = ET.SubElement(case, "error", message=clean(error.message), type="parse-error")
        element.text = clean(str(error))
        cases.append(((error.file, error.line, 0, ""), case))

    for f in result.suppressed:
        case = ET.Element("testcase", classname=clean(f.location.file), name=clean(case_name(f)), time="0")
        ET.SubElement(case, "skipped", message=clean(f"suppressed inline: {f.message}"))
        cases.append(((f.location.file, f.location.line, 2, f.code), case))

    for file in dict.fromkeys(result.files):
        if file not in failed_files:
            case = ET.Element("testcase", classname=clean(file), name="no findings", time="0")
            cases.append(((file, -1, 0, ""), case))

    cases.sort(key=lambda pair: pair[0])
    counts = {
        "tests": str(len(cases)),
        "failures": str(failures),
        "errors": str(len(result.errors)),
        "skipped": str(len(result.suppressed)),
        "time": "0",
    }
    root = ET.Element("testsuites", name="schemacite", **counts)
    suite = ET.SubElement(root, "testsuite", name="schemacite", **counts)
    suite.extend(case for _, case in cases)
    return root


class JunitReporter(Reporter):
    format = "junit"
    human = False

    def render(self, result: LintResult, out: IO[str]) -> None:
        root = build_junit(result)
        ET.indent(root)
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        out.write(ET.tostring(root, encoding="unicode"))
        out.write("\n")
