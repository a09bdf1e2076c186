"""The plugin API: registration, entry points, broken packs, and the built-in rules' contract."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pluggy
import pytest

from schemacite import hookimpl
from schemacite.evidence import load_catalogue
from schemacite.lint import hookspecs
from schemacite.lint.plugins import BUILTIN_PLUGINS, plugin_manager, rule_classes
from schemacite.rule import FAMILIES, Option, Rule, Severity
from schemacite.testing import run_case

ROOT = Path(__file__).resolve().parents[1]
BUILTIN_RULES = rule_classes(plugin_manager(load_entrypoints=False))
SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead")


class BlobRule(Rule):
    """Table stores a blob."""

    code = "ACME001"
    name = "no-blobs"
    summary = "Table {table} has a blob"

    def check_table(self, table, ctx):
        if any("BLOB" in c.type.upper() for c in table.columns.values()):
            yield self.finding(table.defined_at, table=table.name)


class Pack:
    @hookimpl
    def schemacite_rules(self):
        return [BlobRule]


PACK = Pack()


def test_an_inline_pack_runs_beside_the_builtins():
    pm = plugin_manager(load_entrypoints=False)
    pm.register(Pack(), name="acme")
    result = run_case(
        {"rule": "no-blobs", "dialect": "mysql", "sql": "CREATE TABLE t (id int PRIMARY KEY, b blob);"}, pm
    )
    assert [(f.code, f.table) for f in result.findings] == [("ACME001", "t")]


class CharRule(BlobRule):
    """Table has a char(n) column."""

    code = "ACME002"
    name = "no-char"
    family = "preferences"
    summary = "Table {table} has a char(n) column"

    def check_table(self, table, ctx):
        if any(c.type.lower().startswith("char") for c in table.columns.values()):
            yield self.finding(table.defined_at, table=table.name)


@pytest.mark.parametrize("select", [None, ["SC1"], ["no-char"], ["ACME002"], ["preferences"], ["ACME"]])
def test_a_preference_runs_only_when_selected_and_a_family_selects_its_rules(select, tmp_path):
    from schemacite.lint.config import load_config
    from schemacite.lint.engine import Linter

    class Prefs:
        @hookimpl
        def schemacite_rules(self):
            return [BlobRule, CharRule]

    pm = plugin_manager(load_entrypoints=False)
    pm.register(Prefs(), name="prefs")
    sql = tmp_path / "a.sql"
    sql.write_text("CREATE TABLE t (id int PRIMARY KEY, c char(2), b blob);\n")
    config = load_config(None, {"dialect": "mysql", **({"select": select} if select else {})})
    codes = {f.code for f in Linter(config, pm).lint([str(sql)], []).findings}
    assert ("ACME002" in codes) == (select not in (None, ["SC1"]))
    assert ("ACME001" in codes) == (select in (None, ["ACME"]))


def test_entry_point_packs_load_and_a_broken_one_is_skipped(monkeypatch, caplog):
    import schemacite.lint.plugins as plugins

    good = plugins.EntryPoint(name="acme", value="tests.test_plugins:PACK")
    bad = plugins.EntryPoint(name="broken", value="no_such_module_xyz:plugin")
    monkeypatch.setattr(plugins, "entry_points", lambda group: [bad, good] if group == "schemacite" else [])
    monkeypatch.syspath_prepend(str(ROOT))
    pm = plugin_manager()
    assert pm.get_plugin("acme") is not None and pm.get_plugin("broken") is None
    assert "plugin broken could not be loaded" in caplog.text
    assert "no-blobs" in [c.name for c in rule_classes(pm)]
    monkeypatch.setenv("SCHEMACITE_DISABLE_PLUGIN_AUTOLOAD", "1")
    assert plugin_manager().get_plugin("acme") is None


def test_a_misspelt_hook_is_refused():
    class Typo:
        @hookimpl
        def schemacite_rule(self):  # not a hook
            return []

    pm = pluggy.PluginManager("schemacite")
    pm.add_hookspecs(hookspecs)
    pm.register(Typo())
    with pytest.raises(pluggy.PluginValidationError):
        pm.check_pending()


def test_every_hookspec_is_documented_with_its_signature():
    doc = (ROOT / "docs" / "plugins.md").read_text()
    for name, fn in inspect.getmembers(hookspecs, inspect.isfunction):
        if name.startswith("schemacite_"):
            sig = str(inspect.signature(fn)).replace("'", "")
            assert f"### `{name}{sig}`" in doc, name


@pytest.mark.parametrize("cls", BUILTIN_RULES, ids=[c.name for c in BUILTIN_RULES])
def test_builtin_rule_contract(cls):
    catalogue = load_catalogue()
    doc = cls.doc()
    assert doc.splitlines()[0].endswith("."), "first docstring line is the short description"
    positions = [doc.find(s) for s in SECTIONS]
    assert all(p >= 0 for p in positions) and positions == sorted(positions), "doc sections in order"
    assert re.fullmatch(r"SC\d{3}", cls.code) and re.fullmatch(r"[a-z]+(-[a-z]+)*", cls.name)
    assert cls.evidence or cls.evidence_note, "cite evidence or say why there is none"
    for eid in cls.evidence:
        assert eid in catalogue, eid
    assert isinstance(cls.default_severity, Severity)
    assert cls.family in FAMILIES, f"family {cls.family!r} is none of {sorted(FAMILIES)}"
    assert (ROOT / "fixtures" / "rules" / f"{cls.name}.yml").exists() or cls.name == "unused-index"
    cls()  # options resolve to their defaults


def test_codes_and_names_are_unique_and_builtins_are_plugins():
    codes = [c.code for c in BUILTIN_RULES]
    names = [c.name for c in BUILTIN_RULES]
    assert len(set(codes)) == len(codes) and len(set(names)) == len(names)
    assert all(m.startswith("schemacite.") for m in BUILTIN_PLUGINS)


def test_a_run_imports_only_the_rules_it_chooses(tmp_path):
    """A default PostgreSQL lint of one file imports the modules of the rules that run there and
    no other: not the preview rules, the preferences or the MySQL-only ones."""
    import json
    import subprocess
    import sys

    sql = tmp_path / "001.sql"
    sql.write_text("ALTER TABLE orders ADD COLUMN note text;\n")
    probe = (
        "import sys, json\n"
        "from schemacite.cli import main\n"
        f"try: main(['lint', '--no-cache', '--format', 'concise', {str(sql)!r}])\n"
        "except SystemExit: pass\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('schemacite.rules.'))), file=sys.stderr)\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    imported = {m.rsplit(".", 1)[1] for m in json.loads(run.stderr.strip().splitlines()[-1])}
    chosen = {
        c.__module__.rsplit(".", 1)[1]
        for c in BUILTIN_RULES
        if c.status == "stable" and c.family != "preferences" and "postgres" in c.dialects
    }
    rule_modules = {c.__module__.rsplit(".", 1)[1] for c in BUILTIN_RULES}
    assert "SC110" in run.stdout
    assert imported & rule_modules == chosen
    assert not imported & {"prefer_jsonb", "rename_schema", "drop_object"}


class ListedPack:
    def __init__(self, dialects):
        self.dialects = frozenset(dialects)

    @hookimpl
    def schemacite_rules(self):
        from schemacite.rule import LazyRule

        return [
            LazyRule("ACME001", "no-blobs", "locks", "stable", self.dialects, "tests.test_plugins:BlobRule"),
            LazyRule("ACME009", "never-loaded", "locks", "preview", self.dialects, "no_such_module_xyz:Rule"),
        ]


def test_a_pack_may_list_its_rules_lazily_and_a_stale_listing_is_refused(tmp_path, monkeypatch):
    """A listed rule not chosen is never imported (its module does not even exist here); one
    whose listing says other than its class is refused by name when it is chosen."""
    from schemacite.lint.config import load_config
    from schemacite.lint.engine import Linter

    monkeypatch.syspath_prepend(str(ROOT))
    sql = tmp_path / "t.sql"
    sql.write_text("CREATE TABLE t (id int PRIMARY KEY, b blob);\n")
    config = load_config(None, {"dialect": "mysql"})
    pm = plugin_manager(load_entrypoints=False)
    pm.register(ListedPack(BlobRule.dialects), name="acme")
    assert "ACME001" in {f.code for f in Linter(config, pm).lint([str(sql)], []).findings}
    pm = plugin_manager(load_entrypoints=False)
    pm.register(ListedPack({"mysql"}), name="acme")
    with pytest.raises(ValueError, match=r"tests.test_plugins:BlobRule is listed as ACME001 no-blobs .*stale"):
        Linter(config, pm)  # BlobRule holds for every dialect, not mysql alone


def test_every_catalogue_entry_is_cited_and_every_fixture_names_a_rule():
    cited = {e for c in BUILTIN_RULES for e in c.cited()}  # own measurements name their rules
    uncited = set(load_catalogue()) - cited
    # supporting documentation entries may be cited from docs rather than rules; none is orphaned here
    assert not uncited, f"catalogue entries no rule cites: {sorted(uncited)}"
    names = {c.name for c in BUILTIN_RULES}
    for f in (ROOT / "fixtures" / "rules").glob("*.yml"):
        assert f.stem in names, f"{f.name} names no rule"


def test_every_headline_figure_heads_a_rule_that_cites_it():
    """A figure's `headline` names rules citing its record, each headed by one figure at most."""
    catalogue = load_catalogue()
    for cls in BUILTIN_RULES:
        heads = [i for i in cls.cited() if i in catalogue and catalogue[i].headline(cls.name)]
        assert len(heads) <= 1, (cls.name, heads)
    names = {c.name: c for c in BUILTIN_RULES}
    for e in catalogue.values():
        for fig in e.figures:
            for name in filter(None, (n.strip() for n in fig.get("headline", "").split(","))):
                assert name in names and e.id in names[name].cited(), (e.id, name)


