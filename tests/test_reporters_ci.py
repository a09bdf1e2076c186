"""Machine output formats (SARIF, GitHub, GitLab, JUnit), fingerprints, baselines,
statistics and the pytest plugin, on a LintResult built by hand (no engine, no CLI)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest

import schemacite
import schemacite.evidence
from schemacite.lint.baseline import BaselineError, filter_new, write_baseline
from schemacite.lint.fingerprint import fingerprint
from schemacite.lint.plugins import plugin_manager
from schemacite.model import Location
from schemacite.model.record import replace
from schemacite.model.results import LintResult
from schemacite.model.statements import ParseError
from schemacite.report import github, gitlab, junit, sarif
from schemacite.report.statistics import statistics_json, statistics_lines
from schemacite.rule import Finding, Rule, Severity

pytest_plugins = ["pytester"]
# the inner sessions: no cache folder, and no plugin of this suite's own (pytest-asyncio) warning of its settings
QUIET = ("-p", "no:cacheprovider", "-p", "no:asyncio")

DATA = Path(__file__).resolve().parent / "data"
SARIF_SCHEMA = DATA / "sarif-schema-2.1.0.json"


# --- rules, evidence and a result built by hand ---------------------------------------


class KeylessTable(Rule):
    """Table has no key to cluster on.

    ## What it does
    Flags tables without a primary key.
    """

    code = "SC901"
    name = "keyless-table"
    summary = "Table {table} has no primary key"
    default_severity = Severity.WARNING
    evidence = ("stub-rowid",)


class BlockingIndex(Rule):
    """Index build blocks writes.

    ## What it does
    Flags CREATE INDEX without CONCURRENTLY.
    """

    code = "SC902"
    name = "blocking-index"
    summary = "CREATE INDEX on {table} blocks writes"
    default_severity = Severity.ERROR
    evidence = ()
    evidence_note = "documented behaviour, not measured"


@dataclass
class StubEvidence:
    id: str
    title: str
    url: str
    source: str
    published: str
    kind: str = "measurement"
    rules: tuple = ()

    def applies(self, dialect: str) -> bool:
        return True

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "url": self.url,
            "source": self.source,
            "published": self.published,
            "figures": [{"metric": "inserts/s", "value": "87 %"}],
        }

    def citation(self) -> str:
        return f"{self.source} {self.published[:4]}"


CATALOGUE = {
    "stub-rowid": StubEvidence(
        "stub-rowid", "Hidden row ids slow inserts", "https://example.org/rowid", "Example Lab", "2013-05-01"
    ),
}


REAL_LOAD_CATALOGUE = schemacite.evidence.load_catalogue
REAL_READ_CATALOGUE = schemacite.evidence.read_catalogue


@pytest.fixture(autouse=True)
def stub_catalogue(monkeypatch):
    # the reporters read the catalogue a run reads (read_catalogue); the commands the whole of it
    monkeypatch.setattr(schemacite.evidence, "load_catalogue", lambda: CATALOGUE)
    monkeypatch.setattr(schemacite.evidence, "read_catalogue", lambda: CATALOGUE)


def make_finding(rule: type[Rule], file: str, line: int, table: str, sql: str = "", **kw) -> Finding:
    f = rule().finding(Location(file, line, 1 if line else 0), table=table, sql=sql, **kw)
    if not f.evidence:  # what the engine adds to a finding that cites no measurement
        f.evidence_note = rule.why_unmeasured("postgres")
    return f


@pytest.fixture
def result() -> LintResult:
    return LintResult(
        findings=[
            make_finding(
                KeylessTable,
                "migrations/001_init.sql",
                3,
                "events",
                sql="CREATE TABLE events (id int, payload json)",
                suggestion="Add a primary key.",
            ),
            make_finding(
                BlockingIndex,
                "migrations/002_idx.sql",
                5,
                "orders",
                sql="CREATE INDEX orders_created ON orders (created_at)",
                suggestion="Use CREATE INDEX CONCURRENTLY.",
            ),
            make_finding(KeylessTable, "mysql://db.example/shop", 0, "audit_log", severity=Severity.INFO),
        ],
        suppressed=[
            make_finding(KeylessTable, "migrations/001_init.sql", 10, "scratch", sql="CREATE TABLE scratch (v text)"),
        ],
        errors=[ParseError("migrations/003_bad.sql", 7, "unexpected token ')'")],
        rules=[KeylessTable.info(), BlockingIndex.info()],
        files=[
            "migrations/001_init.sql",
            "migrations/002_idx.sql",
            "migrations/003_bad.sql",
            "migrations/004_clean.sql",
            "mysql://db.example/shop",
        ],
        statements=6,
    )


def render(reporter: type, result: LintResult) -> str:
    out = io.StringIO()
    reporter().render(result, out)
    return out.getvalue()


# --- registration -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fmt, cls",
    [
        ("sarif", sarif.SarifReporter),
        ("github", github.GithubReporter),
        ("gitlab", gitlab.GitlabReporter),
        ("junit", junit.JunitReporter),
    ],
)
def test_reporters_register_through_the_hook(fmt, cls):
    pm = plugin_manager(load_entrypoints=False)  # the built-in formats answer through report/builtin.py
    assert pm.hook.schemacite_reporter(format=fmt) is cls
    assert pm.hook.schemacite_reporter(format="nope") is None
    assert cls.format == fmt and cls.human is False


# --- SARIF ------------------------------------------------------------------------------


def test_schema_copy_is_the_oasis_sarif_2_1_0_schema():
    """The vendored copy is byte for byte the OASIS errata01 schema (the one in ../shared/schemas)."""
    import hashlib

    assert hashlib.sha256(SARIF_SCHEMA.read_bytes()).hexdigest() == (
        "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
    )
    doc = json.loads(SARIF_SCHEMA.read_text())
    assert doc["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def sarif_doc(result: LintResult) -> dict:
    doc = json.loads(render(sarif.SarifReporter, result))
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(doc)
    return doc


def test_sarif_validates_and_describes_tool_and_rules(result):
    run = sarif_doc(result)["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "schemacite" and driver["version"] == schemacite.__version__
    assert driver["informationUri"].startswith("https://")
    keyless, blocking = driver["rules"]
    assert keyless["id"] == "SC901" and keyless["name"] == "keyless-table"
    assert keyless["shortDescription"]["text"] == "Table has no key to cluster on."
    assert keyless["helpUri"] == KeylessTable.url()
    assert keyless["defaultConfiguration"]["level"] == "warning"
    assert blocking["defaultConfiguration"]["level"] == "error"
    help_md = keyless["help"]["markdown"]
    assert help_md.startswith("Table has no key to cluster on.")
    assert "## What it does" in help_md and "## Evidence" in help_md
    assert "[Hidden row ids slow inserts](https://example.org/rowid)" in help_md and "Example Lab 2013" in help_md
    assert keyless["fullDescription"]["text"] in help_md and "## " not in keyless["fullDescription"]["text"]
    # each record once, short, in the run's table; rules cite it by id
    assert keyless["properties"]["evidence"] == ["stub-rowid"]
    assert run["properties"]["evidence"] == {
        "stub-rowid": {
            "id": "stub-rowid",
            "title": "Hidden row ids slow inserts",
            "url": "https://example.org/rowid",
            "source": "Example Lab",
            "published": "2013-05-01",
        }
    }
    assert keyless["help"]["text"] == f"Table has no key to cluster on. {KeylessTable.url()}"
    assert blocking["properties"]["evidence"] == []
    assert "documented behaviour, not measured" in blocking["help"]["markdown"]


def test_sarif_results(result):
    run = sarif_doc(result)["runs"][0]
    results = run["results"]
    assert len(results) == 4  # 3 findings + 1 suppressed
    by_table = {r["properties"]["table"]: r for r in results}

    events = by_table["events"]
    assert events["ruleId"] == "SC901" and run["tool"]["driver"]["rules"][events["ruleIndex"]]["id"] == "SC901"
    assert events["level"] == "warning"
    assert events["message"]["text"] == "Table events has no primary key. Add a primary key."
    phys = events["locations"][0]["physicalLocation"]
    assert phys["artifactLocation"]["uri"] == "migrations/001_init.sql"
    assert phys["region"] == {"startLine": 3, "startColumn": 1}
    assert events["partialFingerprints"] == {sarif.FINGERPRINT_KEY: fingerprint(result.findings[0])}
    assert events["properties"]["evidence"] == ["stub-rowid"]
    assert "suppressions" not in events

    assert by_table["orders"]["level"] == "error" and by_table["orders"]["ruleIndex"] == 1

    server = by_table["audit_log"]
    assert server["level"] == "note"
    assert "physicalLocation" not in server["locations"][0]
    logical = server["locations"][0]["logicalLocations"][0]
    assert logical["name"] == "audit_log" and logical["fullyQualifiedName"] == "mysql://db.example/shop/audit_log"

    assert by_table["scratch"]["suppressions"] == [{"kind": "inSource"}]


def test_sarif_parse_errors_are_notifications(result):
    invocation = sarif_doc(result)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and note["message"]["text"] == "unexpected token ')'"
    phys = note["locations"][0]["physicalLocation"]
    assert phys["artifactLocation"]["uri"] == "migrations/003_bad.sql" and phys["region"] == {"startLine": 7}


def test_sarif_with_the_real_catalogue(monkeypatch):
    monkeypatch.setattr(schemacite.evidence, "load_catalogue", REAL_LOAD_CATALOGUE)
    monkeypatch.setattr(schemacite.evidence, "read_catalogue", REAL_READ_CATALOGUE)

    class RealCite(KeylessTable):
        """Cites a real catalogue entry."""

        code = "SC903"
        evidence = ("percona-2013-hidden-rowid",)

    f = make_finding(RealCite, "m/001.sql", 1, "t", sql="CREATE TABLE t (v int)")
    run = sarif_doc(LintResult(findings=[f], rules=[RealCite.info()]))["runs"][0]
    rule = run["tool"]["driver"]["rules"][0]
    (cited,) = rule["properties"]["evidence"]
    record = run["properties"]["evidence"][cited]
    full = REAL_LOAD_CATALOGUE()["percona-2013-hidden-rowid"].as_dict()
    assert record == {
        **{k: full[k] for k in ("id", "kind", "title", "source", "published", "url", "applies_to")},
        "setup": {"server": full["setup"]["server"]},
    }
    assert "figures" not in record  # `schemacite evidence show ID` has them
    help_md = rule["help"]["markdown"]
    assert f"- `percona-2013-hidden-rowid`: [{full['title']}]({full['url']}) (Percona 2013 · MySQL 5.5" in help_md


def test_sarif_clean_run_and_unlisted_rule():
    clean = sarif_doc(LintResult(rules=[KeylessTable.info()], files=["a.sql"]))
    assert clean["runs"][0]["invocations"][0]["executionSuccessful"] is True
    assert clean["runs"][0]["results"] == []
    # a rule is described only when it produced a result
    assert clean["runs"][0]["tool"]["driver"]["rules"] == [] and clean["runs"][0]["properties"]["evidence"] == {}

    stray = Finding(
        rule="unused-ignore",
        code="SC000",
        severity=Severity.WARNING,
        location=Location("a b.sql", 2, 0),
        message="unused ignore",
        url="https://example.org/x",
    )
    doc = sarif_doc(LintResult(findings=[stray], rules=[KeylessTable.info()]))
    run = doc["runs"][0]
    res = run["results"][0]
    assert run["tool"]["driver"]["rules"][res["ruleIndex"]]["id"] == "SC000"
    phys = res["locations"][0]["physicalLocation"]
    assert phys["artifactLocation"]["uri"] == "a%20b.sql" and phys["region"] == {"startLine": 2}


# --- GitHub -----------------------------------------------------------------------------

COMMAND = re.compile(r"^::(?P<cmd>error|warning|notice)(?: (?P<props>[^:]*))?::(?P<msg>.*)$")


def unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    m = COMMAND.match(line)
    assert m, line
    props = {}
    for part in (m["props"] or "").split(","):
        if part:
            key, value = part.split("=", 1)
            props[key] = unescape(value)
    return m["cmd"], props, unescape(m["msg"])


def test_github_lines(result):
    lines = render(github.GithubReporter, result).splitlines()
    assert len(lines) == 4  # 1 parse error + 3 findings, suppressed left out
    parsed = [parse_command(line) for line in lines]
    cmd, props, msg = parsed[0]
    assert cmd == "error" and props == {"file": "migrations/003_bad.sql", "line": "7", "title": "parse error"}
    cmd, props, msg = next(p for p in parsed if p[1].get("file") == "migrations/001_init.sql")
    assert cmd == "warning"
    assert props == {"file": "migrations/001_init.sql", "line": "3", "col": "1", "title": "SC901 keyless-table"}
    assert msg == (
        f"Table events has no primary key. Add a primary key. (evidence: stub-rowid; see {KeylessTable.url()})"
    )
    cmd, props, msg = next(p for p in parsed if p[1].get("file") == "migrations/002_idx.sql")
    assert cmd == "error" and "evidence: none; no measurement: documented behaviour, not measured" in msg
    cmd, props, msg = next(p for p in parsed if "file" not in p[1])
    assert cmd == "notice" and msg.startswith("mysql://db.example/shop audit_log: Table audit_log")


def test_github_escaping():
    f = Finding(
        rule="r",
        code="SC1",
        severity=Severity.WARNING,
        location=Location("odd,dir/a:b.sql", 4, 2),
        message="100% sure\r\nsecond: line, really",
        url="",
    )
    line = github.finding_line(f)
    assert "\n" not in line and "\r" not in line
    assert line.startswith(
        "::warning file=odd%2Cdir/a%3Ab.sql,line=4,col=2,title=SC1 r::100%25 sure%0D%0Asecond: line, really"
    )
    cmd, props, msg = parse_command(line)
    assert props["file"] == "odd,dir/a:b.sql" and msg.startswith("100% sure\r\nsecond: line, really")


# --- GitLab -----------------------------------------------------------------------------


def test_gitlab_code_quality(result):
    issues = json.loads(render(gitlab.GitlabReporter, result))
    assert len(issues) == 4
    for issue in issues:
        assert {"description", "check_name", "fingerprint", "severity", "location"} <= issue.keys()
        assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
        assert issue["location"]["lines"]["begin"] >= 1 and issue["location"]["path"]
    by_check = {i["check_name"]: i for i in issues if i["check_name"] != "keyless-table"}
    keyless = [i for i in issues if i["check_name"] == "keyless-table"]
    events = next(i for i in keyless if i["location"]["path"] == "migrations/001_init.sql")
    assert events["severity"] == "minor" and events["fingerprint"] == fingerprint(result.findings[0])
    assert events["location"]["lines"]["begin"] == 3
    assert "stub-rowid" in events["description"] and KeylessTable.url() in events["description"]
    server = next(i for i in keyless if i["location"]["path"].startswith("mysql://"))
    assert server["severity"] == "info" and server["location"]["lines"]["begin"] == 1
    assert by_check["blocking-index"]["severity"] == "major"
    assert by_check["parse-error"]["severity"] == "critical"
    assert len({i["fingerprint"] for i in issues}) == len(issues)


def test_gitlab_duplicate_findings_get_distinct_fingerprints():
    f = make_finding(KeylessTable, "a.sql", 1, "t", sql="CREATE TABLE t (v int)")
    issues = gitlab.issues(LintResult(findings=[f, replace(f, location=Location("a.sql", 9, 1))]))
    assert issues[0]["fingerprint"] == fingerprint(f)
    assert issues[1]["fingerprint"] != issues[0]["fingerprint"]


# --- JUnit ------------------------------------------------------------------------------


def test_junit(result):
    root = ET.fromstring(render(junit.JunitReporter, result))
    suite = root.find("testsuite")
    assert suite.get("name") == "schemacite"
    cases = suite.findall("testcase")
    failures = [c for c in cases if c.find("failure") is not None]
    errors = [c for c in cases if c.find("error") is not None]
    skipped = [c for c in cases if c.find("skipped") is not None]
    passed = [c for c in cases if len(c) == 0]
    advice = [c for c in cases if c.find("properties") is not None]  # info: passing, with its finding
    for node in (root, suite):
        assert int(node.get("tests")) == len(cases) == 3 + 1 + 1 + 1
        assert int(node.get("failures")) == len(failures) == 2
        assert int(node.get("errors")) == len(errors) == 1
        assert int(node.get("skipped")) == len(skipped) == 1
    assert [c.get("classname") for c in passed] == ["migrations/004_clean.sql"]
    (info,) = advice
    props = {p.get("name"): p.get("value") for p in info.find("properties")}
    assert props == {"rule": "keyless-table", "code": "SC901", "severity": "info"} and info.find("failure") is None
    assert info.get("name") == "SC901 keyless-table: audit_log" and "audit_log" in info.find("system-out").text

    events = next(c for c in failures if c.get("classname") == "migrations/001_init.sql")
    assert events.get("name") == "SC901 keyless-table: events @ 3"
    failure = events.find("failure")
    assert failure.get("type") == "keyless-table" and failure.get("message") == "Table events has no primary key"
    assert "Add a primary key." in failure.text and "stub-rowid" in failure.text and KeylessTable.url() in failure.text
    assert errors[0].get("classname") == "migrations/003_bad.sql" and errors[0].get("name") == "parse error @ 7"


def test_junit_clean_run_is_not_empty():
    root = ET.fromstring(render(junit.JunitReporter, LintResult(files=["a.sql", "b.sql"])))
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "0", "0")


# --- fingerprints -----------------------------------------------------------------------


def test_fingerprint_ignores_line_and_formatting_but_not_table_or_rule():
    base = make_finding(KeylessTable, "m/001.sql", 3, "events", sql="CREATE TABLE events (id int)")
    assert fingerprint(base) == fingerprint(replace(base, location=Location("m/001.sql", 40, 5)))
    assert fingerprint(base) == fingerprint(replace(base, sql="create table   events\n(id INT);"))
    assert fingerprint(base) != fingerprint(replace(base, table="orders"))
    assert fingerprint(base) != fingerprint(replace(base, code="SC902"))
    assert fingerprint(base) != fingerprint(replace(base, location=Location("m/002.sql", 3, 1)))
    assert fingerprint(base) != fingerprint(replace(base, sql="CREATE TABLE events (id bigint)"))
    assert re.fullmatch(r"[0-9a-f]{64}", fingerprint(base))


# --- baseline ---------------------------------------------------------------------------


def three_findings() -> list[Finding]:
    return [
        make_finding(KeylessTable, "m/001.sql", 3, "events", sql="CREATE TABLE events (id int)"),
        make_finding(KeylessTable, "m/001.sql", 9, "logs", sql="CREATE TABLE logs (v text)"),
        make_finding(BlockingIndex, "m/002.sql", 2, "orders", sql="CREATE INDEX o ON orders (a)"),
    ]


def test_baseline_round_trip_survives_line_shifts(tmp_path):
    path = tmp_path / "baseline.json"
    assert write_baseline(path, three_findings()) == 3
    doc = json.loads(path.read_text())
    assert doc["version"] == 1
    entries = doc["findings"]
    assert [set(e) for e in entries] == [{"fingerprint", "rule", "code", "file", "table", "message"}] * 3
    assert entries == sorted(entries, key=lambda e: (e["file"], e["code"], e["table"], e["fingerprint"]))
    assert path.read_text().count("\n") > 3  # indented, one field per line, for review

    shifted = [replace(f, location=Location(f.location.file, f.location.line + 12, 1)) for f in three_findings()]
    new = make_finding(KeylessTable, "m/003.sql", 1, "metrics", sql="CREATE TABLE metrics (v int)")
    remaining, matched = filter_new([*shifted, new], path)
    assert remaining == [new] and matched == 3


def test_baseline_counts_duplicates(tmp_path):
    path = tmp_path / "baseline.json"
    f = three_findings()[0]
    write_baseline(path, [f, f])
    remaining, matched = filter_new([f, f, f], path)
    assert matched == 2 and len(remaining) == 1


def test_baseline_rejects_foreign_files(tmp_path):
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"version": 99, "findings": []}))
    with pytest.raises(BaselineError, match="version"):
        filter_new([], path)
    path.write_text("[]")
    with pytest.raises(BaselineError):
        filter_new([], path)


# --- statistics -------------------------------------------------------------------------


def test_statistics_ordering():
    findings = three_findings() + [make_finding(BlockingIndex, "m/004.sql", 1, "x")]
    # two each: tie broken by code
    assert statistics_lines(findings) == ["2\tSC901\tkeyless-table", "2\tSC902\tblocking-index"]
    findings.append(make_finding(BlockingIndex, "m/005.sql", 1, "y"))
    assert statistics_lines(findings) == ["3\tSC902\tblocking-index", "2\tSC901\tkeyless-table"]
    assert statistics_json(findings) == [
        {"code": "SC902", "name": "blocking-index", "count": 3},
        {"code": "SC901", "name": "keyless-table", "count": 2},
    ]
    assert statistics_lines([]) == []


# --- pytest plugin ----------------------------------------------------------------------


def test_plugin_import_is_light():
    code = (
        "import sys, schemacite.pytest_plugin; "
        "print(sorted(m for m in sys.modules if m.startswith(('schemacite.', 'sqlglot', 'rich'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['schemacite.pytest_plugin']"


@pytest.fixture
def fake_lint(monkeypatch):
    calls = []

    def lint_paths(paths, config_path=None):
        calls.append((paths, config_path))
        base = Path(paths[0])
        return LintResult(
            findings=[
                make_finding(KeylessTable, str(base / "001_init.sql"), 2, "events", suggestion="Add a primary key."),
                make_finding(KeylessTable, str(base / "002_more.sql"), 1, "notes", severity=Severity.INFO),
            ],
            files=[str(base / n) for n in ("001_init.sql", "002_more.sql", "003_ok.sql")],
        )

    monkeypatch.setattr(schemacite, "lint_paths", lint_paths)
    return calls


def make_migrations(pytester) -> None:
    folder = pytester.mkdir("migrations")
    for name in ("001_init.sql", "002_more.sql", "003_ok.sql"):
        (folder / name).write_text("CREATE TABLE t (v int);\n")
    pytester.makepyfile(test_unit="def test_ok():\n    pass\n")


def test_plugin_off_collects_nothing(pytester, fake_lint):
    make_migrations(pytester)
    result = pytester.runpytest_inprocess(*QUIET)
    result.assert_outcomes(passed=1)
    assert fake_lint == []


def test_plugin_flag_lints_each_file(pytester, fake_lint):
    make_migrations(pytester)
    result = pytester.runpytest_inprocess("--schemacite", *QUIET, "test_unit.py")
    # the unit test plus one item per migration, added though only test_unit.py was named
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "migrations/001_init.sql:2:1: SC901 keyless-table [[]warning] Table events has no primary key",
            "*suggestion: Add a primary key.",
            "*evidence: stub-rowid (Example Lab 2013)",
            "*schemacite: 1 finding",
        ]
    )
    assert len(fake_lint) == 1  # linted once for all files
    result = pytester.runpytest_inprocess("--schemacite", "--schemacite-fail-on", "info", *QUIET)
    result.assert_outcomes(passed=2, failed=2)
    result = pytester.runpytest_inprocess("--schemacite", "-m", "not schemacite", *QUIET)
    result.assert_outcomes(passed=1, deselected=3)


def test_plugin_config_enables_and_picks_paths(pytester, fake_lint):
    make_migrations(pytester)
    other = pytester.mkdir("db")
    (other / "010_x.sql").write_text("CREATE TABLE x (v int);\n")
    pytester.makepyprojecttoml('[tool.schemacite]\npytest = true\npytest_paths = ["db"]\nfail_on = "error"\n')
    result = pytester.runpytest_inprocess(*QUIET)
    result.assert_outcomes(passed=2)  # test_ok + db/010_x.sql
    paths, config_path = fake_lint[0]
    assert paths == [str(pytester.path / "db")]
    assert config_path == str(pytester.path / "pyproject.toml")
    result.stdout.fnmatch_lines(["schemacite: 1 SQL files from db (fail on error)"])
