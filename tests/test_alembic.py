"""`schemacite alembic`: an SQLAlchemy 2 and Alembic project built here, its revisions printed by
Alembic's own offline mode and linted, each finding at the `op.` call of its revision."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ENV = """
from alembic import context

config = context.config
context.configure(
    url=config.get_main_option("sqlalchemy.url"), literal_binds=True, transaction_per_migration=True
)
with context.begin_transaction():
    context.run_migrations()
"""

REVISIONS = {
    "0001_orders.py": '''
        """orders"""
        import sqlalchemy as sa
        from alembic import op

        revision = "0001"
        down_revision = None


        def upgrade():
            op.create_table(
                "orders",
                sa.Column("id", sa.BigInteger, primary_key=True),
                sa.Column("total", sa.Integer, nullable=False),
            )
            op.create_index("orders_total", "orders", ["total"])
    ''',
    "0002_note.py": '''
        """note"""
        import sqlalchemy as sa
        from alembic import op

        revision = "0002"
        down_revision = "0001"


        def upgrade():
            op.add_column("orders", sa.Column("note", sa.String(40), nullable=True))
            op.alter_column("orders", "total", type_=sa.BigInteger, existing_type=sa.Integer)
            op.create_index("orders_note", "orders", ["note"])
    ''',
}

URLS = {"postgres": "postgresql://postgres@127.0.0.1/shop", "mariadb": "mariadb://root@127.0.0.1/shop"}


def _alembic_project(folder: Path, dialect: str, ini_extra: str = "") -> None:
    """Write an Alembic project in `folder`: env.py, the two revisions, alembic.ini for `dialect`."""
    (folder / "migrations" / "versions").mkdir(parents=True)
    (folder / "migrations" / "env.py").write_text(ENV)
    for name, text in REVISIONS.items():
        (folder / "migrations" / "versions" / name).write_text(textwrap.dedent(text).lstrip())
    (folder / "alembic.ini").write_text(
        f"[alembic]\nscript_location = migrations\nsqlalchemy.url = {URLS[dialect]}\n{ini_extra}"
    )


SERVERS = {"postgres": "pg_server", "mariadb": "mariadb_server"}


@pytest.fixture(params=list(URLS))
def project(request, tmp_path):
    """An Alembic project for one dialect; offline mode connects to nothing, so the target is the
    version of the suite's server of that dialect, given as --target as a user gives theirs."""
    server = request.getfixturevalue(SERVERS[request.param])
    version = ".".join(map(str, server.version[: 1 if request.param == "postgres" else 2]))
    _alembic_project(tmp_path, request.param)
    return tmp_path, request.param, f"{request.param}-{version}"


def run(folder: Path, *args: str, target: str | None = None) -> subprocess.CompletedProcess:
    extra = ["--target", target] if target else []
    return subprocess.run(
        [sys.executable, "-m", "schemacite.cli", "alembic", *extra, *args], cwd=folder, capture_output=True, text=True
    )