def _examples(doc: str, section: str) -> tuple[str | None, str]:
    """The first SQL block of a doc section, and the dialect its fence names (```sql postgres)."""
    part = doc.split(section, 1)[1]
    m = re.search(r"```sql(?: (\w+))?\n(.*?)```", part, re.S)
    return m.group(1), m.group(2)


# unused-index needs live workload counters: its examples are checked in test_audit
SQL_RULES = [c for c in BUILTIN_RULES if c.name != "unused-index"]


@pytest.mark.parametrize("cls", SQL_RULES, ids=[c.name for c in SQL_RULES])
def test_doc_examples_are_fixtures(cls):
    """`## Example` must be flagged and `## Use instead` must not, on some dialect the rule supports."""
    doc = cls.doc()
    flagged = _findings(cls, *_examples(doc, "## Example"))
    assert flagged, "the Example is not flagged"
    # an info-level nudge may remain; nothing that fails a run
    remaining = [f for f in _findings(cls, *_examples(doc, "## Use instead")) if f.severity > Severity.INFO]
    assert not remaining, "the Use instead example is flagged"


def _findings(cls, dialect: str | None, sql: str) -> list:
    history = {  # the tables the examples alter, as production already has them
        "postgres": "CREATE TABLE accounts (id bigint PRIMARY KEY, balance numeric(12, 2));\n"
        "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id bigint);\n"
        "CREATE DOMAIN quantity AS integer;\n"
        "CREATE TABLE order_lines (id bigint PRIMARY KEY, order_id bigint REFERENCES orders, qty quantity);\n"
        "CREATE TYPE order_status AS ENUM ('new', 'paid');\n"
        "ALTER TABLE orders ADD COLUMN status order_status, ADD COLUMN refunded_at timestamptz;\n",
        "mysql": "",
    }
    dialect = dialect or "mysql"
    assert dialect in cls.dialects
    result = run_case({"rule": cls.name, "dialect": dialect, "sql": sql, "history": history[dialect]})
    assert not result.errors, [str(e) for e in result.errors]
    return [f for f in result.findings if f.rule == cls.name]


