"""Node.js migration runners: drizzle-orm's migrator (drizzle-kit's files), graphile-migrate and
node-pg-migrate's SQL migrations."""

from __future__ import annotations

import json
import os
import re

from schemacite.model.fixes import Edit
from schemacite.sources.files import nearest, side_file
from schemacite.sources.frameworks.base import Framework, Unit, _stem
from schemacite.sources.patterns import Pattern

# ---------------------------------------------------------------- Drizzle

DRIZZLE_BREAKPOINT = "--> statement-breakpoint"


def drizzle_journal(path: str) -> dict | None:
    """meta/_journal.json beside a migration, read."""
    text = side_file(os.path.join(os.path.dirname(os.path.abspath(path)), "meta", "_journal.json"))
    try:
        journal = json.loads(text) if text else None
    except ValueError:
        return None
    return journal if isinstance(journal, dict) and isinstance(journal.get("entries"), list) else None


def _tags(path: str) -> list[str]:
    journal = drizzle_journal(path) or {}
    return [e["tag"] for e in journal.get("entries", ()) if isinstance(e, dict) and isinstance(e.get("tag"), str)]


class Drizzle(Framework):
    """The migrations `meta/_journal.json` names (`<tag>.sql`), in its order; any other SQL file
    there never runs. Statements are split at `--> statement-breakpoint`. On PostgreSQL the
    migrator runs every pending migration in one transaction, with no way to leave it out."""

    def deployed(self, path: str) -> bool:
        return _stem(path) in _tags(path)

    def order(self, files: list[str]) -> list[str]:
        def key(f: str) -> tuple:
            tags = _tags(f)
            return (0, os.path.dirname(f), tags.index(_stem(f)), f) if _stem(f) in tags else (1, "", 0, f)

        return sorted(files, key=key)

    def units(self, path: str, text: str) -> list[Unit]:
        return [Unit(_stem(path), deploy=self.deployed(path), transaction="run", why=self.why)]

    def prepare(self, path: str, text: str) -> str:
        """Each breakpoint ends a statement, as `;` would (drizzle-kit writes none before it at
        times)."""
        return text.replace(DRIZZLE_BREAKPOINT, ";".ljust(len(DRIZZLE_BREAKPOINT)))


def journal_dialect(files: list[str]) -> tuple[str, str] | None:
    """(dialect the journal names, where) for a Drizzle project: "postgresql", "pg", "mysql"."""
    for f in files[:1]:
        journal = drizzle_journal(f)
        if journal and isinstance(journal.get("dialect"), str):
            return journal["dialect"].lower(), f'meta/_journal.json: "dialect": "{journal["dialect"]}"'
    return None


# ---------------------------------------------------------------- graphile-migrate

GRAPHILE_NAME = Pattern(r"^([0-9]+)(-[-_a-zA-Z0-9]*)?\.sql$")
GRAPHILE_NO_TRANSACTION = "--! no-transaction"
_GRAPHILE_HEADER = Pattern(r"^--! [A-Z][a-zA-Z0-9_]*(?::.*)?$")
_GRAPHILE_OPT_OUT = Pattern(r"^--!\s*no-transaction\b")


def _graphile_place(path: str) -> tuple[int, str] | None:
    """(0, name) for a committed migration, (1, name) for the current one, else None."""
    parts = os.path.abspath(path).replace("\\", "/").split("/")
    base = parts[-1]
    if parts[-2] == "committed" and GRAPHILE_NAME.match(base):
        return (0, base)
    if base == "current.sql" or parts[-2] == "current" and GRAPHILE_NAME.match(base):
        return (1, base)
    return None


class GraphileMigrate(Framework):
    """`migrations/committed/<n>[-message].sql` is the history, in the order of the names, and
    `migrations/current.sql` (or the files of `migrations/current/`) the change. Each runs in one
    transaction unless its body (after the `--! Hash:` headers) starts with `--! no-transaction`;
    it is then sent as one query. `:NAME` placeholders from .gmrc are filled in before it runs."""

    def deployed(self, path: str) -> bool:
        return _graphile_place(path) is not None

    def order(self, files: list[str]) -> list[str]:
        return sorted(files, key=lambda f: (_graphile_place(f) or (2, ""), f))

    def base(self, files: list[str]) -> list[str]:
        """The SQL files .gmrc's `afterReset` runs (a reset database gets them, then every
        committed migration): the schema the first committed migration was written against."""
        settings = gmrc(files[0]) if files else None
        if settings is None:
            return []
        text = _settings_text(settings)  # read once for both settings
        folder = _migrations_folder(settings, text)
        loaded = {os.path.abspath(os.path.join(folder, f)) for f in _after_reset(text)}
        return [f for f in files if os.path.abspath(f) in loaded]

    def opt_out_edit(self, path: str, unit: Unit, text: str) -> Edit | None:
        return Edit.insert(path, _body_start(text) + 1, 1, self.opt_out + "\n")

    def editable(self, path: str) -> bool:
        """Only the current migration: a committed one carries its own `--! Hash:`, which graphile-migrate checks."""
        place = _graphile_place(path)
        return place is not None and place[0] == 1

    def units(self, path: str, text: str) -> list[Unit]:
        name = _stem(path)
        if not self.deployed(path):
            return [Unit(name, deploy=False)]
        lines = text.split("\n")
        first = _body_start(text)
        if first < len(lines) and _GRAPHILE_OPT_OUT.match(lines[first]):
            why = "graphile-migrate sends a --! no-transaction migration as one query"
            return [Unit(name, transaction="implicit", why=why)]
        return [Unit(name, transaction="unit", why=self.why)]


