"""Facts written once: every place that states one reads it from its owner, so changing the owner
changes them all. Each test names the owner and checks a reader that used to keep its own copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemacite.lint.config import Config, load_config
from schemacite.model import Schema
from schemacite.model.dialects import LOCK_WAIT
from schemacite.model.record import default
from schemacite.rule import Context

README = Path(__file__).resolve().parents[1] / "README.md"


def test_setting_defaults_live_in_config(tmp_path):
    """Config's fields are the defaults: the loader, the rule API and SC102's option read them."""
    from schemacite.rules.insert_heavy_indexes import InsertHeavyIndexes

    (tmp_path / ".schemacite.toml").write_text('dialect = "postgres"\n')
    loaded = load_config(tmp_path / ".schemacite.toml")
    assert (loaded.max_lock_seconds, loaded.max_secondary_indexes) == (5.0, 2)
    assert Context("postgres", "postgres-15", Schema("postgres")).max_lock_seconds == default(
        Config, "max_lock_seconds"
    )
    assert InsertHeavyIndexes.options["max_secondary_indexes"].default == default(Config, "max_secondary_indexes")
    assert InsertHeavyIndexes().option_values["max_secondary_indexes"] == loaded.max_secondary_indexes
    # the README's configuration example says which values are the defaults
    for key in ("max_secondary_indexes", "max_lock_seconds"):
        line = next(ln for ln in README.read_text().splitlines() if ln.startswith(f"{key} = "))
        assert "# the default" in line and float(line.split("=")[1].split("#")[0]) == default(Config, key), line


@pytest.mark.parametrize("dialect", sorted(LOCK_WAIT))
def test_lock_wait_advice_comes_from_one_table(dialect):
    """model.dialects.LOCK_WAIT: the setting replay watches, the SET the SC110 fix inserts and
    the SC104/SC105 suggestions name, and the prose that repeats it."""
    from schemacite.rules.lock_timeout_missing import FIX, SETTING, LockTimeoutMissing
    from schemacite.sources.replay import LOCK_TIMEOUT_VARIABLES

    wait = LOCK_WAIT[dialect]
    assert wait.setting in LOCK_TIMEOUT_VARIABLES and SETTING[dialect] == wait.setting
    assert FIX[dialect].startswith(wait.statement() + " ")
    assert wait.statement() in LockTimeoutMissing.doc()  # the rule's Fix section says the same
    if wait.wait_clause:
        assert wait.one_statement() in FIX[dialect]


def test_the_mysql_metadata_lock_note_gives_the_advised_bound():
    """The note `schemacite locks` prints for MySQL/MariaDB is prose in the lock table (its owner
    for now): it must advise the statement LOCK_WAIT holds."""
    from schemacite.locks.mysql import general_note

    assert f"`{LOCK_WAIT['mysql'].statement()};`" in general_note("mysql")[0]
    assert LOCK_WAIT["mariadb"].one_statement() in general_note("mariadb")[0]


def test_kinds_that_lock_nothing_are_one_set():
    """locks.NO_LOCK_KINDS names statement kinds the readers make, and the PostgreSQL lock logic
    skips exactly those."""
    from schemacite.locks import NO_LOCK_KINDS
    from schemacite.locks import postgres as pg_locks
    from schemacite.sources.read import parse_text

    text = (
        "CREATE TABLE t (a int);\nBEGIN;\nSET lock_timeout = '1s';\nSHOW lock_timeout;\nCOMMIT;\n"
        "ALTER DOMAIN d ADD CHECK (VALUE > 0);\nALTER TYPE e ADD VALUE 'x';\n"
    )
    statements = parse_text(text, "f.sql", "postgres").statements
    assert {s.kind for s in statements[1:]} == NO_LOCK_KINDS
    assert all(pg_locks.impacts(s, Schema("postgres"), 15) == [] for s in statements[1:])
    assert not hasattr(pg_locks, "NO_LOCK"), "the PostgreSQL lock logic keeps no copy of its own"


@pytest.mark.parametrize(
    ("written", "schema", "name", "key"),
    [
        ("events", None, "events", "events"),
        ("public.events", "public", "events", "events"),
        ("pg_temp.scratch", "pg_temp", "scratch", "scratch"),
        # a quoted name keeps its case, a bare one folds: the server's own resolution
        ('"Audit".Events', "Audit", "events", "Audit.events"),
        ("Audit.Events", "audit", "events", "audit.events"),
        ('"InvitedUsers"', None, "InvitedUsers", "InvitedUsers"),
        ('"Public".t', "Public", "t", "Public.t"),
    ],
)
def test_relation_keys_are_normalised_once(written, schema, name, key):
    """names.relation_key: a name as written (table_key) and the PostgreSQL reader's parts (key_of)
    get the same key, `public` and `pg_temp` dropped alike."""
    from schemacite.sources.names import table_key
    from schemacite.sources.postgres.reader import key_of

    assert table_key(written, "postgres") == key_of(schema, name) == key


def test_the_lock_rules_share_one_unmeasured_note():
    from schemacite.rules.access_exclusive_lock import AccessExclusiveLock
    from schemacite.rules.lock_findings import UNMEASURED
    from schemacite.rules.write_blocking_lock import WriteBlockingLock

    assert AccessExclusiveLock.evidence_note is UNMEASURED and WriteBlockingLock.evidence_note is UNMEASURED


def test_mariadb_online_copy_follows_the_rows():
    """A statement pinned to ALGORITHM=COPY gets the least lock its own row gives where the row
    copies (MariaDB 11.2+'s online-copy rows, ORDER BY's shared lock): the code keeps no list of
    the rows' exceptions."""
    from schemacite.locks import mysql as my_locks
    from schemacite.locks import mysql_table

    checked = 0
    for key in mysql_table.tables()["mariadb"]:
        for version in [(10, 11, 999), (11, 2, 0), (11, 4, 999)]:
            row = my_locks.lookup("mariadb", key, version)
            if row is not None and row.algorithm == "COPY":
                assert my_locks._copy_min_lock("mariadb", version, key) == row.mode, (key, version)
                checked += 1
    assert checked > 20
    assert my_locks._copy_min_lock("mariadb", (11, 4, 999), "order_by") == "SHARED"
    assert my_locks._copy_min_lock("mariadb", (11, 4, 999), "add_index") == "NONE"
    assert my_locks._copy_min_lock("mariadb", (10, 11, 999), "add_index") == "SHARED"
