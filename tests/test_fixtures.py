"""Every fixture case under fixtures/rules runs through one harness (schemacite.testing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemacite.testing import assert_case, load_cases

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rules"
CASES = [c for f in sorted(FIXTURES.glob("*.yml")) for c in load_cases(f)]


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[i for i, _ in CASES])
def test_fixture_case(case):
    assert_case(case)


CASE_DIRS = sorted(p for p in (FIXTURES.parent / "cases").iterdir() if p.is_dir())


@pytest.mark.parametrize("case_dir", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_multi_file_case(case_dir, monkeypatch):
    """A project folder: migrations, a pyproject.toml read as a user's would be, and expect.yml
    (the paths to lint, their `history`, the `framework` the run must take them for, the `notes` it
    must write, each a part of one, and the findings)."""
    import yaml

    from schemacite import lint_paths
    from schemacite.testing import matches

    spec = yaml.safe_load((case_dir / "expect.yml").read_text())
    monkeypatch.chdir(case_dir)
    result = lint_paths(spec["paths"], history=spec.get("history", []))
    assert not result.errors, [str(e) for e in result.errors]
    if "framework" in spec:
        assert result.framework is not None and result.framework[0] == spec["framework"], result.framework
    for note in spec.get("notes", []):
        assert any(note in n for n in result.notes), f"{note!r} not in {result.notes}"
    unmatched = list(result.findings)
    for want in spec["expect"]:
        want = dict(want)
        file = want.pop("file")
        hit = next((f for f in unmatched if f.location.file == file and matches(f, want)), None)
        assert hit is not None, f"{want} at {file} not found in {[(f.rule, f.location) for f in result.findings]}"
        unmatched.remove(hit)
    assert not unmatched, [(f.rule, str(f.location), f.message) for f in unmatched]
