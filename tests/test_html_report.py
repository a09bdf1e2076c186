"""`--format html`: one self-contained page, checked as text and in a real browser.

The first tests render a modelled catalog (no server): what the page says, that every name from a
catalog is escaped, that it refers to nothing outside itself, the cap on the tables it lists, a
fix when a finding carries one. The browser tests audit real throwaway servers (servers.py), with
table names that are markup, and open the page in headless Chromium (browser.py): nothing in the
console, every finding and table in the rendered text, plots of non-zero size, no dialog opened by
a name, sorting with JavaScript and a plain table without it, no sideways scrolling at phone
width, the print stylesheet; at desktop and phone width, plots whose every text is readable, inside
its plot and clear of the others, and a lint page whose plots would place nothing of the project
opening on its findings. One Chromium serves the module. Screenshots go to tests/artifacts/
(browser.ARTIFACTS, ignored by git) for a person to look at.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

import markupsafe
import pytest

import browser
from cli import run
from schemacite.cli.audit import audit_readings
from schemacite.evidence import load_catalogue, rate_for
from schemacite.lint.config import load_config
from schemacite.live import servers as audit
from schemacite.locks.duration import human_seconds
from schemacite.model import Column, Index, Location, Schema, Table, Workload
from schemacite.model.dialects import Dialect, Target
from schemacite.model.fixes import Applicability, Fix
from schemacite.model.record import replace
from schemacite.model.results import LintResult
from schemacite.report import html as html_report
from schemacite.report.html import INDEX_BUILD, REWRITE

EVIL = "<script>alert(1)</script>"
EVIL_IMG = "<img src=x onerror=alert(2)>"
SINCE, READ = "2026-11-01T00:00:00Z", "2026-11-27T10:00:00Z"
ROOT = Path(__file__).resolve().parents[1]
DEMO = sorted(str(p) for p in (ROOT / "fixtures/demo/postgres/migrations").glob("00000[2-4]_*.up.sql"))


def _table(name: str, secondary: int, rows: int, inserts: int, reads: int, scans: int = 0, *, where: Location) -> Table:
    return Table(
        name=name,
        schema="app",
        columns={"id": Column("id", "bigint", nullable=False), **{f"c{n}": Column(f"c{n}", "int") for n in range(5)}},
        primary_key=Index(f"{name}_pkey", ("id",), unique=True, primary=True, scans=10, bytes=rows * 20),
        indexes=[Index(f"{name}_c{n}", (f"c{n}",), scans=scans, bytes=rows * 24 + n) for n in range(secondary)],
        rows=rows,
        bytes=rows * 100,
        workload=Workload(inserts=inserts, reads=reads, since=SINCE, sampled_at=READ, source="pg_stat_user_tables"),
        defined_at=where,
    )


def _reading(url: str, tables: list[tuple]) -> audit.Reading:
    target = audit.parse_dsn(url)
    where = Location(f"{target.server}/app")
    schema = Schema("postgres", origin=target.server)
    for spec in tables:
        t = _table(*spec, where=where)
        schema.tables[t.qualified_name] = t
    return audit.Reading(target, schema, Dialect.POSTGRES, Target.parse("postgres-15"), "PostgreSQL 15.8", read_at=READ)


def modelled_audit(*readings: audit.Reading) -> LintResult:
    result = audit_readings(list(readings), load_config(None, {"dialect": "postgres"}))
    result.command = "schemacite audit --format html -o report.html " + " ".join(r.target.masked for r in readings)
    return result


SHOP = [
    ("events", 3, 2_000_000, 900_000, 1_000),  # insert-heavy, three unused indexes
    (EVIL, 2, 50_000, 20_000, 0),  # insert-heavy, named to run a script if it were not escaped
    ("accounts", 1, 80_000, 100, 500_000, 7),  # read-heavy; its index is read
]


def render(result: LintResult) -> str:
    out = io.StringIO()
    html_report.HtmlReporter().render(result, out)
    return out.getvalue()


def test_every_catalog_name_is_text_and_the_page_fetches_nothing():
    page = render(modelled_audit(_reading("postgresql://ro:s3cret@db1:5432/shop", SHOP)))
    assert EVIL not in page and html.escape(EVIL, quote=False) in page
    assert "s3cret" not in page and "postgresql://ro:***@db1:5432/shop" in page
    # one script, ours, allowed by its hash and nothing else; no other source of anything
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", page, re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    (policy,) = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert html.unescape(policy) == (
        f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-{digest}'"
    )
    # an <a href> is a link the reader may follow; any other reference is something the page would fetch
    assert not re.search(r"<(?!a\b)[a-z]+\b[^>]*\s(?:src|href|xlink:href)\s*=\s*[\"']?(?![\"'#]|data:)", page, re.I)
    assert not re.search(r"@import|url\(\s*[\"']?(?![\"'#]|data:)", page)
    assert "<!--" not in page  # pygal's comments (its home page's address among them) are taken out


def test_the_page_says_what_was_audited_and_what_was_found():
    result = modelled_audit(_reading("postgresql://ro@db1:5432/shop", SHOP))
    page = render(result)
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
    assert "postgresql://ro@db1:5432/shop: PostgreSQL 15.8 (rules for postgres-15); schema app; 3 tables" in text
    assert f"counters (pg_stat_user_tables) count since {SINCE}" in text
    assert result.command in text
    anchors = dict(re.findall(r'<dt id="(e\d+)">(?:<a href="[^"]*">)?([^<\s]+)', page))  # the evidence section
    for f in result.findings:
        assert str(markupsafe.escape(f.message)) in page  # as the template escapes it, quotes included
        assert f.evidence and all(i in anchors.values() for i in f.evidence)
    for target, label in re.findall(r'<a href="#(e\d+)">([^<]+)</a>', page):
        assert anchors[target] == label  # every citation leads to its record
    counts = {s: sum(1 for f in result.findings if str(f.severity) == s) for s in ("error", "warning", "info")}
    assert counts["warning"] >= 5  # SC102 on events, SC107 on five unused indexes of insert-heavy tables
    for sev, n in counts.items():
        assert f'<span class="sev {sev}">{sev}</span> <b>{n}</b>' in page
    # tables by size: the largest first, with the time a rewrite would hold its lock at the measured rate
    rows = re.findall(r"<tr(?: class=\"heavy\")?><td>([^<]*)</td>", page)
    assert rows == ["app.events", "app.accounts", "app." + html.escape(EVIL, quote=False)]
    assert '<tr class="heavy"><td>app.events</td><td class="n" data-v="2000000">2,000,000</td>' in page
    # 200 MB at the rates measured on PostgreSQL 15: a rewrite, then an index build
    times = [
        200_000_000 / rate_for(q, "postgres", Target.parse("postgres-15"), load_catalogue())[0]
        for q in (REWRITE, INDEX_BUILD)
    ]
    assert (
        "".join(f'<td class="n" data-v="{s:.3g}">{human_seconds(s).removeprefix("about ")}</td>' for s in times) in page
    )
    # the three plots, each naming the records it draws
    for key, record in (("1a", "secondary-indexes"), ("1b", "lock-durations")):
        figure = page.split(f'<figure id="plot-{key}"')[1].split("</figure>")[0]
        assert re.search(rf'Drawn from <a href="#e\d+">schemacite-2026-pg15-{record}</a>', figure)
    figure = page.split('<figure id="plot-1c"')[1].split("</figure>")[0]
    assert "app.events.events_c0: 48 MB" in figure and "Drawn from" in figure


def test_several_servers_give_one_page_with_a_summary_each():
    result = modelled_audit(
        _reading("postgresql://ro@db1:5432/shop", SHOP), _reading("postgresql://ro@db2:5432/shop", SHOP[:1])
    )
    page = render(result)
    summary = page.split('<section id="servers">')[1].split("</section>")[0]
    assert summary.count("<tr><td>") == 2 and 'href="#s1"' in summary and 'href="#s2"' in summary
    assert page.count('class="server"') == 2
    second = page.split('id="s2"')[1]
    assert "events" in second and "accounts" not in second.split('id="evidence"')[0]
    assert len(set(re.findall(r'id="([^"]+)"', page))) == len(re.findall(r'id="([^"]+)"', page))  # ids unique


def test_tables_beyond_the_cap_are_counted_not_listed(monkeypatch):
    monkeypatch.setattr(html_report, "TABLES_SHOWN", 2)
    page = render(modelled_audit(_reading("postgresql://ro@db1:5432/shop", SHOP)))
    assert "The largest 2 of 3 tables" in page
    assert (
        "<td>app.accounts</td>" in page
        and "<td>app.events</td>" in page
        and "alert(1)" not in page.split("largest 2")[1].split("</table>")[0]
    )


def test_a_fix_is_shown_with_its_applicability():
    result = modelled_audit(_reading("postgresql://ro@db1:5432/shop", SHOP))
    template = "ALTER TABLE app.events ADD COLUMN n bigint; -- then <backfill>"
    result.findings = [
        replace(result.findings[0], fix=Fix("Build the index CONCURRENTLY", Applicability.SAFE)),
        replace(result.findings[1], fix=Fix("Add, backfill", Applicability.DISPLAY_ONLY, template=template)),
    ]
    page = render(result)
    assert "<b>Fix (safe):</b> Build the index CONCURRENTLY" in page
    assert f"<b>Fix (display-only):</b> Add, backfill</p>\n<pre><code>{html.escape(template)}</code></pre>" in page


def test_lint_gets_the_same_page(capsys, tmp_path):
    out = tmp_path / "lint.html"
    code, stdout, _ = run(capsys, "lint", "--format", "html", "-o", out, *DEMO)
    assert code == 1 and stdout.startswith("3 errors, 6 warnings in 3 file(s)")
    page = out.read_text()
    assert page.startswith("<!doctype html>") and "schemacite lint report" in page
    assert "No table's size or activity is known: lint against a snapshot" in page
    assert '<figure id="plot-1a"' in page and "page_views: 3 secondary indexes" in page  # listed in insert_heavy
    code, stdout, _ = run(capsys, "lint", "--format", "html", *DEMO)  # no -o: the page on standard output
    assert code == 1 and stdout.startswith("<!doctype html>") and stdout.rstrip().endswith("</html>")


# ================================================================ real servers, in the browser

PG_SCHEMA = f"""
CREATE SCHEMA app;
CREATE TABLE app.events (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, account_id int, kind int, created date);
CREATE INDEX events_account ON app.events (account_id);
CREATE INDEX events_kind ON app.events (kind);
CREATE INDEX events_created ON app.events (created);
CREATE TABLE app."{EVIL}" (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, page int, at date);
CREATE INDEX "<b>by page</b>" ON app."{EVIL}" (page);
CREATE TABLE app.accounts (id int PRIMARY KEY, email text NOT NULL UNIQUE, name text);
CREATE INDEX accounts_name ON app.accounts (name);
CREATE TABLE app.no_pk (a int, b int);
"""

MARIA_SCHEMA = [
    "CREATE TABLE accounts (id int NOT NULL PRIMARY KEY, email varchar(100) NOT NULL, UNIQUE KEY uk_email (email))",
    (
        "CREATE TABLE events (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, account_id int, kind int, created date,"
        " KEY k_account (account_id), KEY k_kind (kind), KEY k_created (created))"
    ),
    f"CREATE TABLE `{EVIL_IMG}` (a int, b int)",  # no primary key: SC101 names it
    (
        "CREATE TABLE orders (id int NOT NULL AUTO_INCREMENT PRIMARY KEY, account_id int NOT NULL,"
        " CONSTRAINT orders_account FOREIGN KEY (account_id) REFERENCES accounts (id))"
    ),
]


@pytest.fixture(scope="module")
def audited(pg_server, mariadb_server, tmp_path_factory):
    """Two servers with problems, traffic and names that are markup; the audit of both as one page."""
    from test_audit import _maria_exec, _maria_traffic, _pg_copy, _pg_traffic

    pg = pg_server.create_database("html_pg")
    with pg_server.connect(pg) as conn:
        conn.execute(PG_SCHEMA)
        _pg_traffic(conn, "app.events", ("account_id", "created", "kind"), 20_000)
        _pg_traffic(conn, f'app."{EVIL}"', ("page", "at"), 12_000)
        _pg_copy(conn, "app.accounts", ["id", "email", "name"], ((i, f"u{i}@x.example", f"n{i}") for i in range(200)))
        for i in range(0, 200, 2):
            conn.execute("SELECT * FROM app.accounts WHERE id = %s", (i,)).fetchall()
        conn.execute("VACUUM ANALYZE")  # rows: the statistics' count (sizes are the files' own)
        conn.execute("SELECT pg_stat_force_next_flush()")
    maria = mariadb_server.create_database("html_maria")
    _maria_exec(mariadb_server, maria, *MARIA_SCHEMA)
    _maria_traffic(mariadb_server, maria, "events", ("account_id", "created", "kind"), 20_000)
    _maria_exec(mariadb_server, maria, many=("INSERT INTO accounts VALUES (%s, %s)", [(i, f"u{i}") for i in range(50)]))
    _maria_exec(mariadb_server, maria, many=("INSERT INTO orders (account_id) VALUES (%s)", [(i,) for i in range(50)]))
    _maria_exec(mariadb_server, maria, f"INSERT INTO `{EVIL_IMG}` VALUES (1, 1)", "ANALYZE TABLE events, orders")
    urls = [pg_server.dsn(pg), mariadb_server.dsn(maria)]
    page = tmp_path_factory.mktemp("html") / "report.html"
    tables = [
        t.qualified_name for url in urls for t in audit.read_target(audit.parse_dsn(url), []).schema.tables.values()
    ]
    return SimpleNamespace(urls=urls, page=page, tables=tables)


@pytest.fixture(scope="module")
def chrome():
    """One headless Chromium for the module's browser tests; each leaves it at desktop width, on
    screen media, with scripts on."""
    with browser.chromium(1280, 900) as driver:
        yield driver


# What a reader would see as broken in a plot: a text too small to read or oversized, a text running
# out of its plot, two texts drawn over each other (axis labels, point labels, the legend, the
# title), a percentage past 100 on an axis.
PLOT_PROBLEMS = """
const problems = [];
const apart = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) <= 1
  || Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) <= 1;
