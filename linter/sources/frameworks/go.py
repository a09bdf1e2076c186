"""Runners written in Go that read SQL files by name: gobuffalo pop, the Supabase CLI and the
Hasura CLI."""

from __future__ import annotations

import functools
import os
import re

from schemacite.model.statements import ParseError
from schemacite.sources.files import nearest, side_file
from schemacite.sources.frameworks.base import Framework, Unit, _stem
from schemacite.sources.patterns import Pattern

# ---------------------------------------------------------------- pop (gobuffalo)

# <version>_<name>[.<database>][.autocommit].(up|down).sql: ory's popx runs an `autocommit` file
# outside a transaction
POP_NAME = Pattern(
    r"^(\d+)_([^.]+)(?:\.(?!autocommit\.)([a-z0-9]+))?(?P<autocommit>\.autocommit)?\.(?P<direction>up|down)\.sql$"
)


@functools.lru_cache(maxsize=4096)
def _pop_name(name: str) -> re.Match[str] | None:
    """POP_NAME's match of a file's name: a run asks it of each file several times (detection,
    order, what is left out, what deploys)."""
    return POP_NAME.match(name)


# pop's dialect names (dialect_*.go Name()) for the dialects schemacite lints
POP_DIALECT = {"postgres": "postgres", "mysql": "mysql", "mariadb": "mysql"}


class Pop(Framework):
    """`<version>_<name>.up.sql` runs on every database, `<version>_<name>.<dialect>.up.sql` only
    on that one (postgres, mysql, sqlite3, cockroach); `.down.sql` never. Versions compare as
    text; for one version the dialect's file replaces the shared one. Each migration runs in
    one transaction, but with ory's popx a `.autocommit.` one (`<version>_<name>.postgres.autocommit.up.sql`)
    runs outside any."""

    def deployed(self, path: str) -> bool:
        m = _pop_name(os.path.basename(path))
        return bool(m) and m.group("direction") == "up"

    def skipped(self, files: list[str], dialect: str) -> dict[str, str]:
        database = POP_DIALECT.get(dialect)
        named = {f: m for f in files if (m := _pop_name(os.path.basename(f)))}
        # a version with a file for this database runs that file and records the version, so
        # the shared file of the same version is never run (pop's SortAndFilter)
        own = {
            (os.path.dirname(os.path.abspath(f)), m.group(1), m.group("direction"))
            for f, m in named.items()
            if m.group(3) == database
        }
        why = {}
        for f, m in named.items():
            if m.group(3) and m.group(3) != database:
                why[f] = "pop runs a <name>.<database>.up.sql file only on that database"
            elif not m.group(3) and (os.path.dirname(os.path.abspath(f)), m.group(1), m.group("direction")) in own:
                why[f] = f"pop runs the {database} file of the same version instead of a shared one"
        return why

    def prepare(self, path: str, text: str) -> str:
        """pop renders each SQL migration as a Go template (`{{ index .Options "Namespace" }}.users`):
        each action becomes text of its length, lines and columns kept. A value before a dot (a
        schema, quoted or not) is blanked with its dot, so `users` is read as the one table it is;
        another value becomes a name; a control action (`{{ if ... }}`, `{{ end }}`) is blanked."""
        return go_template_blanked(text)

    def unread(self, path: str, text: str, errors: list[ParseError]) -> list[ParseError]:
        """Statements the template's actions leave unreadable: the file named once."""
        located = [e for e in errors if e.line]
        if "{{" not in text or not located:
            return errors
        first = located[0]
        said = f"{len(located)} statement(s) not read, the first: {first.message}"
        note = f"Go template placeholders are not expanded ({said})"
        return [e for e in errors if not e.line] + [ParseError(path, first.line, note)]

    def order(self, files: list[str]) -> list[str]:
        def key(f: str) -> tuple:
            m = _pop_name(os.path.basename(f))
            return (0, m.group(1), m.group(3) is None, f) if m else (1, "", False, f)

        return sorted(files, key=key)

    def units(self, path: str, text: str) -> list[Unit]:
        if not self.deployed(path):
            return [Unit(_stem(path), deploy=False)]
        m = _pop_name(os.path.basename(path))
        if m and m.group("autocommit"):
            return [
                Unit(_stem(path), transaction="script", why="popx runs an .autocommit. migration outside a transaction")
            ]
        return [Unit(_stem(path), transaction="unit", why=self.why)]


# a Go template action: `{{ ... }}` (`{{-`, `-}}` trim the spaces around it), quoted or not, with
# the dot after it when it qualifies a name
_GO_ACTION = Pattern(r'(?P<quote>"?)\{\{-?(?P<inner>[^\n]*?)-?\}\}(?P=quote)(?P<dot>\.)?')
_GO_CONTROL = Pattern(r"\s*(?:/\*|(?:if|else|end|range|with|define|block|template|break|continue)\b)")