def _body_start(text: str) -> int:
    """The 0-based line a migration's body starts on, after its `--! Hash:` headers."""
    lines = text.split("\n")
    first = 0
    while first < len(lines) and _GRAPHILE_HEADER.match(lines[first]):
        first += 1
    if first and first < len(lines) and not lines[first].strip():
        first += 1  # committed files leave a blank line after their headers
    return first


_GMRC_AFTER_RESET = Pattern(r'"?afterReset"?\s*:\s*\[(?P<actions>[^\]]*)\]')
_GMRC_FOLDER = Pattern(r'"?migrationsFolder"?\s*:\s*"(?P<folder>[^"]+)"')
_GMRC_STRING = Pattern(r'"!?(?P<name>[^"!][^"]*\.sql)"')  # `"!file.sql"`: the same file, run as the root user


def _settings_text(settings: str) -> str:
    """.gmrc without its comments: it is JSON5 (comments, trailing commas), read by pattern, not by
    a JSON parser."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", side_file(settings) or "", flags=re.S)


def _after_reset(text: str) -> list[str]:
    """The SQL files of .gmrc's afterReset actions: `"file.sql"`, `"!file.sql"` or `{"_": "sql", "file": "file.sql"}`."""
    m = _GMRC_AFTER_RESET.search(text)
    return [s.group("name") for s in _GMRC_STRING.finditer(m.group("actions"))] if m else []


def _migrations_folder(settings: str, text: str) -> str:
    m = _GMRC_FOLDER.search(text)
    return os.path.join(os.path.dirname(settings), m.group("folder") if m else "migrations")


def gmrc(path: str) -> str | None:
    """The graphile-migrate settings (.gmrc or .gmrc.js) of the project holding `path`."""
    return nearest(path, ".gmrc", levels=5) or nearest(path, ".gmrc.js", levels=5)


# ---------------------------------------------------------------- node-pg-migrate

_NODE_PG_SECTION = Pattern(r"^[ \t]*--[ \t-]*(up|down)[ \t]+migration", re.I | re.M)


class NodePgMigrate(Framework):
    """A SQL migration's `-- Up Migration` section runs, its `-- Down Migration` section (or a
    `.down.sql` file) does not; files run in the order of their leading numbers. By default
    (`--single-transaction`) every pending migration runs in one transaction; without it each
    SQL migration still gets its own: SQL migrations cannot leave it out."""

    def units(self, path: str, text: str) -> list[Unit]:
        name = _stem(path)
        if not self.deployed(path):
            return [Unit(name, deploy=False)]
        marks = [(text.count("\n", 0, m.start()) + 1, m.group(1).lower()) for m in _NODE_PG_SECTION.finditer(text)]
        up = next((line for line, kind in marks if kind == "up"), None)
        down = next((line for line, kind in marks if kind == "down"), None)
        if up is None:  # the runner sends the whole file
            return [Unit(name, transaction="run", why=self.why)]
        units = [Unit(name, up, (down - 1) if down and down > up else 0, True, "run", self.why)]
        if down:
            units.append(Unit(f"{name} (down)", down, (up - 1) if up > down else 0, False))
        if min(up, down or up) > 1:
            units.insert(0, Unit(f"{name} (before the first section)", 1, min(up, down or up) - 1, False))
        return units

    def order(self, files: list[str]) -> list[str]:
        def key(f: str) -> tuple:
            m = re.match(r"(\d+)", os.path.basename(f))
            return (0, int(m.group(1)), f) if m else (1, 0, f)

        return sorted(files, key=key)


DRIZZLE = Drizzle(
    "drizzle",
    "Drizzle (drizzle-orm migrator)",
    "https://github.com/drizzle-team/drizzle-orm/blob/main/drizzle-orm/src/pg-core/dialect.ts",
    "run",
    "drizzle-orm's migrator runs every pending migration in one transaction",
)
GRAPHILE_MIGRATE = GraphileMigrate(
    "graphile-migrate",
    "graphile-migrate",
    "https://github.com/graphile/migrate/blob/main/src/migration.ts",
    "unit",
    "graphile-migrate runs each migration in one transaction",
    opt_out=GRAPHILE_NO_TRANSACTION,
    opt_out_at="first line of the migration's body",
    opt_out_mode="implicit",
)
NODE_PG_MIGRATE = NodePgMigrate(
    "node-pg-migrate",
    "node-pg-migrate",
    "https://github.com/salsita/node-pg-migrate/blob/main/src/runner.ts",
    "run",
    "node-pg-migrate's default, --single-transaction, runs every pending migration in one transaction",
    marker=_NODE_PG_SECTION,
    sign="-- Up Migration",
)