class Broken(Rule):
    """Always fails."""

    code = "ACME002"
    name = "always-fails"
    summary = "never"

    def check_table(self, table, ctx):
        raise RuntimeError("bug in a pack")


class BrokenPack:
    @hookimpl
    def schemacite_rules(self):
        return [Broken]


def test_a_failing_rule_is_a_located_error_and_others_still_run():
    pm = plugin_manager(load_entrypoints=False)
    pm.register(BrokenPack(), name="broken")
    result = run_case(
        {"rule": "always-fails", "rules": ["no-primary-key"], "dialect": "mysql", "sql": "CREATE TABLE t (v int);"}, pm
    )
    assert [f.rule for f in result.findings] == ["no-primary-key"]
    assert [(e.line, e.message) for e in result.errors] == [
        (1, "rule always-fails (ACME002) failed: RuntimeError('bug in a pack')")
    ]


def test_entry_points_are_read_from_installed_distributions(tmp_path, monkeypatch):
    import schemacite.lint.plugins as plugins

    dist = tmp_path / "acme_schemacite-1.0.dist-info"
    dist.mkdir()
    (dist / "entry_points.txt").write_text(
        "[console_scripts]\nacme = acme:main\n\n[schemacite]\nacme = tests.test_plugins:PACK [extra]\n"
    )
    (tmp_path / "other-2.0.dist-info").mkdir()  # no entry_points.txt
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(ROOT))
    found = {ep.name: ep for ep in plugins.entry_points("schemacite")}
    assert found["acme"].value == "tests.test_plugins:PACK"
    assert type(found["acme"].load()).__name__ == "Pack"  # (the module is imported under its package name)
    assert "acme" in {ep.name for ep in plugins.entry_points("console_scripts")}  # sections stay apart
    # the project's own pytest plugin is found the same way in the real environment
    assert any(ep.value == "schemacite.pytest_plugin" for ep in plugins.entry_points("pytest11"))


