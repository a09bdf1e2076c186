"""`python manage.py schemacite [APP_LABEL [MIGRATION_NAME]]`: schemacite's findings for the SQL
Django would run for the project's migrations, each finding at the migration's operation."""

from __future__ import annotations

import importlib
import io
import os
import sys
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connections
from django.db.migrations.loader import MigrationLoader

from schemacite.django.collect import Collected, MigrationRefused, collect, forwards_plan
from schemacite.errors import UsageError
from schemacite.lint.config import find_config
from schemacite.lint.project import Project
from schemacite.lint.relocate import relocated
from schemacite.model.dialects import nearest_target
from schemacite.model.results import LintResult
from schemacite.sources.git import GitError, changed_since


class Command(BaseCommand):
    help = (
        "Lint the SQL Django would run for the migrations (default: those changed since --since, else all), "
        "every earlier migration replayed as history. Writes nothing to any database."
    )

    def add_arguments(self, parser):
        parser.add_argument("app_label", nargs="?", help="only this app's migrations")
        parser.add_argument("migration_name", nargs="?", help="only this migration (a prefix of its name)")
        parser.add_argument("--since", metavar="REV", help="only migrations whose file git sees changed since REV")
        parser.add_argument("--database", default="default", help="the connection whose SQL is linted")
        parser.add_argument(
            "--output-format", "--format", dest="format", default="full", help="full, concise, json, sarif, ..."
        )
        parser.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE")
        parser.add_argument("--select", action="append", default=[], metavar="RULES", help="only these rules")
        parser.add_argument("--ignore", action="append", default=[], dest="disable", metavar="RULES", help="not these")
        parser.add_argument("--fail-on", choices=("info", "warning", "error"), help="lowest severity that fails")
        parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
        parser.add_argument("--config", metavar="FILE", help="pyproject.toml or .schemacite.toml to read")
        parser.add_argument("--no-plugins", action="store_true", help="do not load third-party rule packs")

    def handle(self, *args, **options):
        connection = connections[options["database"]]
        _answers(connection, options["database"])
        loader = MigrationLoader(connection, ignore_no_migrations=True)
        plan = forwards_plan(loader)
        code = self.lint(connection, loader, plan, self._chosen(plan, loader, options), options)
        if code and not (options["exit_zero"] and code == 1):
            sys.exit(code)

    def advise(self, files: list[str], database: str = "default") -> int:
        """Lint the migrations in `files` (those makemigrations just wrote), in the full format."""
        importlib.invalidate_caches()  # the new files are importable now
        connection = connections[database]
        _answers(connection, database)
        loader = MigrationLoader(connection, ignore_no_migrations=True)
        plan = forwards_plan(loader)
        wanted = {os.path.abspath(f) for f in files}
        chosen = {f"{a}.{n}" for a, n in plan if _source(loader, (a, n)) in wanted}
        parser = self.create_parser("manage.py", "schemacite")
        options = vars(parser.parse_args(["--database", database]))
        return self.lint(connection, loader, plan, chosen, options)

    def lint(self, connection, loader: MigrationLoader, plan, chosen: set[str], options) -> int:
        """Lint the `chosen` migrations after the ones before them, report, and return the exit code."""
        try:
            collected = collect(connection, loader, plan, connection.features.can_rollback_ddl)
        except MigrationRefused as e:
            raise CommandError(str(e), returncode=2) from None
        with tempfile.TemporaryDirectory(prefix="schemacite-django-") as folder:
            files = self._written(collected, folder)
            last = max((n for n, c in enumerate(collected) if c.key in chosen), default=-1)
            linted = [files[n] for n in range(last + 1)]
            left_out = [os.path.basename(files[n]) for n in range(last + 1) if collected[n].key not in chosen]
            result, project = self._lint(linted, left_out, connection, options)
        result = _pointed(result, dict(zip(files, collected)))
        # the SQL files are this command's own: their names say nothing to the user
        result.notes = [n for n in result.notes if folder not in n]
        if left_out:
            result.notes.append(f"{len(left_out)} earlier migration(s) replayed as history, not linted")
        result.notes += [
            f"{os.path.relpath(c.source)}:{line}: {what}: work schemacite cannot see (not SQL)"
            for c in collected
            if c.key in chosen
            for line, what in c.unseen
        ]
        if not chosen:
            result.notes.append("no migration chosen: nothing to lint")
        self._report(project, result, options)
        return result.exit_code(project.config.fail_on)

    def _chosen(self, plan, loader: MigrationLoader, options) -> set[str]:
        app, name, since = options["app_label"], options["migration_name"], options["since"]
        keys = {f"{a}.{n}": (a, n) for a, n in plan}
        if app and app not in {a for a, _ in plan}:
            raise CommandError(f"app {app!r} has no migrations", returncode=2)
        if name:
            try:
                migration = loader.get_migration_by_prefix(app, name)
            except (KeyError, ValueError) as e:
                raise CommandError(str(e), returncode=2) from None
            return {f"{migration.app_label}.{migration.name}"}
        chosen = {k for k, (a, _) in keys.items() if not app or a == app}
        if since:
            try:
                changed, _ = changed_since(since)  # as `schemacite lint --since` splits a change
            except GitError as e:
                raise CommandError(f"--since {since}: git could not say what changed ({e})", returncode=2) from None
            chosen = {k for k in chosen if os.path.realpath(_source(loader, keys[k])) in changed}
        return chosen

    @staticmethod
    def _written(collected: list[Collected], folder: str) -> list[str]:
        """One SQL file a migration, named so that files sort in the order `migrate` applies them."""
        paths = []
        for n, c in enumerate(collected, start=1):
            path = os.path.join(folder, f"{n:05d}_{c.app}_{c.name}.sql")
            with open(path, "w", encoding="utf-8") as f:
                f.write(c.sql)
            paths.append(path)
        return paths

    def _lint(self, paths: list[str], left_out: list[str], connection, options) -> tuple[LintResult, Project]:
        dialect, target = _server(connection)
        overrides = {
            "dialect": dialect,
            "target": target,
            "framework": "django",
            "select": [r for s in options["select"] for r in s.split(",") if r],
            "disable": [r for s in options["disable"] for r in s.split(",") if r],
            "fail_on": options["fail_on"],
            "exclude": left_out,  # replayed in their place, not reported
        }
        try:
            project = Project.resolve(
                paths,
                # the project's config, found from where manage.py runs (the SQL files are in a temporary folder)
                config_file=options["config"] or _found(find_config(Path.cwd())),
                named_by="--config",
                overrides=overrides,
                plugins=not options["no_plugins"],
                output=options["format"],
                files=bool(paths),  # no migration chosen: no files to look for, not the current folder
            )
            project.linter  # noqa: B018 (built for its checks: the rules' settings)
        except (ValueError, UsageError) as e:
            raise CommandError(str(e), returncode=2) from None
        project.dialect_why = f"the {options['database']} connection's {connection.vendor} server"
        if target is not None:
            project.target_why = f"the {options['database']} connection's server version"
        if not project.paths:
            return LintResult(), project
        return project.lint(), project

    def _report(self, project: Project, result: LintResult, options) -> None:
        name = options["format"]
        reporter = project.reporter(name, **({"color": False} if name in ("full", "text") else {}))
        out = io.StringIO()
        reporter.render(result, out)
        if options["output"] and options["output"] != "-":
            with open(options["output"], "w", encoding="utf-8") as f:
                f.write(out.getvalue())
            summary = project.reporter("full", color=False)
            summary.summary_only = True
            out = io.StringIO()
            summary.render(result, out)
        self.stdout.write(out.getvalue(), ending="")
        if name not in ("json", "sarif", "gitlab", "junit"):  # those carry the notes; the rest leave them
            for note in result.notes:
                self.stderr.write(f"schemacite: note: {note}")


