"""Frameworks known by their files' names and layout: golang-migrate, Flyway, Prisma, Atlas, sqitch."""

from __future__ import annotations

import datetime
import os
import re

from schemacite.model.fixes import Edit
from schemacite.sources.files import nearest, side_file
from schemacite.sources.frameworks.base import Framework, Unit, _stem, side_file_edit, version_key
from schemacite.sources.patterns import Pattern

# ---------------------------------------------------------------- golang-migrate

GOLANG_MIGRATE_NAME = Pattern(r"^(\d+)_.*\.(up|down)\.sql$", re.I)


class GolangMigrate(Framework):
    """`N_title.up.sql` runs in version order, `.down.sql` does not. The PostgreSQL driver sends a
    file as one query: one implicit transaction when it holds several statements."""

    def order(self, files: list[str]) -> list[str]:
        def key(f: str) -> tuple:
            m = GOLANG_MIGRATE_NAME.match(os.path.basename(f))
            return (0, int(m.group(1)), f) if m else (1, 0, f)

        return sorted(files, key=key)

    def next_migration(self, path: str, title: str) -> str | None:
        """`<version + 1>_<title>.up.sql` beside `path`, the version as wide as its own; only for
        the newest migration of its folder (versions are integers: none fits between two)."""
        m = GOLANG_MIGRATE_NAME.match(os.path.basename(path))
        if m is None or m.group(2).lower() != "up":
            return None
        folder = os.path.dirname(path) or "."
        version = int(m.group(1))
        later = [n for n in os.listdir(folder) if (v := GOLANG_MIGRATE_NAME.match(n)) and int(v.group(1)) > version]
        if later:
            return None
        return os.path.join(os.path.dirname(path), f"{version + 1:0{len(m.group(1))}d}_{title}.up.sql")

    def own_migration(self) -> str:
        # a file of one statement is sent alone: outside any transaction block
        return "alone in a new N_name.up.sql/.down.sql pair"


# ---------------------------------------------------------------- morph (Mattermost)

MORPH_NONTRANSACTIONAL = "-- morph:nontransactional"


class Morph(GolangMigrate):
    """golang-migrate's file names, another runner: each file runs in one transaction, unless it
    starts with `-- morph:nontransactional` (then it is sent as one query: an implicit
    transaction when it holds several statements)."""

    def units(self, path: str, text: str) -> list[Unit]:
        if text.startswith(MORPH_NONTRANSACTIONAL):
            return [
                Unit(
                    _stem(path), transaction="implicit", why="morph sends a -- morph:nontransactional file as one query"
                )
            ]
        return [Unit(_stem(path), transaction="unit", why="morph runs each migration in one transaction")]


# ---------------------------------------------------------------- Flyway

# the ending is .sql, or one the project's settings name (`spring.flyway.sql-migration-suffixes`)
FLYWAY_NAME = Pattern(
    r"^(?P<prefix>[VUB])(?P<version>\d[\w.]*?)__(?P<desc>.+?)\.[a-z]\w*$|^R__(?P<repeat>.+?)\.[a-z]\w*$", re.I
)
FLYWAY_CALLBACKS = Pattern(r"^(before|after)\w*\.sql$", re.I)


