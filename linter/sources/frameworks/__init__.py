"""Migration frameworks: which one a project uses, and what it runs (see base.py).

`detect(files)` reads the files' names, their folders and the first lines of each, and names
the framework with the evidence it saw. `framework = "..."` in the config or `--framework`
overrides it; `plain` is SQL files run as they are.
"""

from __future__ import annotations

import json
import os
import re

from schemacite.sources.files import head, nearest, side_file
from schemacite.sources.frameworks.annotated import DBMATE, GOOSE, LIQUIBASE, SQL_MIGRATE
from schemacite.sources.frameworks.base import Framework, Unit, blank_placeholders
from schemacite.sources.frameworks.generated import ALEMBIC, DJANGO, RAILS
from schemacite.sources.frameworks.go import (
    HASURA,
    POP,
    SUPABASE,
    hasura_config,
    is_pop_name,
    pop_named,
    supabase_project,
)
from schemacite.sources.frameworks.named import (
    ATLAS,
    FLYWAY,
    FLYWAY_NAME,
    GOLANG_MIGRATE,
    GOLANG_MIGRATE_NAME,
    MORPH,
    PRISMA,
    SQITCH,
    SYNAPSE,
    prisma_provider,
    sqitch_plan,
    synapse_place,
)
from schemacite.sources.frameworks.node import (
    DRIZZLE,
    GRAPHILE_MIGRATE,
    NODE_PG_MIGRATE,
    drizzle_journal,
    gmrc,
    journal_dialect,
)
from schemacite.sources.frameworks.rust import DIESEL, DIESEL_FOLDER, SQLX, SQLX_NAME, cargo_using_sqlx

PLAIN = Framework("plain", "plain SQL files", "", "script", "")

FRAMEWORKS: dict[str, Framework] = {
    f.name: f
    for f in (
        GOOSE,
        SQL_MIGRATE,
        DBMATE,
        LIQUIBASE,
        SQITCH,
        FLYWAY,
        GOLANG_MIGRATE,
        MORPH,
        PRISMA,
        ATLAS,
        DIESEL,
        SQLX,
        DRIZZLE,
        SUPABASE,
        GRAPHILE_MIGRATE,
        NODE_PG_MIGRATE,
        POP,
        HASURA,
        SYNAPSE,
        DJANGO,
        ALEMBIC,
        RAILS,
        PLAIN,
    )
}

__all__ = [
    "FRAMEWORKS",
    "Framework",
    "PLAIN",
    "Unit",
    "blank_placeholders",
    "detect",
    "journal_dialect",
    "prisma_provider",
]

HEAD = 4096  # bytes of each file read to look for markers
FILES = 2000  # files read at most


def go_module_using(path: str, module: str) -> str | None:
    """The go.mod of the Go module holding `path`, when it requires `module` (any major version)."""
    found = nearest(path, "go.mod")
    text = side_file(found) if found else None
    return found if text and re.search(re.escape(module) + r"(/v\d+)?\s", text) else None


def node_package_using(path: str, package: str) -> str | None:
    """The package.json nearest `path` when it depends on `package` (any kind of dependency)."""
    found = nearest(path, "package.json")
    try:
        manifest = json.loads(side_file(found) or "{}") if found else {}
    except ValueError:
        return None
    if not isinstance(manifest, dict):
        return None
    kinds = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")
    return found if any(isinstance(manifest.get(k), dict) and package in manifest[k] for k in kinds) else None


def detect(files: list[str]) -> tuple[Framework, str]:
    """(framework, what showed it) for a project's files; PLAIN when nothing does."""
    if not files:
        return PLAIN, ""
    names = [os.path.basename(f) for f in files]
    found = _by_pop_names(names)  # names alone: no file opened
    if found:
        return found
    heads = {f: head(f, HEAD) for f in files[:FILES]}
    return (
        _by_marker(heads)
        or _by_sqitch_plan(files)
        or _by_layout(files, names)
        or _by_file_names(files, names)
        or _by_files_beside(files, names, heads)
        or (PLAIN, "")
    )


POP_SIGN = "a <version>_<name>.<dialect>.up.sql file name ({})"  # what showed pop, as the summary says it


def _by_pop_names(names: list[str]) -> tuple[Framework, str] | None:
    """pop, when most files bear its `<version>_<name>.<database>.up.sql` names: before the marks,
    since a project that moved to pop keeps older files written for its former runner (ory/hydra's
    `-- +migrate Up` in one CockroachDB file among 800 pop files)."""
    named = [n for n in names if is_pop_name(n)]
    if len(named) * 2 > len(names):
        return POP, POP_SIGN.format(named[0])
    return None


def _by_marker(heads: dict[str, str]) -> tuple[Framework, str] | None:
    """The runners whose mark stands in the files themselves (`-- +goose Up`, `-- +migrate Up`,
    `--liquibase formatted sql`)."""
    for framework in (LIQUIBASE, GOOSE, SQL_MIGRATE, DBMATE, MORPH, NODE_PG_MIGRATE):
        hit = next((f for f, text in heads.items() if framework.marker and framework.marker.search(text)), None)
        if hit:
            return framework, f"{framework.sign} in {os.path.basename(hit)}"
    return None


