"""Frameworks whose migrations are code, linted through the SQL they print: Django (`sqlmigrate`),
Alembic (`upgrade --sql`); and Rails, whose `db/structure.sql` is the schema, not a migration.

schemacite never runs a project's code to get that SQL: the project's own tools print it, and the
SQL reaches schemacite through a file or standard input.
"""

from __future__ import annotations

import re

from schemacite.sources.frameworks.base import Framework, Unit, _stem
from schemacite.sources.patterns import Pattern

_REVISION = Pattern(r"^--\s*Running upgrade\s+(.*)$", re.M)


class Alembic(Framework):
    """`alembic upgrade A:B --sql` prints each revision after a `-- Running upgrade x -> y` line,
    inside the BEGIN ... COMMIT the environment chose (one around the whole run by default)."""

    def units(self, path: str, text: str) -> list[Unit]:
        marks = [(text.count("\n", 0, m.start()) + 1, m.group(1).strip()) for m in _REVISION.finditer(text)]
        if not marks:
            return [Unit(_stem(path))]
        units = [Unit(f"{_stem(path)} (before the first revision)", 1, marks[0][0] - 1)] if marks[0][0] > 1 else []
        for n, (line, revision) in enumerate(marks):
            last = marks[n + 1][0] - 1 if n + 1 < len(marks) else 0
            units.append(Unit(f"revision {revision}", line, last, why="Alembic's printed BEGIN ... COMMIT"))
        return units


DJANGO = Framework(
    "django",
    "Django (sqlmigrate)",
    "https://docs.djangoproject.com/en/stable/howto/writing-migrations/#non-atomic-migrations",
    "script",
    "sqlmigrate prints the transaction Django runs the migration in (atomic = True)",
    opt_out="atomic = False",
    opt_out_at="the Migration class (Python)",
    generated_from="the Django migration (Python) sqlmigrate printed it from",
)
ALEMBIC = Alembic(
    "alembic",
    "Alembic (upgrade --sql)",
    "https://alembic.sqlalchemy.org/en/latest/offline.html",
    "script",
    "Alembic's printed BEGIN ... COMMIT",
    marker=Pattern(r"^--\s*Running upgrade\b", re.M),
    sign="-- Running upgrade",
    opt_out="op.get_context().autocommit_block()",
    opt_out_at="around the operations, in the revision (Python)",
    generated_from="the Alembic revision (Python) `upgrade --sql` printed it from",
)
RAILS = Framework(
    "rails",
    "Rails (db/structure.sql)",
    "https://guides.rubyonrails.org/active_record_migrations.html#schema-dumping-and-you",
    "script",
    "db/structure.sql is the schema Rails loads, not a migration",
    opt_out="disable_ddl_transaction!",
    opt_out_at="the migration class (Ruby)",
    generated_from="the Rails migration (Ruby) that db/structure.sql was dumped after",
)