def _answers(connection, alias: str) -> None:
    """Refuse, said plainly, a connection whose server does not answer: Django's schema editor asks
    it (its version, its catalog) to write a migration's SQL, as `sqlmigrate` does. Nothing is
    written to it."""
    try:
        connection.ensure_connection()
    except Exception as e:
        raise CommandError(
            f"the {alias} connection's server does not answer ({str(e).strip().splitlines()[0]}): Django writes "
            "a migration's SQL with it, as sqlmigrate does (nothing is written to it)",
            returncode=2,
        ) from None


def _server(connection) -> tuple[str, str | None]:
    """(dialect, target) of the connection's server; the target from its version when it answers."""
    vendor = connection.vendor
    if vendor == "postgresql":
        dialect = "postgres"
    elif vendor == "mysql":
        dialect = "mariadb" if getattr(connection, "mysql_is_mariadb", False) else "mysql"
    else:
        raise CommandError(f"schemacite lints MySQL, MariaDB and PostgreSQL, not {vendor}", returncode=2)
    try:
        if dialect == "postgres":
            number = connection.pg_version  # 150004
            version: tuple[int, ...] = (number // 10000, number % 10000 // 100)
        else:
            version = tuple(connection.mysql_version)
    except Exception:  # no server to ask: the config's target, else the dialect's default
        return dialect, None
    return dialect, str(nearest_target(dialect, version))


def _found(path: Path | None) -> str | None:
    return str(path) if path is not None else None


def _source(loader: MigrationLoader, key: tuple[str, str]) -> str:
    migration = loader.graph.nodes[key]
    return os.path.abspath(sys.modules[type(migration).__module__].__file__ or "")


def _pointed(result: LintResult, by_file: dict[str, Collected]) -> LintResult:
    """The result with each location in a written SQL file moved to the migration's .py file, at
    the line of the operation that wrote the statement."""

    def place(file: str, line: int) -> tuple[str, int] | None:
        c = by_file.get(file)
        return None if c is None else (os.path.relpath(c.source), c.source_line(line))

    relocated(result, place)
    result.files = [os.path.relpath(by_file[p].source) if p in by_file else p for p in result.files]
    return result
