"""The public API a rule (built-in or third-party) is written against: `from schemacite.rule import ...`.

The one path rules import it from: the names are defined in `schemacite.lint.rule` (the rule base
class and what the engine hands a rule) and `schemacite.model.results` (what a rule reports), and
only re-exported here, so that a rule does not depend on where the engine keeps them.
"""

from __future__ import annotations

from schemacite.lint.rule import DOCS_URL, FAMILIES, Context, Held, LazyRule, Option, Rule
from schemacite.model.dialects import Dialect, Target
from schemacite.model.results import Finding, LockEstimate, Severity, Suppression

__all__ = [
    "DOCS_URL",
    "FAMILIES",
    "Context",
    "Dialect",
    "Finding",
    "Held",
    "LazyRule",
    "LockEstimate",
    "Option",
    "Rule",
    "Severity",
    "Suppression",
    "Target",
]