def go_template_blanked(text: str) -> str:
    if "{{" not in text:
        return text

    def fill(m: re.Match[str]) -> str:
        whole = m.group(0)
        if m.group("dot") or _GO_CONTROL.match(m.group("inner")):
            return " " * len(whole)
        quote = m.group("quote")
        inside = len(whole) - 2 * len(quote)
        return quote + "p" + "_" * (inside - 1) + quote

    return _GO_ACTION.sub(fill, text)


POP_DATABASES = ("postgres", "mysql", "sqlite3", "cockroach")


def is_pop_name(name: str) -> bool:
    """Whether only pop gives a file this name (`<version>_<name>.<database>.up.sql`)."""
    return bool((m := _pop_name(name)) and m.group(3) in POP_DATABASES)


def pop_named(names: list[str]) -> str | None:
    """A file name that only pop gives, if any."""
    return next((n for n in names if is_pop_name(n)), None)


# ---------------------------------------------------------------- Supabase CLI

SUPABASE_NAME = Pattern(r"^([0-9]+)_(.*)\.sql$")
_SUPABASE_OLD_INIT = Pattern(r"^([0-9]{14})_init\.sql$")


class Supabase(Framework):
    """`supabase/migrations/<timestamp>_<name>.sql` runs, in the order of the names; any other
    file there (`local_*.sql`, notes) and the seeds never run on deploy. The CLI sends a
    migration's statements as one batch, which PostgreSQL runs in one transaction; there is no
    way to leave it out."""

    def deployed(self, path: str) -> bool:
        base = os.path.basename(path)
        old = _SUPABASE_OLD_INIT.match(base)  # pre-2021-12-09 `_init.sql`: skipped by the CLI
        return (
            bool(SUPABASE_NAME.match(base))
            and _supabase_folder(path)
            and not (old and int(old.group(1)) < 20211209000000)
        )

    def order(self, files: list[str]) -> list[str]:
        return sorted(files, key=lambda f: (not self.deployed(f), os.path.basename(f)))

    def units(self, path: str, text: str) -> list[Unit]:
        if not self.deployed(path):
            return [Unit(_stem(path), deploy=False)]
        return [Unit(_stem(path), transaction="unit", why=self.why)]


def _supabase_folder(path: str) -> bool:
    parts = os.path.abspath(path).replace("\\", "/").split("/")
    return parts[-3:-1] == ["supabase", "migrations"]


def supabase_project(files: list[str]) -> str | None:
    """A migration under supabase/migrations/, or beside supabase/config.toml."""
    for f in files:
        if _supabase_folder(f):
            return f
    return None


# ---------------------------------------------------------------- Hasura CLI

_HASURA_NAME = Pattern(r"^(\d+)_(.*)\.(up|down)\.sql$")


def _hasura_name(path: str) -> re.Match[str] | None:
    """A migration's name as the CLI parses it: `<version>_<name>/up.sql` is read as
    `<version>_<name>.up.sql`, the older flat file name."""
    base, folder = os.path.basename(path), os.path.basename(os.path.dirname(os.path.abspath(path)))
    return _HASURA_NAME.match(f"{folder}.{base}" if base in ("up.sql", "down.sql") else base)


class Hasura(Framework):
    """`migrations/<database>/<version>_<name>/up.sql` (or the older `<version>_<name>.up.sql`)
    runs in the order of the versions (as numbers); `down.sql` never does. Each migration is sent
    as a `run_sql` request, which the Hasura server runs in one transaction; there is no way to
    leave it out."""

    def deployed(self, path: str) -> bool:
        m = _hasura_name(path)
        return bool(m) and m.group(3) == "up"

    def order(self, files: list[str]) -> list[str]:
        def key(f: str) -> tuple:
            m = _hasura_name(f)
            return (0, int(m.group(1)), f) if m else (1, 0, f)

        return sorted(files, key=key)

    def units(self, path: str, text: str) -> list[Unit]:
        m = _hasura_name(path)
        name = f"{m.group(1)}_{m.group(2)}" if m else _stem(path)
        return [Unit(name, deploy=self.deployed(path), transaction="unit", why=self.why)]


def hasura_config(path: str) -> str | None:
    """The Hasura project's config.yaml above a migration (it names the metadata folder or the
    endpoint)."""
    found = nearest(path, "config.yaml", levels=4)
    text = side_file(found) if found else None
    return found if text and re.search(r"^(metadata_directory|endpoint)\s*:", text, re.M) else None


POP = Pop(
    "pop",
    "pop (gobuffalo)",
    "https://github.com/gobuffalo/pop/blob/main/migrator.go",
    "unit",
    "pop runs each migration in one transaction",
)
SUPABASE = Supabase(
    "supabase",
    "Supabase CLI",
    "https://github.com/supabase/cli/blob/develop/pkg/migration/file.go",
    "unit",
    "the Supabase CLI sends each migration as one batch, which PostgreSQL runs in one transaction",
)
HASURA = Hasura(
    "hasura",
    "Hasura CLI",
    "https://github.com/hasura/graphql-engine/blob/master/cli/migrate/source/file/file.go",
    "unit",
    "Hasura runs each migration's run_sql in one transaction",
)