class Flyway(Framework):
    """`V<version>__<desc>.sql` runs in version order (`1.10` after `1.9`), then the repeatable
    `R__<desc>.sql` files by description. One transaction per migration, unless PostgreSQL refuses
    every statement of it in a transaction block (then none) or a `<file>.conf` beside it says
    `executeInTransaction=false`. `U` (undo) files do not run on deploy; callbacks
    (`beforeMigrate.sql`, `afterMigrate.sql`, ...) are not migrations.

    A baseline migration `B<version>__<desc>.sql` builds a new database at its version: Flyway runs
    the newest one first and then only the `V` files above its version, ignoring the others (a
    database that already has migrations ignores the baselines instead; both reach one schema)."""

    def opt_out_edit(self, path: str, unit: Unit, text: str) -> Edit | None:
        return side_file_edit(path, os.path.basename(path) + ".conf", self.opt_out)

    def own_migration(self) -> str:
        return "alone in a migration of its own (Flyway then runs it outside a transaction)"

    def units(self, path: str, text: str) -> list[Unit]:
        name = _stem(path)
        if not self.deployed(path):
            return [Unit(name, deploy=False)]
        if _conf_says_no_transaction(path):
            return [Unit(name, transaction="script", why=f"{os.path.basename(path)}.conf: executeInTransaction=false")]
        return [Unit(name, transaction="flyway", why="Flyway runs each migration in one transaction")]

    def deployed(self, path: str) -> bool:
        base = os.path.basename(path)
        m = FLYWAY_NAME.match(base)
        return bool(m) and (m.group("prefix") or "R").upper() != "U" and not FLYWAY_CALLBACKS.match(base)

    def skipped(self, files: list[str], dialect: str) -> dict[str, str]:
        """The baselines older than the newest, and the `V` files at or below the newest's version."""
        baselines = [(v, f) for f in files if (v := _flyway_version(f, "B")) is not None]
        if not baselines:
            return {}
        top, newest = max(baselines)
        name = os.path.basename(newest)
        why = {f: f"Flyway builds a new database from the newest baseline, {name}" for _, f in baselines if f != newest}
        for f in files:
            version = _flyway_version(f, "V")
            if version is not None and version <= top:
                why[f] = f"at or below the baseline {name}: Flyway builds a new database from it and skips them"
        return why

    def order(self, files: list[str]) -> list[str]:
        def key(f: str) -> tuple:
            m = FLYWAY_NAME.match(os.path.basename(f))
            if not m:
                return (2, (), f)
            if m.group("repeat"):
                return (1, (), m.group("repeat"))
            baseline = m.group("prefix").upper() == "B"  # the one a run keeps builds the schema: first
            return (-1 if baseline else 0, _flyway_version(f, m.group("prefix")), f)

        return sorted(files, key=key)


def _flyway_version(path: str, prefix: str) -> tuple | None:
    """The version of a migration with that prefix (V, B), compared part by part (1.0 is 1)."""
    m = FLYWAY_NAME.match(os.path.basename(path))
    if not m or (m.group("prefix") or "").upper() != prefix:
        return None
    version = version_key(m.group("version"))
    while len(version) > 1 and version[-1] == (0, 0, ""):
        version = version[:-1]
    return version


def _conf_says_no_transaction(path: str) -> bool:
    text = side_file(path + ".conf")
    return text is not None and re.search(r"^\s*executeInTransaction\s*=\s*false\s*$", text, re.I | re.M) is not None


# ---------------------------------------------------------------- Prisma


PRISMA_FOLDER = Pattern(r"^(\d+)_")


class Prisma(Framework):
    """`migrations/<timestamp>_<name>/migration.sql`, in the order of the folders' names; the whole
    file is sent as one query (one implicit transaction on PostgreSQL)."""

    def order(self, files: list[str]) -> list[str]:
        return sorted(files, key=lambda f: os.path.basename(os.path.dirname(f)))

    def next_migration(self, path: str, title: str) -> str | None:
        """`<later timestamp>_<title>/migration.sql` beside the folder of `path`, as `prisma migrate
        dev --create-only` makes one: a second after a 14-digit timestamp, else the number plus one
        at its width; only for the newest migration, and only when the name sorts after it."""
        folder = os.path.dirname(os.path.abspath(path))
        m = PRISMA_FOLDER.match(os.path.basename(folder))
        if m is None or os.path.basename(path) != "migration.sql":
            return None
        stamp = m.group(1)
        try:
            later = (datetime.datetime.strptime(stamp, "%Y%m%d%H%M%S") + datetime.timedelta(seconds=1)).strftime(
                "%Y%m%d%H%M%S"
            )
        except ValueError:
            later = f"{int(stamp) + 1:0{len(stamp)}d}"
        name = f"{later}_{title}"
        parent = os.path.dirname(folder)
        names = [n for n in os.listdir(parent) if os.path.isdir(os.path.join(parent, n))]
        if any(n > os.path.basename(folder) for n in names) or name <= os.path.basename(folder):
            return None
        return os.path.join(os.path.dirname(os.path.dirname(path)), name, "migration.sql")

    def own_migration(self) -> str:
        return f"alone in a new migration.sql (`{self.new_migration}`)"


def prisma_provider(files: list[str]) -> str | None:
    """The provider migration_lock.toml names (postgresql, mysql), for the dialect."""
    for f in files[:1]:
        text = side_file(os.path.join(os.path.dirname(os.path.dirname(f)), "migration_lock.toml"))
        m = re.search(r'^\s*provider\s*=\s*"(\w+)"', text or "", re.M)
        return m.group(1).lower() if m else None
    return None


# ---------------------------------------------------------------- Atlas

