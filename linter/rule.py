"""The public API a rule (built-in or third-party) is written against: `from schemacite.rule import ...`."""

from __future__ import annotations

from schemacite.lint.rule import (  # noqa: F401
    DOCS_URL,
    Context,
    Finding,
    Option,
    Rule,
    Severity,
    Suppression,
)