def _by_sqitch_plan(files: list[str]) -> tuple[Framework, str] | None:
    plan = next((p for p in (sqitch_plan(f) for f in files[:20]) if p), None)
    return (SQITCH, f"{os.path.relpath(plan)}") if plan else None


def _by_file_names(files: list[str], names: list[str]) -> tuple[Framework, str] | None:
    """golang-migrate's file names (and Hasura's and morph's, which share them), Flyway's. Most of
    the SQL files must be named so: golang-migrate passes over the others, so a folder where half of
    them are plain `N_title.sql` is run by a runner of the project's own that reads them all."""
    if sum(1 for n in names if GOLANG_MIGRATE_NAME.match(n)) * 2 > len(names):
        config = hasura_config(files[0])
        if config:
            return HASURA, f"N_title.up.sql file names, {os.path.relpath(config)}"
        module = go_module_using(files[0], "github.com/mattermost/morph")
        if module:  # the same file names; morph wraps each file in a transaction
            return MORPH, f"N_title.up.sql file names, github.com/mattermost/morph in {os.path.relpath(module)}"
        return GOLANG_MIGRATE, "N_title.up.sql / .down.sql file names"
    if sum(1 for n in names if FLYWAY_NAME.match(n)) >= max(1, len(names) // 2):
        return FLYWAY, "V<version>__<description>.sql file names"
    return None


def _by_files_beside(files: list[str], names: list[str], heads: dict[str, str]) -> tuple[Framework, str] | None:
    """The runners told by a file beside the SQL, or (Alembic's) by lines in it."""
    if any(
        n == "migration.sql"
        and os.path.isfile(os.path.join(os.path.dirname(os.path.dirname(f)), "migration_lock.toml"))
        for f, n in zip(files, names)
    ):
        return PRISMA, "migrations/<name>/migration.sql beside migration_lock.toml"
    if any(os.path.isfile(os.path.join(os.path.dirname(f), "atlas.sum")) for f in files[:20]):
        return ATLAS, "atlas.sum beside the files"
    if any(ALEMBIC.marker and ALEMBIC.marker.search(text) for text in heads.values()):
        return ALEMBIC, f"{ALEMBIC.sign} lines"
    if any(
        n == "structure.sql" and os.path.isdir(os.path.join(os.path.dirname(f), "migrate"))
        for f, n in zip(files, names)
    ):
        return RAILS, "db/structure.sql beside db/migrate"
    package = node_package_using(files[0], "node-pg-migrate")
    if package:  # SQL files without section marks: the runner sends the whole file as the up migration
        return NODE_PG_MIGRATE, f"node-pg-migrate in {os.path.relpath(package)}"
    return None


def _by_layout(files: list[str], names: list[str]) -> tuple[Framework, str] | None:
    """The runners told by their folders and the files beside the SQL (before golang-migrate,
    whose file names sqlx and pop share)."""
    some = files[:20]
    settings = next((g for g in map(gmrc, some) if g), None)
    if settings:
        return GRAPHILE_MIGRATE, f"{os.path.relpath(settings)}"
    if any(drizzle_journal(f) for f in some):
        return DRIZZLE, "meta/_journal.json beside the files"
    synapse = next((f for f in some if synapse_place(f) and _beside_full_schemas(f)), None)
    if synapse:
        return SYNAPSE, f"<store>/delta/<version>/ beside <store>/full_schemas/ ({os.path.relpath(synapse)})"
    if supabase_project(files):
        return SUPABASE, "supabase/migrations/<timestamp>_<name>.sql"
    folders = [f for f, n in zip(files, names) if n == "up.sql" and DIESEL_FOLDER.match(_folder(f))]
    if folders:
        config = hasura_config(folders[0])
        if config:
            return HASURA, f"<version>_<name>/up.sql folders, {os.path.relpath(config)}"
        return DIESEL, "<version>_<name>/up.sql folders"
    pop = pop_named(names)
    if pop:
        return POP, POP_SIGN.format(pop)
    module = go_module_using(files[0], "github.com/gobuffalo/pop")
    if module and any(GOLANG_MIGRATE_NAME.match(n) for n in names):
        return POP, f"github.com/gobuffalo/pop in {os.path.relpath(module)}"
    cargo = next((c for c in (cargo_using_sqlx(f) for f, n in zip(some, names) if SQLX_NAME.match(n)) if c), None)
    if cargo:
        return SQLX, f"<version>_<name>.sql file names, sqlx in {os.path.relpath(cargo)}"
    return None


def _beside_full_schemas(path: str) -> bool:
    store = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(path))))
    return os.path.isdir(os.path.join(store, "full_schemas"))


def _folder(path: str) -> str:
    return os.path.basename(os.path.dirname(os.path.abspath(path)))