def _line(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_findings_point_at_the_op_call_of_the_revision(project):
    folder, dialect, target = project
    done = run(folder, "--format", "json", target=target)
    assert done.returncode == 1, done.stderr
    doc = json.loads(done.stdout)
    second = folder / "migrations" / "versions" / "0002_note.py"
    where = "migrations/versions/0002_note.py"
    at = {(f["file"], f["line"], f["code"]) for f in doc["findings"]}
    altered = _line(second, "op.alter_column(")
    # int to bigint of a table the first revision created: a rewrite (PostgreSQL) or a copy (MariaDB)
    assert {(where, altered, "SC104"), (where, altered, "SC105")} & at, at
    if dialect == "postgres":  # CREATE INDEX blocks writes there; MariaDB builds it in place
        assert (where, _line(second, 'op.create_index("orders_note"'), "SC105") in at
    assert not [f for f in doc["findings"] if "0001_orders" in f["file"]]  # its table is new
    # a message naming another statement's line names its op. call's line in the revision
    ops = {_line(second, call) for call in ("op.add_column(", "op.alter_column(", 'op.create_index("orders_note"')}
    named = [int(n) for f in doc["findings"] for n in re.findall(r"\bline (\d+)", f["message"])]
    assert named and set(named) <= ops, (named, ops)
    assert doc["dialect"]["name"] == dialect and doc["framework"]["name"] == "alembic"
    assert doc["target"]["name"] == target


def test_after_a_revision_only_the_later_ones_are_reported(project):
    folder, _, target = project
    done = run(folder, "--after", "0001", "--format", "concise", target=target)
    assert done.returncode == 1 and "migrations/versions/0002_note.py:" in done.stdout
    assert "0001_orders.py" not in done.stdout
    done = run(folder, "--after", "0002", "--format", "concise")
    assert done.returncode == 2 and "--after 0002: no revision of the upgrade follows it" in done.stderr


def test_the_post_write_hook_reports_one_revision(project):
    folder, _, target = project
    done = run(folder, "--only", "migrations/versions/0001_orders.py", "--format", "concise", target=target)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_project_alembic_cannot_read_is_a_usage_error(tmp_path):
    (tmp_path / "alembic.ini").write_text("[alembic]\nscript_location = no_such_package:migrations\n")
    done = run(tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("schemacite: error: alembic.ini: Alembic could not read the project:")


def test_a_missing_config_is_a_usage_error(tmp_path):
    done = run(tmp_path)
    assert done.returncode == 2 and "alembic.ini: no such Alembic config" in done.stderr


def test_a_revision_that_needs_a_database_is_a_located_error(project):
    folder, _, target = project
    (folder / "migrations" / "versions" / "0003_online.py").write_text(
        textwrap.dedent("""
            from alembic import op

            revision = "0003"
            down_revision = "0002"


            def upgrade():
                op.get_bind().close()  # offline mode has no connection to close
        """).lstrip()
    )
    done = run(folder, target=target)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(
        "schemacite: error: migrations/versions/0003_online.py:8: alembic upgrade --sql failed:"
    )
    assert "AttributeError" in done.stderr and "Traceback" not in done.stderr  # what it raised, by name


def test_from_a_revision_prints_only_the_range(project):
    """`--from REV`: Alembic prints REV:head alone (revisions before it may need a database); the
    tables they created are unknown to the replay, as the findings say."""
    folder, _, target = project
    done = run(folder, "--from", "0001", "--format", "concise", target=target)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "migrations/versions/0002_note.py:" in done.stdout and "0001_orders.py" not in done.stdout
    assert "not seen in the history" in done.stdout
    done = run(folder, "--to", "0001", "--format", "concise", target=target)
    assert done.returncode == 0 and "0002_note.py" not in done.stdout, done.stdout + done.stderr


def test_a_batch_operation_is_found_in_its_batch(project):
    """`batch_op.` calls are recorded too: a statement a batch writes is placed in the batch, at
    its last call (the batch writes its SQL when it ends, all at once)."""
    folder, _, target = project
    third = folder / "migrations" / "versions" / "0003_batch.py"
    third.write_text(
        textwrap.dedent("""
            import sqlalchemy as sa
            from alembic import op

            revision = "0003"
            down_revision = "0002"


            def upgrade():
                with op.batch_alter_table("orders") as batch_op:
                    batch_op.alter_column("note", type_=sa.String(10), existing_type=sa.String(40))
        """).lstrip()
    )
    done = run(folder, "--after", "0002", "--format", "json", "--select", "SC112", target=target)
    assert done.returncode == 1, done.stdout + done.stderr
    at = {(f["file"], f["line"]) for f in json.loads(done.stdout)["findings"]}
    assert at == {("migrations/versions/0003_batch.py", _line(third, "batch_op.alter_column("))}


def test_since_takes_a_revision_or_a_range(project):
    folder, _, target = project
    after = run(folder, "--since", "0001", "--format", "concise", target=target)
    ranged = run(folder, "--since", "0001:0002", "--format", "concise", target=target)
    for done in (after, ranged):
        assert done.returncode == 1 and "0002_note.py:" in done.stdout and "0001_orders.py" not in done.stdout


def test_an_autocommit_block_runs_outside_the_revision_transaction(tmp_path, pg_server):
    """`op.get_context().autocommit_block()`: Alembic prints COMMIT before it and BEGIN after, so a
    CREATE INDEX CONCURRENTLY inside it is not in a transaction (no SC106); outside it, it is."""
    _alembic_project(tmp_path, "postgres")
    third = tmp_path / "migrations" / "versions" / "0003_concurrently.py"
    third.write_text(
        textwrap.dedent("""
            from alembic import op

            revision = "0003"
            down_revision = "0002"


            def upgrade():
                with op.get_context().autocommit_block():
                    op.create_index("orders_total_id", "orders", ["total", "id"], postgresql_concurrently=True)
                op.create_index("orders_id_total", "orders", ["id", "total"], postgresql_concurrently=True)
        """).lstrip()
    )
    target = f"postgres-{pg_server.version[0]}"
    done = run(tmp_path, "--after", "0002", "--format", "json", "--select", "SC106", target=target)
    assert done.returncode == 1, done.stdout + done.stderr
    at = {(f["file"], f["line"]) for f in json.loads(done.stdout)["findings"]}
    assert at == {("migrations/versions/0003_concurrently.py", _line(third, '"orders_id_total"'))}


MAKO = '''"""${message}"""
import sqlalchemy as sa
from alembic import op

revision = ${repr(up_revision)}
down_revision = ${repr(down_revision)}


def upgrade():
    op.alter_column("orders", "note", type_=sa.String(10), existing_type=sa.String(40))
'''


def test_the_post_write_hook_prints_a_new_revision_s_findings(tmp_path):
    """`alembic revision` with the README's post_write_hooks entry: the new revision's findings."""
    _alembic_project(
        tmp_path,
        "postgres",
        "\n[post_write_hooks]\nhooks = schemacite\nschemacite.type = exec\nschemacite.executable = schemacite\n"
        "schemacite.options = alembic --only REVISION_SCRIPT_FILENAME --exit-zero --format concise\n",
    )
    (tmp_path / "migrations" / "script.py.mako").write_text(MAKO)
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    done = subprocess.run(
        [sys.executable, "-m", "alembic", "revision", "--rev-id", "0003", "-m", "shorter note"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    written = next((tmp_path / "migrations" / "versions").glob("0003_*.py"))
    line = _line(written, "op.alter_column(")
    assert f"migrations/versions/{written.name}:{line}:1: SC112" in done.stdout + done.stderr


def test_the_config_is_the_project_s_not_one_above_the_temporary_folder(project, tmp_path_factory):
    """The printed SQL is linted from a temporary folder; the settings are the ones found from
    where alembic runs, not a config above the temporary folder (a decoy selecting SC112 here)."""
    folder, _, target = project
    (folder / ".schemacite.toml").write_text('select = ["SC110"]\n')
    temporary = tmp_path_factory.mktemp("elsewhere")
    (temporary / ".schemacite.toml").write_text('select = ["SC112"]\n')
    done = subprocess.run(
        [sys.executable, "-m", "schemacite.cli", "alembic", "--target", target, "--format", "json"],
        cwd=folder,
        env={**os.environ, "TMPDIR": str(temporary)},
        capture_output=True,
        text=True,
    )
    codes = {f["code"] for f in json.loads(done.stdout)["findings"]}
    assert codes == {"SC110"}, done.stdout + done.stderr
