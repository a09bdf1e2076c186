"""The SQL Django would run for each migration, written by its own schema editor with
`collect_sql=True` (what `sqlmigrate` prints), and where each statement comes from: the
migration's file and the line of the operation in its `operations` list.

Nothing is written to the database: a schema editor that collects runs nothing, as `sqlmigrate`'s
does; it may read the catalog (a constraint's name) over the connection, as `sqlmigrate` does.
"""

from __future__ import annotations

import ast
import bisect
import os
import sys
from dataclasses import field

from django.db import DatabaseError
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.migration import Migration
from django.db.migrations.state import ProjectState

from schemacite.model.record import record

# what Django's Migration.apply writes before each operation when it collects SQL
_HEAD = "--"
_CANNOT = "-- THIS OPERATION CANNOT BE WRITTEN AS SQL"


@record
class Collected:
    """One migration's SQL and where its statements come from."""

    app: str
    name: str
    source: str  # the migration's .py file
    sql: str
    atomic: bool
    op_lines: list[int] = field(default_factory=list)  # per operation: its first line in `sql`
    op_source: list[int] = field(default_factory=list)  # per operation: its line in `source`
    unseen: list[tuple[int, str]] = field(default_factory=list)  # (line in source, what) the SQL cannot show

    @property
    def key(self) -> str:
        return f"{self.app}.{self.name}"

    def source_line(self, sql_line: int) -> int:
        """The line in the .py file of the operation that wrote line `sql_line` of the SQL."""
        found = max(bisect.bisect_right(self.op_lines, sql_line) - 1, 0)  # the last head at or before it
        return self.op_source[found] if found < len(self.op_source) else 1


def forwards_plan(loader: MigrationLoader) -> list[tuple[str, str]]:
    """Every migration of the project, in the order `migrate` would apply them all."""
    plan: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for leaf in sorted(loader.graph.leaf_nodes()):
        for node in loader.graph.forwards_plan(leaf):
            if node not in seen:
                seen.add(node)
                plan.append(node)
    return plan


def collect(
    connection, loader: MigrationLoader, plan: list[tuple[str, str]], can_rollback_ddl: bool
) -> list[Collected]:
    """Each migration of `plan` as SQL, in order, the project state carried from one to the next
    (what `migrate` does, with a schema editor that collects instead of running)."""
    state = ProjectState(real_apps=loader.unmigrated_apps)
    out = []
    for node in plan:
        migration = loader.graph.nodes[node]
        try:
            with connection.schema_editor(collect_sql=True, atomic=migration.atomic) as editor:
                state = migration.apply(state, editor, collect_sql=True)
        except Exception as e:  # Django refuses the migration (as migrate would): where, and why
            where = sys.modules[type(migration).__module__].__file__ or migration.name
            hint = ""
            if isinstance(e, DatabaseError):  # it read the catalog (a foreign key's name) and found no table
                hint = (
                    "; Django reads the database's catalog to write it, as sqlmigrate does: run this against "
                    "a database migrated at least up to the migration before it (manage.py migrate), such as "
                    "a development copy"
                )
            raise MigrationRefused(
                f"{os.path.relpath(where)}: Django cannot write this migration's SQL: {e}{hint}"
            ) from e
        out.append(_collected(migration, editor.collected_sql, migration.atomic and can_rollback_ddl))
    return out


class MigrationRefused(Exception):
    """A migration Django will not run, said with its file."""


def _collected(migration: Migration, lines: list[str], in_transaction: bool) -> Collected:
    source = sys.modules[type(migration).__module__].__file__ or ""
    text: list[str] = ["BEGIN;"] if in_transaction else []
    written = len(text)  # lines of the SQL so far (an entry may hold several)
    op_lines: list[int] = []
    cannot: list[int] = []
    at = 0
    while at < len(lines):
        # an operation's head: "--", "-- what it does", "--" (Migration.apply, collecting)
        head = lines[at] == _HEAD and at + 2 < len(lines) and lines[at + 2] == _HEAD and lines[at + 1].startswith("-- ")
        if head:
            op_lines.append(written + 1)
            if at + 3 < len(lines) and lines[at + 3] == _CANNOT:
                cannot.append(len(op_lines) - 1)
        taken = lines[at : at + 3] if head else lines[at : at + 1]  # past a head: its closing "--" opens no other
        text += taken
        written += sum(entry.count("\n") + 1 for entry in taken)
        at += len(taken)
    if in_transaction:
        text.append("COMMIT;")
    op_source = operation_lines(source)
    unseen = [
        (op_source[n] if n < len(op_source) else 1, type(migration.operations[n]).__name__)
        for n in cannot
        if n < len(migration.operations)
    ]
    return Collected(
        migration.app_label,
        migration.name,
        source,
        "\n".join(text) + "\n",
        migration.atomic,
        op_lines,
        op_source,
        unseen,
    )


def operation_lines(path: str) -> list[int]:
    """The line of each element of the `operations` list a migration file's Migration class
    assigns, read from the file's syntax tree (the file is not run again)."""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError):
        return []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            targets = (
                item.targets
                if isinstance(item, ast.Assign)
                else [item.target]
                if isinstance(item, ast.AnnAssign)
                else []
            )
            value = getattr(item, "value", None)
            if any(isinstance(t, ast.Name) and t.id == "operations" for t in targets) and isinstance(
                value, (ast.List, ast.Tuple)
            ):
                return [element.lineno for element in value.elts]
    return []