def test_rule_and_lock_pages_are_generated(tmp_path):
    """docs/rules/*.md is what `schemacite explain` prints, docs/locks/*.md the lock tables; a stale
    page fails here."""
    from schemacite import docs

    assert docs.stale(ROOT / "docs") == [], "run: python -m schemacite.docs"
    assert not docs.readme_stale(ROOT / "README.md"), "the README's rule table: run python -m schemacite.docs"
    assert not docs.index_stale(), "rules/index.py: run python -m schemacite.docs"
    readme = tmp_path / "README.md"
    readme.write_text((ROOT / "README.md").read_text())
    index = tmp_path / "index.py"
    assert docs.main(["--out", str(tmp_path), "--readme", str(readme), "--index", str(index)]) == 0
    assert index.read_text() == (ROOT / "rules" / "index.py").read_text()
    page = (tmp_path / "rules" / "no-primary-key.md").read_text()
    (tmp_path / "rules" / "no-primary-key.md").write_text(page.replace("InnoDB", "MyISAM"))
    assert docs.main(["--check", "--out", str(tmp_path), "--readme", str(readme)]) == 1
    docs.main(["--out", str(tmp_path), "--readme", str(readme)])
    assert docs.main(["--check", "--out", str(tmp_path), "--readme", str(readme)]) == 0
    # a figure restated by hand in the table is caught like a stale page
    readme.write_text(readme.read_text().replace("**never above 87 %**", "**never above 90 %**"))
    assert docs.main(["--check", "--out", str(tmp_path), "--readme", str(readme)]) == 1
    docs.main(["--out", str(tmp_path), "--readme", str(readme)])
    table = readme.read_text()
    for cls in BUILTIN_RULES:  # one row per rule, its severity, first doc line and headline from the code and data
        row = next(line for line in table.splitlines() if line.startswith(f"| {cls.code} |"))
        family = cls.family + (" (preview)" if cls.status == "preview" else "")
        assert f"| `{cls.name}` | {family} | {cls.default_severity} |" in row and cls.doc().splitlines()[0] in row
    assert "| SC104 | `access-exclusive-lock` |" in table and "| safe, unsafe, display-only |" in table
    assert "**3x** (`percona-2012-iibench-secondary-indexes`)" in table  # the figure marked as SC102's headline
    postgres = (tmp_path / "locks" / "postgres.md").read_text()
    assert "| ALTER TABLE DETACH PARTITION | AccessExclusiveLock |" in postgres and "12.22, 13.23 |" in postgres
    mysql = (tmp_path / "locks" / "mysql.md").read_text()
    assert "every MySQL row rests on MySQL's documentation only" in mysql and "measured on mariadb 10.11" in mysql
    for cls in BUILTIN_RULES:  # every finding's URL names a page that exists
        assert (
            cls.url().endswith(f"docs/rules/{cls.name}.md") and (ROOT / "docs" / "rules" / f"{cls.name}.md").is_file()
        )


