"""The Django app: `python manage.py schemacite` in a real Django project, on the suite's own
PostgreSQL and MariaDB servers. The project's command runs in its own process, as a user runs it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SETTINGS = """
import os
SECRET_KEY = "test"
INSTALLED_APPS = ["schemacite.django", "shop"]
DATABASES = {"default": {
    "ENGINE": os.environ["SHOP_ENGINE"], "NAME": os.environ["SHOP_DB"], "USER": os.environ["SHOP_USER"],
    "HOST": "127.0.0.1", "PORT": os.environ["SHOP_PORT"],
}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
"""

MIGRATIONS = {
    "0001_initial.py": """
        from django.db import migrations, models


        class Migration(migrations.Migration):
            initial = True
            operations = [
                migrations.CreateModel(
                    name="Order",
                    fields=[
                        ("id", models.BigAutoField(primary_key=True)),
                        ("total", models.IntegerField()),
                    ],
                ),
                migrations.AddIndex(
                    model_name="order", index=models.Index(fields=["total"], name="order_total_new")
                ),
            ]
    """,
    "0002_index_and_backfill.py": """
        from django.db import migrations, models


        def backfill(apps, schema_editor):
            pass


        class Migration(migrations.Migration):
            dependencies = [("shop", "0001_initial")]
            operations = [
                migrations.AddField("order", "note", models.CharField(max_length=40, null=True)),
                migrations.RunPython(backfill, migrations.RunPython.noop),
                migrations.AlterField("order", "total", models.BigIntegerField()),
                migrations.AddIndex(
                    model_name="order", index=models.Index(fields=["note"], name="order_note")
                ),
            ]
    """,
}


@pytest.fixture(scope="session")
def django_paths(tmp_path_factory) -> dict[str, str]:
    """Django by release: 5.2, the one installed, and 4.2 LTS, installed by pip into a folder of its
    own that goes first on the project's PYTHONPATH (the same Python, the same schemacite)."""
    lts = tmp_path_factory.mktemp("django-4.2")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(lts), "Django>=4.2,<4.3"],
        check=True,
        capture_output=True,
    )
    return {"5.2": "", "4.2": str(lts)}


ENGINES = {
    "postgres": ("pg_server", "django.db.backends.postgresql", "postgres"),
    "mariadb": ("mariadb_server", "django.db.backends.mysql", "root"),
}


MANAGE = (
    "import sys\nfrom django.core.management import execute_from_command_line\nexecute_from_command_line(sys.argv)\n"
)


def _django_project(
    folder: Path,
    engine: str,
    user: str,
    db: str,
    port: int | str,
    shop: dict[str, str] | None = MIGRATIONS,
    settings: str = SETTINGS,
    django_path: str = "",
) -> dict[str, str]:
    """Write a Django project in `folder` (its app `shop` with the migrations `shop`, unless None)
    and return the environment its manage.py runs in, on that database."""
    if shop is not None:
        (folder / "shop" / "migrations").mkdir(parents=True)
        for name in ("shop/__init__.py", "shop/models.py", "shop/migrations/__init__.py"):
            (folder / name).write_text("")
        for name, text in shop.items():
            (folder / "shop" / "migrations" / name).write_text(textwrap.dedent(text).lstrip())
    (folder / "settings.py").write_text(settings)
    (folder / "manage.py").write_text(MANAGE)
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "settings",
        "SHOP_ENGINE": engine,
        "SHOP_DB": db,
        "SHOP_USER": user,
        "SHOP_PORT": str(port),
        "PYTHONPATH": os.pathsep.join(p for p in (django_path, str(folder)) if p),
    }


@pytest.fixture(params=list(ENGINES))
def project(request, tmp_path):
    """A Django project whose app `shop` has two migrations, its database on one of the suite's servers."""
    fixture, engine, user = ENGINES[request.param]
    server = request.getfixturevalue(fixture)
    env = _django_project(tmp_path, engine, user, server.create_database("django_shop"), server.port)
    return tmp_path, env, server, request.param


def manage(project, *args: str) -> subprocess.CompletedProcess:
    folder, env, _, _ = project
    return subprocess.run(
        [sys.executable, "manage.py", "schemacite", *args], cwd=folder, env=env, capture_output=True, text=True
    )


