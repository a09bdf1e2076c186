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
