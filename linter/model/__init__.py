"""The data every part of schemacite shares: the schema model, the statements readers produce,
and the findings rules report. Plugin authors import these names from here."""

from __future__ import annotations

from schemacite.model.schema import (
    Check,
    Column,
    ForeignKey,
    Index,
    Location,
    Partitioning,
    Schema,
    Table,
    View,
    Workload,
    latest,
)
from schemacite.model.statements import Action, ParseError, Statement

__all__ = [
    "Action",
    "Check",
    "Column",
    "ForeignKey",
    "Index",
    "Location",
    "ParseError",
    "Partitioning",
    "Schema",
    "Statement",
    "Table",
    "View",
    "Workload",
    "latest",
]
