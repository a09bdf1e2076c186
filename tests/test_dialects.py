"""Targets and dialects: parsed once from their names (config, command line, a server), carried typed."""

from __future__ import annotations

import pytest

from schemacite.cli import parser
from schemacite.lint.config import ConfigError, load_config
from schemacite.model import Schema
from schemacite.model.dialects import DEFAULT_TARGET, DIALECTS, TARGETS, Dialect, Target
from schemacite.rule import Context


@pytest.mark.parametrize("name", [f"{d}-{v}" for d in TARGETS for v in TARGETS[d]])
def test_every_target_in_the_table_parses_and_prints_as_named(name):
    target = Target.parse(name)
    assert str(target) == name
    assert target in target.dialect.targets
    assert target.major == int(name.rpartition("-")[2].split(".")[0])


def test_a_target_parses_from_the_spellings_people_use():
    assert Target.parse(" PostgreSQL-15 ") == Target(Dialect.POSTGRES, (15,))
    assert Target.parse("MariaDB-10.11") == Target(Dialect.MARIADB, (10, 11))
    assert Dialect.parse("pg") is Dialect.POSTGRES


@pytest.mark.parametrize("name", ["postgres-11", "mysql-8.1", "mysql", "oracle-19", "postgres-x", ""])
def test_an_unknown_target_is_refused_naming_the_known_ones(name):
    with pytest.raises(ValueError, match=rf"unknown target '{name}' \(use mysql-5.7, .*, postgres-18\)"):
        Target.parse(name)


def test_targets_order_by_version_not_by_text():
    assert Target.parse("mariadb-10.6") < Target.parse("mariadb-10.11") < Target.parse("mariadb-11.4")
    assert max(Dialect.POSTGRES.targets) == Target.parse("postgres-18")


def test_dialects_compare_and_print_as_their_names():
    assert Dialect.POSTGRES == "postgres" and f"{Dialect.MARIADB}" == "mariadb"
    assert [d.is_mysql_family for d in Dialect] == [True, True, False]
    assert Dialect.MARIADB.family is Dialect.MYSQL and Dialect.POSTGRES.family is Dialect.POSTGRES
    assert {d: str(d.default_target) for d in Dialect} == DEFAULT_TARGET


def test_the_config_holds_the_parsed_target_and_its_dialect(tmp_path):
    (tmp_path / ".schemacite.toml").write_text('dialect = "mysql"\ntarget = "mariadb-10.11"\n')
    config = load_config(tmp_path / ".schemacite.toml")
    assert config.target == Target(Dialect.MARIADB, (10, 11)) and config.dialect is Dialect.MARIADB
    assert load_config(None, {"dialect": "PostgreSQL"}).target == Target.parse(DEFAULT_TARGET["postgres"])
    with pytest.raises(
        ConfigError, match=r"--target: unknown target 'mysql-8.0' for dialect postgres \(use postgres-12"
    ):
        load_config(None, {"dialect": "postgres", "target": "mysql-8.0"})


def test_a_context_built_from_names_reads_as_one_built_by_the_engine():
    ctx = Context("mariadb", "mariadb-10.11", Schema("mariadb"))
    assert (ctx.dialect, ctx.target) == (Dialect.MARIADB, Target(Dialect.MARIADB, (10, 11)))
    assert (str(ctx.target), ctx.server, ctx.version) == ("mariadb-10.11", "mariadb", (10, 11))


def test_the_command_line_offers_the_dialects_of_the_table():
    lint = parser()._subparsers._group_actions[0].choices["lint"]
    dialect = next(a for a in lint._actions if a.dest == "dialect")
    target = next(a for a in lint._actions if a.dest == "target")
    assert tuple(dialect.choices) == DIALECTS
    assert all(f"{d}-{'|'.join(TARGETS[d])}" in target.help for d in DIALECTS)