for (const figure of document.querySelectorAll('figure.plot')) {
  const svg = figure.querySelector('svg'), box = svg.getBoundingClientRect();
  const outer = figure.getBoundingClientRect();
  if (box.left < outer.left - 0.5 || box.right > outer.right + 0.5) problems.push(`${figure.id}: wider than its figure`);
  const scale = box.width / svg.viewBox.baseVal.width;  // the SVG's units to the page's pixels
  const texts = [...svg.querySelectorAll('text')]
    .map((t) => [t.textContent.trim(), t.getBoundingClientRect(), parseFloat(getComputedStyle(t).fontSize) * scale])
    .filter(([text, r]) => text && r.width > 0);
  for (const [text, r, px] of texts) {
    if (px < 8.5 || px > 22) problems.push(`${figure.id}: "${text}" is drawn at ${px.toFixed(1)} px`);
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
      problems.push(`${figure.id}: "${text}" runs out of the plot`);
  }
  texts.forEach(([a, ra], i) => texts.slice(i + 1).forEach(([b, rb]) => {
    if (!apart(ra, rb)) problems.push(`${figure.id}: "${a}" and "${b}" overlap`);
  }));
  for (const t of svg.querySelectorAll('.axis text')) {
    const m = t.textContent.trim().match(/^(\\d+(?:\\.\\d+)?) ?%$/);
    if (m && Number(m[1]) > 100) problems.push(`${figure.id}: an axis reaches ${t.textContent}`);
  }
}
return problems;
"""


def look_at(driver, page: Path, name: str) -> dict[int, list[str]]:
    """Open `page` at desktop and phone width, keep a screenshot of each, and return what is wrong
    with its plots at each width."""
    seen = {}
    for width in (1280, 390):
        browser.resize(driver, width, 900)
        driver.get(page.as_uri())
        seen[width] = driver.execute_script(PLOT_PROBLEMS)
        height = driver.execute_script("return document.documentElement.scrollHeight")
        browser.resize(driver, width, min(height, 6000))
        browser.keep(f"{name}-{width}.png", driver.get_screenshot_as_png())
    browser.resize(driver, 1280, 900)
    return seen


def test_audit_page_in_chromium(capsys, audited, chrome):
    import json

    code, out, err = run(capsys, "audit", "--format", "json", *audited.urls)
    assert code == 1, err
    findings = json.loads(out)["findings"]
    code, out, err = run(capsys, "audit", "--format", "html", "-o", audited.page, *audited.urls)
    assert code == 1 and out.endswith("in " + ", ".join(audited.urls) + ".\n"), err
    page = audited.page.read_text()
    browser.keep("html-report-audit.html", page.encode())
    assert EVIL not in page and EVIL_IMG not in page
    assert {f["code"] for f in findings} >= {"SC101", "SC102", "SC107"}

    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    driver = chrome
    browser.console(driver)  # what earlier pages logged
    try:
        driver.get(audited.page.as_uri())
        assert browser.console(driver) == []  # no script error, no refused source, no failed fetch
        with pytest.raises(NoAlertPresentException):
            driver.switch_to.alert  # noqa: B018 - a name that ran as a script would have opened one
        text = driver.find_element(By.TAG_NAME, "body").text
        for f in findings:
            assert f["message"] in text
        for name in audited.tables:
            assert name in text, name
        assert EVIL in text and EVIL_IMG in text  # shown as written
        assert driver.execute_script("return document.scripts.length") == 1
        plots = driver.find_elements(By.CSS_SELECTOR, "figure.plot svg")
        keys = [p.find_element(By.XPATH, "..").get_attribute("id") for p in plots]
        assert {"plot-1a", "plot-1b", "plot-2a", "plot-2b", "plot-2c", "plot-1c"} <= set(keys)
        for svg in plots:
            assert svg.size["width"] > 200 and svg.size["height"] > 100
            assert svg.find_elements(By.CSS_SELECTOR, "path, rect")  # something drawn in it
        # sorting: the size column of the PostgreSQL tables, largest first, then smallest first
        table = driver.find_element(By.ID, "s1-table")
        header = table.find_elements(By.CSS_SELECTOR, "thead th")[2]
        for order in ("descending", "ascending"):
            header.find_element(By.TAG_NAME, "button").click()
            assert header.get_attribute("aria-sort") == order
            sizes = [
                float(td.get_attribute("data-v") or "-inf")
                for td in table.find_elements(By.CSS_SELECTOR, "tbody td:nth-child(3)")
            ]
            assert sizes == sorted(sizes, reverse=order == "descending") and len(sizes) >= 4
        height = driver.execute_script("return document.documentElement.scrollHeight")
        browser.resize(driver, 1280, min(height, 6000))
        shot = browser.keep("html-report-audit.png", driver.get_screenshot_as_png())
        assert shot.stat().st_size > 10_000
        # printing: the contents box is left out; the PDF has every page
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        assert driver.find_element(By.CSS_SELECTOR, "nav.toc").value_of_css_property("display") == "none"
        pdf = base64.b64decode(driver.print_page())
        assert pdf.startswith(b"%PDF") and len(pdf) > 20_000
        browser.keep("html-report-audit.pdf", pdf)
        assert browser.console(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        browser.resize(driver, 1280, 900)


def test_audit_page_without_javascript_and_at_phone_width(capsys, audited, chrome):
    if not audited.page.exists():
        run(capsys, "audit", "-q", "--format", "html", "-o", audited.page, *audited.urls)
    from selenium.webdriver.common.by import By

    driver = chrome
    browser.scripts(driver, enabled=False)
    browser.resize(driver, 390, 844)
    try:
        driver.get(audited.page.as_uri())
        assert browser.console(driver) == []
        headers = driver.find_elements(By.CSS_SELECTOR, "#s1-table thead th")
        assert [h.text for h in headers][:3] == ["table", "rows", "size"]
        assert not driver.find_elements(By.CSS_SELECTOR, "#s1-table thead button")  # a plain table
        assert "events" in driver.find_element(By.ID, "s1-table").text
        # nothing wider than the phone: wide tables scroll inside their box, the page does not
        assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        for svg in driver.find_elements(By.CSS_SELECTOR, "figure.plot svg"):
            assert 0 < svg.size["width"] <= 390
        browser.keep("html-report-phone.png", driver.get_screenshot_as_png())
    finally:
        browser.scripts(driver, enabled=True)
        browser.resize(driver, 1280, 900)


def test_plots_fit_their_boxes_at_desktop_and_phone_width(capsys, audited, chrome, tmp_path):
    """Every text of every plot inside its plot and clear of the others, no percentage past 100, at
    1280 and 390 pixels: on the audit of the real servers, and on one whose names are long."""
    if not audited.page.exists():
        run(capsys, "audit", "-q", "--format", "html", "-o", audited.page, *audited.urls)
    long_names = tmp_path / "long-names.html"
    shop = [("events", 3, 2_000_000, 900_000, 1_000), (EVIL + "_and_a_much_longer_name", 2, 50_000, 20_000, 0)]
    shop += [(f"audit_log_partition_{n}", 2, 80_000 + n * 1_000, 20_000, 0) for n in range(6)]
    long_names.write_text(render(modelled_audit(_reading("postgresql://ro@db1:5432/shop", shop))))
    for page, name in ((audited.page, "html-plots-audit"), (long_names, "html-plots-long-names")):
        seen = look_at(chrome, page, name)
        assert seen == {1280: [], 390: []}, name


def test_a_page_whose_plots_place_nothing_of_the_project_starts_with_the_findings(capsys, chrome, tmp_path):
    """Plots of measurements alone are left out (the findings cite them), and the section is titled
    by the project's folder, the files below it in smaller text."""
    project = tmp_path / "shop-backend"
    (project / "migrations").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    migration = project / "migrations" / "001_orders.sql"
    migration.write_text("CREATE TABLE orders (id bigint PRIMARY KEY, total int);\nCREATE TABLE notes (body text);\n")
    page = tmp_path / "lint.html"
    code, _, err = run(capsys, "lint", "--dialect", "postgres", "--format", "html", "-o", page, migration)
    assert code == 1, err
    text = page.read_text()
    assert "<title>shop-backend · schemacite lint report</title>" in text
    assert f'<h2>shop-backend</h2>\n<p class="paths">{migration}</p>' in text
    from selenium.webdriver.common.by import By

    seen = look_at(chrome, page, "html-report-lint-no-plots")
    assert seen == {1280: [], 390: []}
    chrome.get(page.as_uri())
    section = chrome.find_element(By.ID, "s1")
    assert not section.find_elements(By.CSS_SELECTOR, "figure")
    # the heading, the files, the counts, then the findings
    opening = chrome.execute_script(
        "return [...arguments[0].children].slice(0, 4).map((e) => e.tagName + (e.id ? '#' + e.id : ''))", section
    )
    assert opening == ["H2", "P", "P", "H3#s1-findings"]
    assert "No plot: none places anything of this project's own" in section.text