_ATLAS_TXMODE = Pattern(r"\A(?:\s*--[^\n]*\n)*?\s*--\s*atlas:txmode\s+(\w+)", re.I)


class Atlas(Framework):
    """Files in the order of their names, each in one transaction unless the file starts with
    `-- atlas:txmode none`."""

    def units(self, path: str, text: str) -> list[Unit]:
        m = _ATLAS_TXMODE.match(text)
        if m and m.group(1).lower() == "none":
            return [Unit(_stem(path), transaction="script", why="-- atlas:txmode none: no transaction")]
        return [Unit(_stem(path), transaction="unit", why="Atlas runs each migration file in one transaction")]

    def order(self, files: list[str]) -> list[str]:
        return sorted(files, key=os.path.basename)


# ---------------------------------------------------------------- sqitch


class Sqitch(Framework):
    """`deploy/<change>.sql` runs, in the order of sqitch.plan; `revert/` and `verify/` scripts do
    not. sqitch adds no transaction: a script's own BEGIN ... COMMIT (its template's default) do."""

    def deployed(self, path: str) -> bool:
        parts = path.replace("\\", "/").split("/")
        return "deploy" in parts[:-1] and not any(p in ("revert", "verify") for p in parts[:-1])

    def order(self, files: list[str]) -> list[str]:
        """Each script at its place in the plan of its own project (a nested project has its own
        sqitch.plan); projects in the order of their plans' paths; scripts no plan names last."""
        plan_of = {f: sqitch_plan(f) for f in files}
        plans = sorted({p for p in plan_of.values() if p})
        ranks: dict[str, int] = {}
        for plan in plans:
            top = os.path.dirname(plan)
            for n, script in enumerate(_plan_scripts(plan)):
                ranks.setdefault(os.path.join(top, "deploy", script), n)

        def key(f: str) -> tuple:
            plan = plan_of[f]
            return (plans.index(plan) if plan else len(plans), ranks.get(os.path.abspath(f), 10**9), f)

        return sorted(files, key=key)


def sqitch_plan(path: str) -> str | None:
    """The sqitch.plan of the project holding `path` (looked for in its folder and up)."""
    return nearest(path, "sqitch.plan", levels=6)


def _plan_scripts(plan: str) -> list[str]:
    """The deploy scripts of a plan in deploy order. A reworked change appears more than once:
    each earlier appearance runs the script frozen under the first tag after it
    (`name@tag.sql`), the last one runs `name.sql`."""
    lines = (side_file(plan) or "").splitlines()
    entries: list[tuple[str, str]] = []  # ("change", name) | ("tag", name)
    for line in lines:
        line = line.strip()
        if not line or line[0] in "%#":
            continue
        if line[0] == "@":
            entries.append(("tag", line[1:].split()[0]))
        else:
            entries.append(("change", line.lstrip("+-").split()[0]))
    scripts = []
    for n, (kind, name) in enumerate(entries):
        if kind != "change":
            continue
        reworked_later = any(k == "change" and other == name for k, other in entries[n + 1 :])
        tag = next((other for k, other in entries[n + 1 :] if k == "tag"), None) if reworked_later else None
        scripts.append(f"{name}@{tag}.sql" if tag else f"{name}.sql")
    return scripts


GOLANG_MIGRATE = GolangMigrate(
    "golang-migrate",
    "golang-migrate",
    "https://github.com/golang-migrate/migrate/blob/master/database/postgres/README.md",
    "implicit",
    "golang-migrate sends each file as one query",
    after_failure="`migrate force <previous version>` first (golang-migrate leaves the failed version dirty)",
)
MORPH = Morph(
    "morph",
    "morph (Mattermost)",
    "https://github.com/mattermost/morph",
    "unit",
    "morph runs each migration in one transaction",
    marker=Pattern(r"\A-- morph:nontransactional"),
    sign="-- morph:nontransactional",
    opt_out=MORPH_NONTRANSACTIONAL,
    opt_out_at="first line",
    opt_out_mode="implicit",
)
FLYWAY = Flyway(
    "flyway",
    "Flyway",
    "https://documentation.red-gate.com/fd/flyway-execute-in-transaction-setting-277578997.html",
    "flyway",
    "Flyway runs each migration in one transaction",
    placeholders=True,
    opt_out="executeInTransaction=false",
    opt_out_at="<migration>.sql.conf beside the file",
    after_failure_mysql="`flyway repair` first (Flyway records the failed migration where DDL is not transactional)",
)
PRISMA = Prisma(
    "prisma",
    "Prisma Migrate",
    "https://www.prisma.io/docs/orm/prisma-migrate/understanding-prisma-migrate/migration-histories",
    "implicit",
    "prisma migrate sends each migration.sql as one query",
    new_migration="prisma migrate dev --create-only",
    after_failure="`prisma migrate resolve --rolled-back <migration>` first (Prisma records the failed migration)",
)
ATLAS = Atlas(
    "atlas",
    "Atlas",
    "https://atlasgo.io/versioned/apply",
    "unit",
    "Atlas runs each migration file in one transaction",
    opt_out="-- atlas:txmode none",
    opt_out_at="first line",
)
SQITCH = Sqitch(
    "sqitch",
    "sqitch",
    "https://sqitch.org/docs/manual/sqitchtutorial/",
    "script",
    "sqitch runs the script as psql does: only its own BEGIN ... COMMIT",
)


