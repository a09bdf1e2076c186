"""docs/coverage.md: the peer linters' checks, each answered by a rule or a reason, and every unsafe
operation the map writes as SQL caught by the rules it names, on the dialect it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemacite import coverage, docs
from schemacite.lint.config import load_config
from schemacite.lint.engine import Linter

DOCS = coverage.load(docs.COVERAGE)
CODES = {cls.code for cls in docs._rule_classes()}


def test_the_map_names_real_rules_and_answers_every_hazard():
    assert coverage.problems(DOCS, CODES) == []
    assert set(DOCS) == set(coverage.PEERS), "one file a peer under docs/coverage/"


def test_a_wrong_map_is_refused():
    bad = {"squawk": {"check": [{"name": "x", "kind": "hazard", "postgres": ["SC999"], "mysql": []}]}}
    assert coverage.problems(bad, CODES) == [
        "squawk/x: postgres: no rule SC999",
        "squawk/x: mysql: no code and no reason",
    ]


@pytest.mark.parametrize(("case_id", "case"), coverage.cases(DOCS), ids=[i for i, _ in coverage.cases(DOCS)])
def test_every_unsafe_operation_is_caught(case_id, case, tmp_path: Path):
    given = {"dialect": case["dialect"], "select": sorted(CODES)}
    if case.get("target"):  # the server version the operation is unsafe on, where that matters
        given["target"] = case["target"]
    config = load_config(None, given)
    history = []
    if case.get("history"):
        (tmp_path / "000_history.sql").write_text(case["history"])
        history.append(str(tmp_path / "000_history.sql"))
    (tmp_path / "001_change.sql").write_text(case["sql"])
    result = Linter(config).lint([str(tmp_path / "001_change.sql")], history)
    assert not result.errors, [str(e) for e in result.errors]
    got = {f.code for f in result.findings}
    assert set(case["expect"]) <= got, f"{case_id}: wanted {case['expect']}, got {sorted(got)}"