def _line(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_findings_point_at_the_operation_in_the_migration_file(project):
    folder, _, server, dialect = project
    run = manage(project, "--format", "json")
    assert run.returncode == 1, run.stderr
    doc = json.loads(run.stdout)
    second = folder / "shop" / "migrations" / "0002_index_and_backfill.py"
    where = "shop/migrations/0002_index_and_backfill.py"
    at = {(f["file"], f["line"], f["code"]) for f in doc["findings"]}
    # int to bigint on a table an earlier migration created: a rewrite (PostgreSQL) or a copy (MariaDB)
    altered = _line(second, "migrations.AlterField(")
    assert {(where, altered, "SC104"), (where, altered, "SC105")} & at, at
    if dialect == "postgres":  # CREATE INDEX blocks writes there; MariaDB builds it in place
        assert (where, _line(second, "migrations.AddIndex("), "SC105") in at
    # nothing in the first migration, which creates the table it indexes
    assert not [f for f in doc["findings"] if "0001_initial" in f["file"]]
    # a message naming another statement's line names its operation's line in the .py file
    ops = {_line(second, f"migrations.{op}(") for op in ("AddField", "RunPython", "AlterField", "AddIndex")}
    named = [int(n) for f in doc["findings"] for n in re.findall(r"\bline (\d+)", f["message"])]
    assert named and set(named) <= ops, (named, ops)
    major = ".".join(map(str, server.version[: 1 if dialect == "postgres" else 2]))
    assert doc["target"]["name"] == f"{dialect}-{major}"
    assert doc["target"]["why"] == "the default connection's server version"
    assert doc["dialect"] == {
        "name": dialect,
        "why": f"the default connection's {'postgresql' if dialect == 'postgres' else 'mysql'} server",
    }
    assert (
        f"{where}:{_line(second, 'migrations.RunPython(')}: RunPython: work schemacite cannot see (not SQL)"
        in doc["notes"]
    )


def test_one_migration_is_linted_after_the_earlier_ones(project):
    folder, _, _, _ = project
    run = manage(project, "shop", "0002", "--format", "concise", "--select", "SC104,SC105")
    assert run.returncode == 1, run.stderr
    lines = [line for line in run.stdout.splitlines() if ": SC" in line]
    second = folder / "shop" / "migrations" / "0002_index_and_backfill.py"
    ops = {_line(second, "migrations.AddIndex("), _line(second, "migrations.AlterField(")}
    assert lines and {int(line.split(":")[1]) for line in lines} <= ops
    assert all(line.startswith("shop/migrations/0002_index_and_backfill.py:") for line in lines)
    run = manage(project, "shop", "0001", "--format", "concise")
    assert run.returncode == 0, run.stdout + run.stderr


def test_nothing_is_written_to_the_database(project):
    _, env, server, dialect = project
    manage(project, "--format", "concise")
    if dialect == "postgres":
        with server.connect("django_shop") as conn:
            count = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()[0]
    else:
        conn = server.connect("django_shop")
        cur = conn.cursor()
        cur.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'django_shop'")
        count = cur.fetchone()[0]
        conn.close()
    assert count == 0  # not even django_migrations


def test_a_wrong_app_or_format_is_a_usage_error(project):
    run = manage(project, "shop", "--format", "xml")
    assert run.returncode == 2 and "unknown output format 'xml'" in run.stderr and "Traceback" not in run.stderr
    run = manage(project, "shop", "--select", "SC999")
    assert run.returncode == 2 and "unknown rule 'SC999'" in run.stderr and "Traceback" not in run.stderr
    run = manage(project, "nosuchapp")
    assert run.returncode == 2 and "app 'nosuchapp' has no migrations" in run.stderr
    assert "Traceback" not in run.stderr


MODELS = """
from django.db import models


class Order(models.Model):
    total = models.BigIntegerField()
    note = models.CharField(max_length=40)  # was null=True: the next migration sets NOT NULL

    class Meta:
        indexes = [models.Index(fields=["total"], name="order_total_new"), models.Index(fields=["note"], name="order_note")]
"""


def test_makemigrations_advises_on_what_it_wrote(project):
    folder, env, _, _ = project
    (folder / "shop" / "models.py").write_text(MODELS)
    run = subprocess.run(
        [sys.executable, "manage.py", "makemigrations", "shop", "--noinput", "--name", "note_required"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    written = folder / "shop" / "migrations" / "0003_note_required.py"
    assert written.is_file()
    assert "shop/migrations/0003_note_required.py" in run.stdout
    note = _line(written, "name='note'") - 2  # the AlterField of note (the one of id comes first)
    flagged = [line for line in run.stdout.splitlines() if line.startswith(f"  {note}:1 warning SC112 ")]
    assert flagged and "NOT NULL" in flagged[0] and "on shop_order fails if a row holds" in run.stdout
    assert "2 earlier migration(s) replayed as history, not linted" in run.stderr
    assert "schemacite-django-" not in run.stdout + run.stderr
    written.unlink()
    run = subprocess.run(
        [sys.executable, "manage.py", "makemigrations", "shop", "--noinput", "--no-schemacite"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and "SC112" not in run.stdout


def test_since_lints_the_migrations_git_sees_changed(project):
    folder, _, _, _ = project
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=folder, check=True)
    subprocess.run([*git, "add", "-A"], cwd=folder, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=folder, check=True)
    run = manage(project, "--since", "HEAD", "--format", "concise")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no migration chosen: nothing to lint" in run.stderr
    second = folder / "shop" / "migrations" / "0002_index_and_backfill.py"
    second.write_text(second.read_text() + "\n")  # changed since HEAD
    run = manage(project, "--since", "HEAD", "--format", "concise")
    assert run.returncode == 1 and "shop/migrations/0002_index_and_backfill.py:" in run.stdout
    assert "0001_initial.py:" not in run.stdout
    run = manage(project, "--since", "no-such-rev")
    assert run.returncode == 2 and "--since no-such-rev: git could not say what changed" in run.stderr


# django-migration-linter's unsafe operations (docs/coverage/django_migration_linter.toml) and
# strong_migrations' that Django can express (docs/coverage/strong_migrations.toml: its JSON column
# is jsonb in Django, a Python default callable is computed once, `force: true` and generated or
# auto-incrementing columns added later have no Django 4.2 operation), each a Django migration
# on a table an earlier migration created: app -> (operations of 0002, the codes
# it must give per dialect; None where the check does not apply there)
BASE = """
        migrations.CreateModel(
            name="Item",
            fields=[
                ("id", models.BigAutoField(primary_key=True)),
                ("name", models.CharField(max_length=100, null=True)),
                ("qty", models.IntegerField(null=True)),
            ],
            options={"indexes": [models.Index(fields=["name"], name="%s_item_name")]},
        ),
"""
UNSAFE = {
    "not_null": (
        'migrations.AddField("item", "region", models.CharField(max_length=10, default="eu")),',
        "SC130",
        "SC130",
    ),
    "drop_column": ('migrations.RemoveField("item", "name"),', "SC114", "SC114"),
    "drop_table": ('migrations.DeleteModel("Item"),', "SC115", "SC115"),
    "rename_column": ('migrations.RenameField("item", "name", "title"),', "SC116", "SC116"),
    "rename_table": ('migrations.AlterModelTable("item", "renamed_items"),', "SC117", "SC117"),
    "alter_column": (
        'migrations.AlterField("item", "name", models.CharField(max_length=20, null=True)),',
        "SC112",
        "SC112",
    ),
    "add_unique": (
        'migrations.AlterField("item", "name", models.CharField(max_length=100, null=True, unique=True)),',
        "SC112",
        "SC112",
    ),
    "create_index": (
        'migrations.AddIndex("item", models.Index(fields=["name", "id"], name="create_index_two")),',
        "SC105",
        None,
    ),
    "create_index_exclusive": (
        'migrations.AddField("item", "kind", models.IntegerField(null=True)),\n'
        '        migrations.AddIndex("item", models.Index(fields=["kind"], name="create_index_kind")),',
        "SC109",
        None,
    ),
    "drop_index": ('migrations.RemoveIndex("item", "drop_index_item_name"),', "SC110", None),
    "reindex": ('migrations.RunSQL("REINDEX TABLE reindex_item;"),', "SC104", None),
    # and strong_migrations', in Django's words: add_check_constraint, change_column_null
    "add_check": (
        'migrations.AddConstraint("item", models.CheckConstraint(check=models.Q(id__gt=0), name="add_check_id")),',
        "SC112",
        "SC112",
    ),
    "set_not_null": ('migrations.AlterField("item", "name", models.CharField(max_length=100)),', "SC112", "SC112"),
    # change_column: a type change rewrites (PostgreSQL) or copies (MariaDB) the table
    "change_column": ('migrations.AlterField("item", "qty", models.BigIntegerField(null=True)),', "SC104", "SC105"),
    # add_reference: the foreign key's index is built on the existing table
    "add_reference": (
        'migrations.AddField("item", "parent", models.ForeignKey("self", null=True, on_delete=models.CASCADE)),',
        "SC105",
        "SC105",
    ),
    # add_unique_constraint
    "add_unique_constraint": (
        'migrations.AddConstraint("item", models.UniqueConstraint(fields=["name", "qty"], name="add_unique_pair")),',
        "SC112",
        "SC112",
    ),
}


def _unsafe_project(
    folder: Path, engine: str, user: str, db: str, port: int, apps: list[str], django_path: str = ""
) -> dict:
    for app in apps:
        ops = UNSAFE[app][0]
        migrations_dir = folder / app / "migrations"
        migrations_dir.mkdir(parents=True)
        (folder / app / "__init__.py").write_text("")
        (migrations_dir / "__init__.py").write_text("")
        head = "from django.db import migrations, models\n\n\nclass Migration(migrations.Migration):\n"
        (migrations_dir / "0001_initial.py").write_text(
            head + "    initial = True\n    operations = [" + BASE % app + "    ]\n"
        )
        (migrations_dir / "0002_change.py").write_text(
            head + f'    dependencies = [("{app}", "0001_initial")]\n    operations = [\n        {ops}\n    ]\n'
        )
    settings = SETTINGS.replace('["schemacite.django", "shop"]', f'["schemacite.django", *{apps!r}]')
    return _django_project(folder, engine, user, db, port, None, settings, django_path)


@pytest.mark.parametrize("release", ["5.2", "4.2"])
@pytest.mark.parametrize("dialect", list(ENGINES))
def test_every_unsafe_operation_of_django_migration_linter_is_flagged(
    request, tmp_path, dialect, release, django_paths
):
    fixture, engine, user = ENGINES[dialect]
    server = request.getfixturevalue(fixture)
    # the checks that apply on this dialect (REINDEX is PostgreSQL's alone)
    apps = [app for app, (_, pg, my) in UNSAFE.items() if (pg if dialect == "postgres" else my)]
    db = server.create_database(f"django_unsafe_{release.replace('.', '_')}")
    env = _unsafe_project(tmp_path, engine, user, db, server.port, apps, django_paths[release])
    version = subprocess.run(
        [sys.executable, "-c", "import django; print(django.get_version())"], env=env, capture_output=True, text=True
    )
    assert version.stdout.startswith(release), version.stdout + version.stderr
    codes = sorted({c for _, pg, my in UNSAFE.values() for c in (pg, my) if c})
    run = subprocess.run(
        [sys.executable, "manage.py", "schemacite", "--format", "json", "--select", ",".join(codes)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1, run.stderr
    found = {
        (f["file"].split("/")[0], f["file"].rsplit("/", 1)[1], f["code"]) for f in json.loads(run.stdout)["findings"]
    }
    missed = []
    for app in apps:
        want = UNSAFE[app][1] if dialect == "postgres" else UNSAFE[app][2]
        if (app, "0002_change.py", want) not in found:
            missed.append((app, want))
    assert not missed, (missed, sorted(found))
    assert not [f for f in found if f[1] == "0001_initial.py"]  # a table the deploy creates is new


def _shop_migration(folder: Path, name: str, body: str) -> Path:
    path = folder / "shop" / "migrations" / name
    path.write_text(textwrap.dedent(body).lstrip())
    return path


def test_django_transactions_and_state_only_operations(request, tmp_path):
    """atomic = False runs CREATE INDEX CONCURRENTLY outside a transaction (nothing to say);
    SeparateDatabaseAndState counts by its database operations; a concurrent index in an atomic
    migration is refused by Django itself, said with the migration's file."""
    server = request.getfixturevalue("pg_server")
    folder = tmp_path
    settings = SETTINGS.replace('"shop"]', '"shop", "django.contrib.postgres"]')
    db = server.create_database("django_semantics")
    env = _django_project(folder, "django.db.backends.postgresql", "postgres", db, server.port, settings=settings)
    concurrent = _shop_migration(
        folder,
        "0003_concurrent.py",
        """
        from django.contrib.postgres.operations import AddIndexConcurrently
        from django.db import migrations, models


        class Migration(migrations.Migration):
            atomic = False
            dependencies = [("shop", "0002_index_and_backfill")]
            operations = [
                AddIndexConcurrently("order", models.Index(fields=["total", "id"], name="order_total_id")),
            ]
        """,
    )
    state_only = _shop_migration(
        folder,
        "0004_state_only.py",
        """
        from django.db import migrations


        class Migration(migrations.Migration):
            dependencies = [("shop", "0003_concurrent")]
            operations = [
                migrations.SeparateDatabaseAndState(
                    state_operations=[migrations.RemoveField("order", "note")], database_operations=[]
                ),
                migrations.SeparateDatabaseAndState(
                    database_operations=[migrations.RunSQL("ALTER TABLE shop_order DROP COLUMN note;")]
                ),
            ]
        """,
    )
    run = subprocess.run(
        [sys.executable, "manage.py", "schemacite", "shop", "--format", "json", "--select", "SC104,SC105,SC106,SC114"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    found = {(f["file"].rsplit("/", 1)[1], f["line"], f["code"]) for f in json.loads(run.stdout)["findings"]}
    assert not [f for f in found if f[0] == concurrent.name]  # outside a transaction, writes go on
    second_op = _line(state_only, "database_operations=[migrations.RunSQL(") - 1
    assert {f for f in found if f[0] == state_only.name} == {(state_only.name, second_op, "SC114")}
    concurrent.write_text(concurrent.read_text().replace("atomic = False", "atomic = True"))
    run = subprocess.run(
        [sys.executable, "manage.py", "schemacite", "shop"], cwd=folder, env=env, capture_output=True, text=True
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "shop/migrations/0003_concurrent.py: Django cannot write this migration's SQL:" in run.stderr


def test_a_server_that_does_not_answer_is_a_usage_error(tmp_path):
    """Django's schema editor needs its server to write a migration's SQL (as sqlmigrate does):
    without one, a plain usage error, not a traceback."""
    settings = SETTINGS.replace('"shop"]', "]")
    # nothing listens on port 1
    env = _django_project(tmp_path, "django.db.backends.postgresql", "postgres", "nowhere", 1, None, settings)
    run = subprocess.run(
        [sys.executable, "manage.py", "schemacite"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert "the default connection's server does not answer (" in run.stderr


FK_MIGRATIONS = {
    "0001_initial.py": """
        from django.db import migrations, models


        class Migration(migrations.Migration):
            initial = True
            operations = [
                migrations.CreateModel("Owner", fields=[("id", models.BigAutoField(primary_key=True))]),
                migrations.CreateModel(
                    "Item",
                    fields=[
                        ("id", models.BigAutoField(primary_key=True)),
                        ("owner", models.ForeignKey("shop.Owner", null=True, on_delete=models.CASCADE)),
                    ],
                ),
            ]
    """,
    "0002_owner_required.py": """
        from django.db import migrations, models


        class Migration(migrations.Migration):
            dependencies = [("shop", "0001_initial")]
            operations = [
                migrations.AlterField("item", "owner", models.ForeignKey("shop.Owner", on_delete=models.CASCADE)),
            ]
    """,
}


def test_a_migration_that_reads_the_catalog_needs_a_migrated_database(tmp_path, mariadb_server):
    """On MySQL and MariaDB, Django reads a foreign key's name from the catalog to alter its column
    (as sqlmigrate does): on an empty database it cannot, and says what to do; on a migrated one
    (the user's development database) the migration is linted."""
    db = mariadb_server.create_database("django_catalog")
    env = _django_project(tmp_path, "django.db.backends.mysql", "root", db, mariadb_server.port, FK_MIGRATIONS)

    def manage(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=tmp_path, env=env, capture_output=True, text=True
        )

    run = manage("schemacite", "--format", "concise")
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert "shop/migrations/0002_owner_required.py: Django cannot write this migration's SQL:" in run.stderr
    assert "a database migrated at least up to the migration before it (manage.py migrate)" in run.stderr
    assert manage("migrate", "-v", "0").returncode == 0  # the user's own step, on their own database
    run = manage("schemacite", "--format", "concise", "--select", "SC112")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "shop/migrations/0002_owner_required.py:" in run.stdout and "SC112" in run.stdout
