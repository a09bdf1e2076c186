"""The evidence catalogue and its loader."""

from __future__ import annotations

import json
import re
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from schemacite.evidence import DIALECTS, KINDS, Evidence, load_catalogue

ROOT = Path(__file__).resolve().parents[1]

REQUIRED = ("id", "kind", "title", "source", "shows", "applies_to")
MYSQL_FAMILY = re.compile(r"mysql|percona|innodb|xtradb|mariadb", re.IGNORECASE)

GOOD_ENTRY = """
[[evidence]]
id = "{id}"
kind = "measurement"
title = "A pack's own measurement"
source = "Acme"
published = "2024-01-02"
applies_to = ["postgres"]
setup = {{ server = "PostgreSQL 16", tool = "pgbench" }}
figures = [ {{ metric = "tps", value = "1000" }} ]
shows = "Something measurable."
"""


def raw_records() -> list[dict]:
    data = resources.files("schemacite.evidence").joinpath("catalogue.toml").read_bytes()
    return tomllib.loads(data.decode())["evidence"]


def write(tmp_path: Path, text: str, name: str = "pack.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- the built-in catalogue ---------------------------------------------------------------------


def test_catalogue_loads():
    cat = load_catalogue()
    assert cat, "built-in catalogue is empty"
    assert all(isinstance(e, Evidence) for e in cat.values())
    assert all(key == e.id for key, e in cat.items())


def test_ids_unique_and_kebab():
    ids = [r["id"] for r in raw_records()]
    assert len(ids) == len(set(ids))
    for ident in ids:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", ident), ident


def test_required_keys_present():
    for record in raw_records():
        for key in REQUIRED:
            assert record.get(key), f"{record.get('id')}: missing {key}"
        if record["kind"] != "documentation":
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", record["published"]), record["id"]


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in re.findall(r"\d+(?:[.,]\d+)*", text)}


def test_published_records_quote_their_source():
    """A reader can check every figure and every `shows` against the source's own words, unless the
    record says why its source's text could not be found."""
    unquoted = [
        f"{record['id']}: {fig['metric'] if fig else 'shows'}"
        for record in raw_records()
        if not record.get("unquoted")
        for fig in [None, *record.get("figures", [])]
        if not (fig or record).get("quote")
    ]
    assert not unquoted


def test_shows_states_no_number_its_figures_and_quotes_lack():
    unbacked = {}
    for record in raw_records():
        quotes = record.get("quote", [])
        texts = [quotes] if isinstance(quotes, str) else quotes
        backing = " ".join(texts + [" ".join(fig.values()) for fig in record.get("figures", [])])
        if extra := _numbers(record["shows"]) - _numbers(backing):
            unbacked[record["id"]] = sorted(extra)
    assert not unbacked


def test_kinds_and_dialects_valid():
    for e in load_catalogue().values():
        assert e.kind in KINDS
        assert e.applies_to and e.applies_to <= DIALECTS


def test_measurements_have_setup_and_figures():
    for e in load_catalogue().values():
        if e.kind == "measurement":
            assert e.setup, e.id
            assert e.figures, e.id
            for fig in e.figures:
                assert fig["metric"].strip() and fig["value"].strip(), e.id


def test_every_own_number_says_how_many_runs_it_is_the_median_of():
    for e in load_catalogue().values():
        if e.source == "schemacite":
            for fig in e.figures:
                if "number" in fig:
                    assert int(fig["runs"]) >= 1 and ("low" in fig) == (int(fig["runs"]) > 1), (e.id, fig)


def _figure(keys: str) -> str:
    return GOOD_ENTRY.format(id="acme:a").replace('{ metric = "tps", value = "1000" }', f'{{ metric = "tps", {keys} }}')


def test_mysql_family_measurements_never_apply_to_postgres():
    for e in load_catalogue().values():
        if e.kind != "measurement" or not e.applies_to & {"mysql", "mariadb"}:
            continue
        if MYSQL_FAMILY.search(e.setup.get("server", "")):
            assert "postgres" not in e.applies_to, e.id