# ---------------------------------------------------------------- Synapse (Matrix)

SYNAPSE_SERIAL = "$%AUTO_INCREMENT_PRIMARY_KEY%$"  # what Synapse's PostgreSQL engine fills in
# a Python delta runs as code beside the SQL ones; __init__.py only makes the folder a package
_SYNAPSE_CODE = Pattern(r"^(?!__init__\.py$)\w+\.py$")


def synapse_place(path: str) -> tuple[str, int] | None:
    """("delta" | "full_schemas", version) for a file of a Synapse schema folder
    (`schema/<store>/delta/<version>/` or `schema/<store>/full_schemas/<version>/`)."""
    parts = os.path.abspath(path).replace("\\", "/").split("/")
    if len(parts) >= 3 and parts[-3] in ("delta", "full_schemas") and parts[-2].isdigit():
        return parts[-3], int(parts[-2])
    return None


class Synapse(Framework):
    """Synapse's schema: a new database runs the newest `full_schemas/<version>/` dump (every
    store's, by file name), then the deltas of each later version, `delta/<version>/*.sql` and the
    engine's `*.sql.postgres`, by file name across the stores (`x.sql` before `x.sql.postgres`: both
    run). A database made earlier ran the older deltas instead, which the dump holds. `*.py`
    deltas run as code among them. Each file runs in a transaction of its own (Synapse sends
    `COMMIT; BEGIN TRANSACTION;` before it), with its `$%AUTO_INCREMENT_PRIMARY_KEY%$` filled in."""

    def prepare(self, path: str, text: str) -> str:
        """The engine's column for the placeholder; the rest of its line moves right."""
        return text.replace(SYNAPSE_SERIAL, "BIGINT PRIMARY KEY GENERATED ALWAYS AS IDENTITY")

    def _newest_full(self, files: list[str]) -> int | None:
        versions = [p[1] for f in files if (p := synapse_place(f)) and p[0] == "full_schemas"]
        return max(versions) if versions else None

    def base(self, files: list[str]) -> list[str]:
        newest = self._newest_full(files)
        return self.order([f for f in files if synapse_place(f) == ("full_schemas", newest)])

    def skipped(self, files: list[str], dialect: str) -> dict[str, str]:
        """Older dumps, the deltas a new database gets from the newest dump, and (named, never
        read) the Python deltas beside the SQL ones that run."""
        newest = self._newest_full(files)
        why = {}
        for f in files:
            place = synapse_place(f)
            if place is None or newest is None:
                continue
            if place[1] < newest or place == ("delta", newest):
                held = "an older schema dump" if place[0] == "full_schemas" else "a delta the newer dump holds"
                why[f] = f"{held}: Synapse builds a new database from full_schemas/{newest}"
        folders = {os.path.dirname(f) for f in files if f not in why and (p := synapse_place(f)) and p[0] == "delta"}
        for folder in sorted(folders):
            for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
                if _SYNAPSE_CODE.match(name):
                    why[os.path.join(folder, name)] = "Python deltas Synapse runs as code among the SQL ones: not seen"
        return why

    def order(self, files: list[str]) -> list[str]:
        def key(f: str) -> tuple:
            place = synapse_place(f) or ("", 1 << 30)
            return (place[0] != "full_schemas", place[1], os.path.basename(f), f)

        return sorted(files, key=key)


SYNAPSE = Synapse(
    "synapse",
    "Synapse",
    "https://element-hq.github.io/synapse/latest/development/database_schema.html",
    "unit",
    "Synapse runs each schema file in a transaction of its own",
)
