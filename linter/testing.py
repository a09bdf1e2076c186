"""Run fixture files: SQL plus the findings it must produce. Exported for rule-pack authors.

A fixture file (YAML) names a rule and holds cases:

    rule: no-primary-key
    dialect: mysql            # default for every case
    cases:
      flags_table_without_pk:
        sql: CREATE TABLE t1 (id int NOT NULL, v text);
        expect:
          - {table: t1, line: 1, severity: warning}

For the rule under test the findings must equal `expect`: each expected entry
compares only the keys it gives (`table`, `line`, `severity`; `message~`,
`suggestion~`, `fix~` (the fix's title) and `template~` (its template) for a
substring, `message!~` and `suggestion!~` for one that must be absent; `fix` for
the fix's applicability, null for none); any finding not listed fails. A case may set `dialect`, `target`,
`config` (settings as in [tool.schemacite]), `history` (SQL replayed first), and
`rules` (other rules whose findings are checked too).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from schemacite.lint.config import load_config
from schemacite.lint.engine import Linter
from schemacite.model.results import LintResult


def load_cases(path: str | Path) -> list[tuple[str, dict[str, Any]]]:
    # optional: pyyaml comes with the test extra, and only the fixture harness reads YAML
    import yaml

    doc = yaml.safe_load(Path(path).read_text())
    rule = doc["rule"]
    cases = []
    for name, case in doc["cases"].items():
        merged = {"dialect": doc.get("dialect"), "target": doc.get("target"), "rule": rule, **case}
        cases.append((f"{rule}::{name}", merged))
    return cases


def run_case(case: dict[str, Any], pm=None) -> LintResult:
    rules = [case["rule"], *case.get("rules", [])]
    settings = dict(case.get("config", {}))
    settings.update({k: case[k] for k in ("dialect", "target") if case.get(k)})
    settings["select"] = rules
    config = load_config(None, settings)
    with tempfile.TemporaryDirectory() as tmp:
        paths, history = [], []
        if case.get("history"):
            h = Path(tmp, "000_history.sql")
            h.write_text(case["history"])
            history.append(str(h))
        f = Path(tmp, "case.sql")
        f.write_text(case["sql"])
        paths.append(str(f))
        result = Linter(config, pm).lint(paths, history)
    return result


def matches(finding, expected: dict[str, Any]) -> bool:
    for key, want in expected.items():
        if key in ("message~", "suggestion~"):
            if str(want) not in (getattr(finding, key[:-1]) or ""):
                return False
        elif key in ("message!~", "suggestion!~"):
            if str(want) in (getattr(finding, key[:-2]) or ""):
                return False
        elif key == "fix~":
            if finding.fix is None or str(want) not in finding.fix.title:
                return False
        elif key == "template~":
            if finding.fix is None or str(want) not in (finding.fix.template or ""):
                return False
        elif key == "fix":  # the fix's applicability, or null for none
            if (finding.fix.applicability if finding.fix else None) != want:
                return False
        elif key == "severity":
            if str(finding.severity) != want:
                return False
        elif key == "line":
            if finding.location.line != want:
                return False
        elif key == "evidence":
            if list(finding.evidence) != list(want):
                return False
        elif key == "rule":
            if want not in (finding.rule, finding.code):
                return False
        elif getattr(finding, key) != want:
            return False
    return True


def assert_case(case: dict[str, Any], pm=None) -> None:
    result = run_case(case, pm)
    assert not result.errors, f"input errors: {[str(e) for e in result.errors]}"
    checked = {case["rule"], *case.get("rules", [])}
    got = [f for f in result.findings if f.rule in checked or f.code in checked]
    expected = [dict(e) for e in case.get("expect") or []]
    unmatched = list(got)
    for exp in expected:
        if len(checked) == 1:
            exp.setdefault("rule", case["rule"])
        hit = next((f for f in unmatched if matches(f, exp)), None)
        assert hit is not None, f"expected finding {exp} not produced; got {[_show(f) for f in got]}"
        unmatched.remove(hit)
    assert not unmatched, f"unexpected findings: {[_show(f) for f in unmatched]}"


def _show(f) -> str:
    return f"{f.rule}@{f.location.line} [{f.severity}] {f.table}: {f.message}"