def test_documentation_entries_have_url_and_edition():
    for e in load_catalogue().values():
        if e.kind == "documentation":
            assert e.url and e.url.startswith("https://"), e.id
            assert e.setup.get("document"), e.id


def test_mission_rule_entries_exist():
    cat = load_catalogue()
    for ident in (
        "percona-2013-hidden-rowid",
        "percona-2012-iibench-secondary-indexes",
        "percona-2017-mysql-partitioning",
        "percona-2018-pg-heavyweight-locks",
    ):
        assert ident in cat


def test_evidence_api():
    e = load_catalogue()["percona-2013-hidden-rowid"]
    assert e.applies("mysql") and e.applies("MariaDB") and not e.applies("postgres")
    assert e.citation().startswith("Percona 2013 · MySQL 5.5.34")
    record = e.as_dict()
    json.dumps(record)  # JSON-ready
    assert record["applies_to"] == ["mariadb", "mysql"]
    assert record["figures"] and record["published"] == "2013-10-18"
    pg = load_catalogue()["pg-doc-explicit-locking"]
    assert pg.applies("postgresql") and pg.as_dict()["published"] is None
    assert hash(e) == hash(load_catalogue()["percona-2013-hidden-rowid"])


def test_builtin_is_cached_and_callers_cannot_corrupt_it():
    first = load_catalogue()
    first.pop("percona-2013-hidden-rowid")
    assert "percona-2013-hidden-rowid" in load_catalogue()


def _builtin_fresh() -> dict:
    from schemacite import evidence

    evidence._builtin.cache_clear()
    builtin = evidence._builtin()
    return {key: builtin.record(key) for key in builtin.raw}


def test_builtin_files_read_through_their_json_copy_give_the_same_records(tmp_path, monkeypatch):
    from schemacite import evidence

    monkeypatch.setenv("SCHEMACITE_CACHE_DIR", str(tmp_path))
    direct = {}
    for name in evidence.BUILTIN_FILES:
        data = resources.files("schemacite.evidence").joinpath(name).read_bytes()
        doc = evidence._toml(data, name)
        direct.update((e.id, e) for _, e in evidence._records(doc, name, namespaced=False, allow_empty=True))
    try:
        assert _builtin_fresh() == direct  # the first run writes the copies
        copies = sorted((tmp_path / "evidence").glob("*.json"))
        assert len(copies) == len(evidence.BUILTIN_FILES)
        assert _builtin_fresh() == direct  # the second reads them
        # a damaged copy (valid JSON, wrong records) is checked like the TOML and then ignored
        for copy in copies:
            copy.write_text(json.dumps({"evidence": [{"id": "Not Kebab"}]}))
        assert _builtin_fresh() == direct
        copies[0].write_text("[1, 2")
        assert _builtin_fresh() == direct
    finally:
        evidence._builtin.cache_clear()


def test_a_damaged_record_in_the_copy_is_read_from_the_toml(tmp_path, monkeypatch):
    """A copy whose ids are right but one record's content is not (valid JSON) decodes that record
    from the TOML itself when it is first read."""
    from schemacite import evidence

    monkeypatch.setenv("SCHEMACITE_CACHE_DIR", str(tmp_path))
    try:
        want = _builtin_fresh()["percona-2013-hidden-rowid"]
        for copy in (tmp_path / "evidence").glob("*.json"):
            doc = json.loads(copy.read_text())
            for raw in doc["evidence"]:
                if raw["id"] == "percona-2013-hidden-rowid":
                    raw["published"] = "not a date"
            copy.write_text(json.dumps(doc))
        assert _builtin_fresh()["percona-2013-hidden-rowid"] == want
    finally:
        evidence._builtin.cache_clear()


