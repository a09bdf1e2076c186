"""The CI formats end to end: `schemacite lint` on the demo fixtures, as CI runs it."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from cli import run

ROOT = Path(__file__).resolve().parents[1]
MIGRATIONS = ROOT / "fixtures" / "demo" / "postgres" / "migrations"
DEMO = [MIGRATIONS / f for f in ("000002_tracking.up.sql", "000003_orders_status.up.sql", "000004_measurements.up.sql")]
SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())


def test_sarif_validates_and_carries_rules_evidence_and_fingerprints(capsys):
    code, out, _ = run(capsys, "lint", "--format", "sarif", *DEMO)
    doc = json.loads(out)
    jsonschema.validate(doc, SARIF_SCHEMA)
    run_ = doc["runs"][0]
    rules = {r["id"]: r for r in run_["tool"]["driver"]["rules"]}
    assert rules["SC101"]["helpUri"].endswith("/docs/rules/no-primary-key.md")
    assert "pg-doc-replica-identity" in rules["SC101"]["properties"]["evidence"]
    assert run_["properties"]["evidence"]["pg-doc-replica-identity"]["id"] == "pg-doc-replica-identity"
    results = run_["results"]
    assert len(results) == 9 and code == 1
    first = results[0]
    region = first["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] >= 1 and region["startColumn"] >= 1
    assert first["partialFingerprints"] and first["ruleId"] in rules


def test_sarif_fingerprints_survive_a_line_shift(capsys, tmp_path):
    f = tmp_path / "m.sql"
    f.write_text("CREATE TABLE t (v int);\n")
    a = json.loads(run(capsys, "lint", "--dialect", "postgres", "--format", "sarif", f)[1])
    f.write_text("-- a comment added above\n\nCREATE TABLE t (v int);\n")
    b = json.loads(run(capsys, "lint", "--dialect", "postgres", "--format", "sarif", f)[1])
    ra, rb = a["runs"][0]["results"][0], b["runs"][0]["results"][0]
    assert ra["locations"][0]["physicalLocation"]["region"]["startLine"] == 1
    assert rb["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    assert ra["partialFingerprints"] == rb["partialFingerprints"]


def test_github_annotations(capsys):
    code, out, _ = run(capsys, "lint", "--format", "github", *DEMO)
    lines = out.strip().splitlines()
    assert len(lines) == 9
    pattern = re.compile(r"^::(error|warning|notice) file=([^,]+),line=(\d+),col=(\d+),title=(SC\d{3} [a-z-]+)::(.+)$")
    parsed = [pattern.match(line) for line in lines]
    assert all(parsed), lines
    assert {m.group(1) for m in parsed} == {"error", "warning"}
    assert any("evidence: " in m.group(6) and "pg-doc-explicit-locking" in m.group(6) for m in parsed)


def test_gitlab_code_quality(capsys):
    code, out, _ = run(capsys, "lint", "--format", "gitlab", *DEMO)
    issues = json.loads(out)
    assert len(issues) == 9
    for issue in issues:
        assert set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] in ("info", "minor", "major", "critical", "blocker")
        assert issue["location"]["path"].endswith(".sql") and issue["location"]["lines"]["begin"] >= 1
    assert len({i["fingerprint"] for i in issues}) == len(issues)


def test_junit_xml(capsys):
    code, out, _ = run(capsys, "lint", "--format", "junit", *DEMO)
    root = ET.fromstring(out)
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    failures = suite.findall(".//failure")
    assert len(failures) == 9 and int(suite.get("failures")) == 9
    assert all("see:" in (f.text or "") or "http" in (f.text or "") for f in failures)


def test_output_file_keeps_the_terminal_summary(capsys, tmp_path):
    report = tmp_path / "report.sarif"
    code, out, _ = run(capsys, "lint", "--format", "sarif", "--output", report, *DEMO)
    jsonschema.validate(json.loads(report.read_text()), SARIF_SCHEMA)
    assert "3 errors, 6 warnings in" in out and code == 1


def test_statistics(capsys):
    code, out, _ = run(capsys, "lint", "--statistics", *DEMO)
    stats = [line for line in out.splitlines() if re.match(r"^\d+\tSC\d{3}\t", line)]
    assert stats[0] == "2\tSC104\taccess-exclusive-lock"
    counts = [int(line.split("\t")[0]) for line in stats]
    assert counts == sorted(counts, reverse=True) and sum(counts) == 9


def test_baseline_round_trip(capsys, tmp_path):
    mig = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS, mig)
    (tmp_path / ".schemacite.toml").write_text('dialect = "postgres"\n')
    baseline = tmp_path / "baseline.json"
    code, _, err = run(capsys, "lint", "--write-baseline", baseline, mig)
    assert code == 0 and "recorded" in err
    recorded = json.loads(baseline.read_text())["findings"]
    # lines shift in an old file, and one new migration arrives
    old = mig / "000002_tracking.up.sql"
    old.write_text("-- reformatted\n\n" + old.read_text())
    (mig / "000005_audit.up.sql").write_text("CREATE TABLE audit_trail (at timestamptz, what text);\n")
    code, out, _ = run(capsys, "lint", "--baseline", baseline, "--format", "json", mig)
    findings = json.loads(out)["findings"]
    assert [(f["rule"], f["table"]) for f in findings] == [("no-primary-key", "audit_trail")]
    assert code == 1 and recorded


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "baseline {path}: No such file or directory"),
        ("nope", "baseline {path}: not a JSON baseline (Expecting value: line 1 column 1 (char 0))"),
        ('{"findings": 1}', "baseline {path}: not a schemacite baseline (no 'findings' list)"),
    ],
)
def test_a_bad_baseline_is_one_error_naming_the_file_once(capsys, tmp_path, content, message):
    baseline = tmp_path / "b.json"
    if content is not None:
        baseline.write_text(content)
    code, out, err = run(capsys, "lint", "--baseline", baseline, *DEMO)
    assert code == 2 and not out
    assert err.strip() == f"schemacite: error: {message.format(path=baseline)}"


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "gitlab", "junit"])
def test_machine_formats_never_print_colour_or_headers(capsys, fmt, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    out = run(capsys, "lint", "--format", fmt, *DEMO)[1]
    assert "\x1b[" not in out and "statement(s)" not in out


pytest_plugins = ["pytester"]


def test_pytest_plugin_with_the_real_linter(pytester):
    """A project gates on its migrations inside the pytest run it already has."""
    mig = pytester.mkdir("migrations")
    (mig / "000001_init.up.sql").write_text("CREATE TABLE accounts (id bigint PRIMARY KEY);\n")
    (mig / "000002_events.up.sql").write_text("CREATE TABLE events (at timestamptz, what text);\n")
    (mig / "000002_events.down.sql").write_text("CREATE TABLE undone (what text);\n")  # not deployed: not linted
    pytester.makepyprojecttoml('[tool.schemacite]\ndialect = "postgres"\npytest = true\n')
    pytester.makepyfile(test_unit="def test_ok():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*000002_events.up.sql:1:1: SC101 no-primary-key*Table events has no primary key*"])
