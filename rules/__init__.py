"""The built-in rules: one module per rule, and this package the one plugin that lists them all
(from the generated index, each imported when a run chooses it)."""

from schemacite import hookimpl
from schemacite.rule import LazyRule
from schemacite.rules.index import RULES


@hookimpl
def schemacite_rules():
    return [
        LazyRule(code, name, family, status, frozenset(dialects), target)
        for code, name, family, status, dialects, target in RULES
    ]