def test_a_lint_run_decodes_only_the_records_it_cites(tmp_path):
    """The built-in records are decoded when read: linting one file with one finding decodes the
    few its rule cites, not the whole catalogue."""
    from schemacite import evidence, lint_paths

    evidence._builtin.cache_clear()
    evidence._loaded.cache_clear()
    sql = tmp_path / "001.sql"
    sql.write_text("ALTER TABLE orders ADD COLUMN note text;\n")
    result = lint_paths([str(sql)])
    cited = {i for f in result.findings for i in f.evidence}
    assert [f.code for f in result.findings] == ["SC110"] and cited
    decoded = set(evidence._builtin()._done)
    assert cited <= decoded and len(decoded) < len(evidence._builtin().raw) / 4


# --- extra (plugin) catalogue files -------------------------------------------------------------


def test_namespaced_extra_file_merges(tmp_path):
    path = write(tmp_path, GOOD_ENTRY.format(id="acme:pgbench-run"))
    cat = load_catalogue([path])
    assert "acme:pgbench-run" in cat
    assert "percona-2013-hidden-rowid" in cat
    assert cat["acme:pgbench-run"].citation() == "Acme 2024 · PostgreSQL 16, pgbench"
    assert "acme:pgbench-run" not in load_catalogue()


def test_extra_file_accepts_toml_dates(tmp_path):
    text = GOOD_ENTRY.format(id="acme:dated").replace('"2024-01-02"', "2024-01-02")
    assert load_catalogue([write(tmp_path, text)])["acme:dated"].published == "2024-01-02"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (GOOD_ENTRY.format(id="pgbench-run"), "[[evidence]] id=pgbench-run: id 'pgbench-run' must be namespaced"),
        (
            GOOD_ENTRY.format(id="percona-2013-hidden-rowid"),
            "[[evidence]] id=percona-2013-hidden-rowid: id 'percona-2013-hidden-rowid' must be namespaced",
        ),
        (
            GOOD_ENTRY.format(id="acme:a") + GOOD_ENTRY.format(id="acme:a"),
            "[[evidence]] id=acme:a: duplicate id 'acme:a' (already used by [[evidence]] #1)",
        ),
        (
            GOOD_ENTRY.format(id="acme:a").replace('kind = "measurement"', 'kind = "anecdote"'),
            'id=acme:a: kind: expected one of "measurement", "documentation", "reasoning", got "anecdote"',
        ),
        (
            GOOD_ENTRY.format(id="acme:a").replace('shows = "Something measurable."', ""),
            "id=acme:a: missing 'shows'",
        ),
        (
            GOOD_ENTRY.format(id="acme:a").replace('published = "2024-01-02"', ""),
            "id=acme:a: missing published",
        ),
        (
            GOOD_ENTRY.format(id="acme:a").replace('"2024-01-02"', '"Jan 2024"'),
            "id=acme:a: published: expected a date \"YYYY-MM-DD\", got 'Jan 2024'",
        ),
        (
            GOOD_ENTRY.format(id="acme:a").replace('["postgres"]', '["oracle"]'),
            "id=acme:a: applies_to[0]: unknown dialect 'oracle'",
        ),
        (
            GOOD_ENTRY.format(id="acme:a").replace('figures = [ { metric = "tps", value = "1000" } ]', "figures = []"),
            "id=acme:a: a measurement needs at least one figure",
        ),
        (
            GOOD_ENTRY.format(id="acme:a").replace('setup = { server = "PostgreSQL 16", tool = "pgbench" }', ""),
            "id=acme:a: a measurement needs a setup table",
        ),
        (
            GOOD_ENTRY.format(id="acme:a").replace('metric = "tps"', 'name = "tps"'),
            "id=acme:a: figures[0]: unknown key(s) 'name'",
        ),
        (GOOD_ENTRY.format(id="acme:a") + 'colour = "red"\n', "id=acme:a: unknown key(s) 'colour'"),
        (GOOD_ENTRY.format(id="acme:a") + "quote = 3\n", "id=acme:a: quote: expected a string or a list, got 3"),
        (GOOD_ENTRY.format(id="acme:a") + f'quote = "{"word " * 26}"\n', "id=acme:a: quote: quote has 26 words"),
        (
            GOOD_ENTRY.format(id="acme:a").replace('value = "1000"', f'value = "1000", quote = "{"w " * 30}"'),
            "id=acme:a: figures[0].quote: quote has 30 words",
        ),
        (_figure('value = "1", runs = "3"'), "figures[0]: runs go with a number"),
        (_figure('value = "1", quantity = "q", number = "5", low = "4"'), "figures[0]: low and high go together"),
        (
            _figure('value = "1", quantity = "q", number = "5", low = "6", high = "7", runs = "2"'),
            "figures[0]: low <= number <= high",
        ),
        (_figure('value = "1", quantity = "q", number = "5", low = "4", high = "6"'), "over two runs or more"),
        (_figure('value = "1", quantity = "q", number = "5", runs = "0"'), "figures[0]: runs must be at least 1"),
        (_figure('value = "1", quantity = "q", number = "5", fit = "1.5"'), "figures[0]: fit is R²"),
        ("[[evidence]\nid = ", "invalid TOML"),
        ('title = "no records"\n', "unknown top-level key(s) title"),
        ("", "no [[evidence]] records"),
    ],
)
def test_bad_extra_files_raise_value_error(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ValueError) as info:
        load_catalogue([path])
    assert str(info.value).startswith(f"{path}: ")
    assert message in str(info.value)


