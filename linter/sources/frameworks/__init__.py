"""Migration frameworks: which one a project uses, and what it runs (see base.py).

`detect(files)` reads the files' names, their folders and the first lines of each, and names
the framework with the evidence it saw. `framework = "..."` in the config or `--framework`
overrides it; `plain` is SQL files run as they are.
"""

from __future__ import annotations

import os

from schemacite.sources.files import head, nearest, side_file
from schemacite.sources.frameworks.annotated import DBMATE, GOOSE, LIQUIBASE
from schemacite.sources.frameworks.base import Framework, Unit, blank_placeholders
from schemacite.sources.frameworks.generated import ALEMBIC, DJANGO, RAILS
from schemacite.sources.frameworks.named import (
    ATLAS,
    FLYWAY,
    FLYWAY_NAME,
    GOLANG_MIGRATE,
    GOLANG_MIGRATE_NAME,
    MORPH,
    PRISMA,
    SQITCH,
    prisma_provider,
    sqitch_plan,
)

PLAIN = Framework("plain", "plain SQL files", "", "script", "")

FRAMEWORKS: dict[str, Framework] = {
    f.name: f
    for f in (
        GOOSE,
        DBMATE,
        LIQUIBASE,
        SQITCH,
        FLYWAY,
        GOLANG_MIGRATE,
        MORPH,
        PRISMA,
        ATLAS,
        DJANGO,
        ALEMBIC,
        RAILS,
        PLAIN,
    )
}

__all__ = ["FRAMEWORKS", "Framework", "PLAIN", "Unit", "blank_placeholders", "detect", "prisma_provider"]

HEAD = 4096  # bytes of each file read to look for markers
FILES = 2000  # files read at most


def go_module_using(path: str, module: str) -> str | None:
    """The go.mod of the Go module holding `path`, when it requires `module`."""
    found = nearest(path, "go.mod")
    text = side_file(found) if found else None
    return found if text and (f"{module} " in text or f"{module}\n" in text) else None


def detect(files: list[str]) -> tuple[Framework, str]:
    """(framework, what showed it) for a project's files; PLAIN when nothing does."""
    if not files:
        return PLAIN, ""
    names = [os.path.basename(f) for f in files]
    heads = {f: head(f, HEAD) for f in files[:FILES]}
    for framework in (LIQUIBASE, GOOSE, DBMATE, MORPH):
        hit = next((f for f, text in heads.items() if framework.marker and framework.marker.search(text)), None)
        if hit:
            return framework, f"{framework.sign} in {os.path.basename(hit)}"
    plan = next((p for p in (sqitch_plan(f) for f in files[:20]) if p), None)
    if plan:
        return SQITCH, f"{os.path.relpath(plan)}"
    if any(GOLANG_MIGRATE_NAME.match(n) for n in names):
        module = go_module_using(files[0], "github.com/mattermost/morph")
        if module:  # the same file names; morph wraps each file in a transaction
            return MORPH, f"N_title.up.sql file names, github.com/mattermost/morph in {os.path.relpath(module)}"
        return GOLANG_MIGRATE, "N_title.up.sql / .down.sql file names"
    if sum(1 for n in names if FLYWAY_NAME.match(n)) >= max(1, len(names) // 2):
        return FLYWAY, "V<version>__<description>.sql file names"
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
    return PLAIN, ""