def test_distributions_in_the_current_directory_are_not_plugins(tmp_path, monkeypatch):
    """A repository linted with `python -m schemacite` has its own folder on sys.path: a
    `*.dist-info` committed there must not name a module of the repository for us to import."""
    import schemacite.lint.plugins as plugins

    dist = tmp_path / "evil-1.0.dist-info"
    dist.mkdir()
    (dist / "entry_points.txt").write_text("[schemacite]\nevil = evil_pack\n")
    (tmp_path / "evil_pack.py").write_text("raise SystemExit('repository code ran')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend("")
    assert "evil" not in {ep.name for ep in plugins.entry_points("schemacite")}
    monkeypatch.syspath_prepend(str(tmp_path))  # spelled as a path, it is still the current directory
    assert "evil" not in {ep.name for ep in plugins.entry_points("schemacite")}
    monkeypatch.chdir(ROOT)  # the same folder, seen from elsewhere, is an ordinary sys.path entry
    assert "evil" in {ep.name for ep in plugins.entry_points("schemacite")}


def test_the_rule_api_has_one_public_path_and_builtins_use_it():
    import schemacite.rule as public
    from schemacite.lint import rule as defined
    from schemacite.model import results

    # re-exported, not copied: each public name is the object its defining module holds
    for name in public.__all__:
        home = defined if hasattr(defined, name) and name not in vars(results) else results
        assert getattr(public, name) is getattr(home, name), name
    for path in Path(__file__).parents[1].joinpath("rules").glob("*.py"):
        assert "schemacite.lint.rule" not in path.read_text(), f"{path.name} imports the rule API by its inner path"
    assert "from schemacite.rule import" in Path(__file__).parents[1].joinpath("docs/plugins.md").read_text()


class Threshold(Rule):
    """Flags every table (a pack rule whose option falls back to a top-level setting)."""

    code = "ACME003"
    name = "threshold"
    summary = "{table}: {seconds}"
    options = {"seconds": Option(float, 1.0, "a limit", setting="max_lock_seconds")}

    def check_table(self, table, ctx):
        yield self.finding(table.defined_at, table=table.name, seconds=self.option_values["seconds"])


class ThresholdPack:
    @hookimpl
    def schemacite_rules(self):
        return [Threshold]


@pytest.mark.parametrize(
    ("config", "seconds"),
    [
        ({}, 5.0),
        ({"max_lock_seconds": 30}, 30.0),
        ({"max_lock_seconds": 30, "rules": {"threshold": {"seconds": 2}}}, 2),
    ],
)
def test_an_option_falls_back_to_its_top_level_setting(config, seconds):
    pm = plugin_manager(load_entrypoints=False)
    pm.register(ThresholdPack(), name="acme")
    result = run_case(
        {"rule": "threshold", "dialect": "mysql", "config": config, "sql": "CREATE TABLE t (id int);"}, pm
    )
    assert [f.message for f in result.findings] == [f"t: {seconds}"]


def test_lock_facts_are_looked_up_only_for_rules_that_read_them(monkeypatch):
    import schemacite.lint.lock_facts as lock_facts

    asked = []
    real = lock_facts.impacts_for
    monkeypatch.setattr(lock_facts, "impacts_for", lambda *a: asked.append(a[0].kind) or real(*a))
    sql = "BEGIN;\nCREATE INDEX i ON t (v);\nALTER TABLE t ADD COLUMN w int;\nCOMMIT;\n"
    case = {"dialect": "postgres", "history": "CREATE TABLE t (id int PRIMARY KEY, v int);", "sql": sql}
    # concurrently-in-transaction reads no lock facts, and nothing reads the transaction's locks
    assert run_case({**case, "rule": "concurrently-in-transaction"}).statements == 4 and asked == []
    # lock-held-during-long-work reads `earlier`: every statement of the transaction is looked up
    run_case({**case, "rule": "lock-held-during-long-work"})
    assert asked == ["create_index", "alter_table"]
    asked.clear()
    run_case({**case, "rule": "write-blocking-lock"})
    assert asked == ["create_index", "alter_table"]


def test_a_preview_rule_runs_only_when_selected(tmp_path):
    """Rules in preview (the families added last but fails-on-rows: breaks-running-code, runs-out,
    transactions, silent changes) report nothing in a default run, and do when their family is selected."""
    from schemacite import lint_paths

    assert {c.family for c in BUILTIN_RULES if c.status == "preview"} >= {"breaks-running-code", "runs-out"}
    (tmp_path / "001.sql").write_text("CREATE TABLE t (id bigint PRIMARY KEY, note text);\n")
    (tmp_path / "002.sql").write_text("ALTER TABLE t DROP COLUMN note;\n")
    change, history = [str(tmp_path / "002.sql")], [str(tmp_path / "001.sql")]
    default = lint_paths(change, history=history, dialect="postgres")
    selected = lint_paths(change, history=history, dialect="postgres", select=["breaks-running-code"])
    assert "SC114" not in {f.code for f in default.findings}
    assert [f.code for f in selected.findings] == ["SC114"]


class XmlReporter:
    """A pack's output format: one XML element counting the findings."""

    def __init__(self, **options):
        self.options = options

    def render(self, result, out):
        out.write(f"<findings count='{len(result.findings)}' codes='{','.join(f.code for f in result.findings)}'/>\n")


class XmlPack:
    @hookimpl
    def schemacite_formats(self):
        return {"xml": "one XML element counting the findings"}

    @hookimpl
    def schemacite_reporter(self, format):
        return XmlReporter if format == "xml" else None


XML_PACK = XmlPack()


def test_a_packs_output_format_is_taken_by_format_listed_in_help_and_its_registry(monkeypatch, capsys, tmp_path):
    """One registry of output formats, the built-ins' and the packs': `--format` takes a pack's format
    (argparse's fixed choices refused it: "invalid choice"), `--help` lists it, a typo names the nearest."""
    import schemacite.lint.plugins as plugins
    from cli import run
    from schemacite.docs import format_table
    from schemacite.report.builtin import FORMATS

    pack = plugins.EntryPoint(name="xml-pack", value="tests.test_plugins:XML_PACK")
    monkeypatch.setattr(plugins, "entry_points", lambda group: [pack] if group == "schemacite" else [])
    monkeypatch.syspath_prepend(str(ROOT))
    formats = plugins.output_formats(plugin_manager())
    assert list(formats) == [*FORMATS, "xml"]  # the built-ins first, then each pack's
    assert formats["xml"] == "one XML element counting the findings"
    sql = tmp_path / "001.sql"
    sql.write_text("CREATE TABLE t (v int);\n")
    code, out, err = run(capsys, "lint", "--dialect", "postgres", "--format", "xml", sql)
    assert (code, out) == (1, "<findings count='1' codes='SC101'/>\n"), err
    code, out, _ = run(capsys, "lint", "--dialect", "postgres", "--output-format", "xml", "-o", tmp_path / "r.xml", sql)
    assert code == 1 and (tmp_path / "r.xml").read_text() == "<findings count='1' codes='SC101'/>\n"
    with pytest.raises(SystemExit):
        run(capsys, "lint", "--help")
    help_text = " ".join(capsys.readouterr().out.split())
    assert "full, text, concise, json, sarif, github, gitlab, junit, html, xml (default full" in help_text
    code, _, err = run(capsys, "lint", "--dialect", "postgres", "--format", "xmll", sql)
    assert code == 2 and "unknown output format 'xmll' (choose from full, text" in err and "did you mean xml?" in err
    # --no-plugins leaves the pack's format out, as it leaves its rules out
    code, _, err = run(capsys, "lint", "--no-plugins", "--dialect", "postgres", "--format", "xml", sql)
    assert code == 2 and "unknown output format 'xml'" in err
    # the README's table is the built-ins' alone, whatever is installed where it is written
    assert "| `sarif` |" in format_table() and "xml" not in format_table()


def test_the_plugins_command_says_what_each_plugin_adds(monkeypatch, capsys):
    import schemacite.lint.plugins as plugins
    from schemacite.cli import main

    monkeypatch.setattr(plugins, "entry_points", lambda group: [plugins.EntryPoint("acme", "tests.test_plugins:PACK")])
    monkeypatch.syspath_prepend(str(ROOT))
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert f"schemacite.rules (built-in)\n  {len(BUILTIN_RULES)} rule(s): SC101 no-primary-key," in out
    assert "output formats: full, text, concise, json, sarif" in out
    assert "acme (pack)\n  1 rule(s): ACME001 no-blobs" in out
    assert main(["plugins", "--no-plugins"]) == 0
    assert "acme" not in capsys.readouterr().out