def test_a_pack_record_carries_quotes_or_says_why_not(tmp_path):
    from schemacite.cli.evidence import record_text

    quoted = GOOD_ENTRY.format(id="acme:quoted").replace('value = "1000"', 'value = "1000", quote = "1000 tps"')
    quoted += 'quote = ["measured twice", "on one box"]\n'
    unquoted = GOOD_ENTRY.format(id="acme:unquoted") + 'unquoted = "the page is gone"\n'
    cat = load_catalogue([write(tmp_path, quoted + unquoted)])
    assert cat["acme:quoted"].quotes == ("measured twice", "on one box")
    assert cat["acme:quoted"].as_dict()["figures"][0]["quote"] == "1000 tps"
    text = record_text(cat["acme:quoted"]) + record_text(cat["acme:unquoted"])
    assert "source: “1000 tps”" in text and "source: “on one box”" in text and "not quoted: the page is gone" in text


def test_duplicate_id_across_extra_files(tmp_path):
    one = write(tmp_path, GOOD_ENTRY.format(id="acme:a"), "one.toml")
    two = write(tmp_path, GOOD_ENTRY.format(id="acme:a"), "two.toml")
    with pytest.raises(
        ValueError, match=r"two\.toml: \[\[evidence\]\] id=acme:a: duplicate id \(already defined in .*one\.toml\)"
    ):
        load_catalogue([one, two])


def test_missing_extra_file(tmp_path):
    with pytest.raises(ValueError, match="cannot read evidence catalogue"):
        load_catalogue([tmp_path / "absent.toml"])


def test_a_bad_record_names_itself_and_the_path_to_the_value(tmp_path):
    text = GOOD_ENTRY.format(id="acme:foo").replace(
        'figures = [ { metric = "tps", value = "1000" } ]',
        'figures = [ { metric = "tps", value = "1000" }, { metric = "p99", value = 3 } ]',
    )
    path = write(tmp_path, text, "catalogue.toml")
    with pytest.raises(ValueError) as info:
        load_catalogue([path])
    assert str(info.value) == f"{path}: [[evidence]] id=acme:foo: figures[1].value: expected a string, got 3"
    nameless = write(tmp_path, GOOD_ENTRY.format(id="acme:a").replace('id = "acme:a"', "id = 5"), "nameless.toml")
    with pytest.raises(ValueError, match=r"nameless\.toml: \[\[evidence\]\] #1: id: expected a string, got 5$"):
        load_catalogue([nameless])


def test_the_record_keys_in_the_docs_are_generated_from_the_schema():
    from schemacite.evidence import record_keys

    keys = record_keys()
    assert "- `quote` (string or list of strings, optional)" in keys
    assert "- `headline` (string, optional)" in keys and "- `metric` (string, required)" in keys
    assert keys in (ROOT / "docs" / "plugins.md").read_text()
