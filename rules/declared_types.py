"""The column types a statement declares: shared by the preference rules that judge a type choice."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.record import record
from schemacite.model.statements import AddColumn, AlterColumnType, AlterTable, CreateTable, CreateTableAs, Statement


@record(frozen=True)
class Declared:
    """A column a statement declares or gives a new type: its table, its name, the type as the
    reader normalised it (`base_type` without `[]`, `array` when it is one) and whether it is a
    PostgreSQL serial column."""

    table: str
    column: str
    base_type: str
    type_args: str
    array: bool = False
    serial: bool = False


def declared_types(stmt: Statement) -> Iterator[Declared]:
    """Every column type `stmt` writes out: CREATE TABLE's columns (not those CREATE TABLE ... AS
    copies from its query), ALTER TABLE's ADD COLUMN, MySQL MODIFY/CHANGE and ALTER COLUMN TYPE."""
    op = stmt.op
    if isinstance(op, CreateTable) and not isinstance(op, CreateTableAs):
        for col in op.model.columns.values():
            yield _declared(op.model.name, col.name, col.base_type, col.type_args, col.serial)
    elif isinstance(op, AlterTable):
        for action in op.actions:
            if isinstance(action, AddColumn):
                col = action.definition
                yield _declared(op.name, col.name, col.base_type, col.type_args, col.serial)
            elif isinstance(action, AlterColumnType) and action.column:
                yield _declared(op.name, action.column, action.base_type, action.type_args, False)


def _declared(table: str, column: str, base_type: str, type_args: str, serial: bool) -> Declared:
    base = base_type.lower()
    return Declared(table, column, base.split("[", 1)[0], type_args, base.endswith("]"), serial)
