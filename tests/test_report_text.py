"""The `full` and `concise` text reports: every message whole, the statement and the fix cut to
the terminal's width, file names never broken, the evidence once per rule, ruff's `[*]` on a finding with a safe fix, and the README's
example as the command prints it."""

from __future__ import annotations

import glob
import io
import json
import re
from pathlib import Path

import pytest

from cli import run
from schemacite.model.fixes import Applicability, Fix
from schemacite.model.results import Finding, LintResult, Location, Severity
from schemacite.report.concise import ConciseReporter
from schemacite.report.text import TextReporter

ROOT = Path(__file__).resolve().parents[1]
LONG = (
    "ALTER TABLE orders ADD COLUMN public_id uuid DEFAULT gen_random_uuid() takes AccessExclusiveLock on orders, "
    "blocks reads and writes while it rewrites the table (every row gets its own value: the default is volatile), "
    "and holds it until the transaction ends"
)


def finding(path: Path | str, line: int, message: str, suggestion: str | None = None, **kw) -> Finding:
    return Finding(
        rule="access-exclusive-lock",
        code="SC104",
        severity=Severity.ERROR,
        location=Location(str(path), line, 1 if line else 0),
        message=message,
        suggestion=suggestion,
        **kw,
    )


def text(result: LintResult, **kw) -> str:
    out = io.StringIO()
    TextReporter(**kw).render(result, out)
    return out.getvalue()


def blocks(report: str) -> list[list[str]]:
    """Each finding's lines: its head (`  LINE:COL` or `  -`) and the deeper lines under it."""
    found: list[list[str]] = []
    current: list[str] | None = None
    for line in report.splitlines():
        if re.match(r"^  (\d+:\d+|-) ", line):
            current = [line]
            found.append(current)
        elif current is not None and line.startswith("    "):
            current.append(line)
        else:
            current = None
    return found


def message_of(block: list[str]) -> str:
    """The message a finding's lines print: its head after the code, and the lines hung under it."""
    words = block[0].split(None, 3)[3].split()
    for line in block[1:]:
        if line.startswith(" " * 6) and not line.startswith(("    | ", "    fix: ")):
            words += line.split()
    return " ".join(words)


@pytest.mark.parametrize("columns", [40, 80, 120])
def test_a_message_is_whole_and_only_the_statement_and_fix_are_cut(tmp_path, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    sql = tmp_path / "0001_orders.sql"
    sql.write_text("SET lock_timeout = '2s';\n" + "ALTER TABLE orders ADD COLUMN public_id uuid " * 4 + ";\n")
    fixes = "add the column without the volatile default, backfill in batches, then SET DEFAULT; " * 3
    findings = [
        finding(sql, 2, LONG, fixes),  # all three parts too long for three lines
        finding(sql, 2, "Short message", "a short fix"),  # everything fits
        finding(sql, 1, LONG),  # no fix
        finding("postgresql://db/app", 0, LONG, fixes, table="app.orders"),  # a server's: no statement
    ]
    report = text(LintResult(findings=findings, files=[str(sql)], statements=2))
    # no word is broken, so a line is wider than the width only where one word is
    assert all(len(line) <= columns or " " not in line.strip() for line in report.splitlines()[1:])
    found = blocks(report)
    assert len(found) == 4
    long_one, short, no_fix, server = found
    for block in (long_one, no_fix, server):
        assert message_of(block) == LONG  # whole: "holds it until the transaction ends" survives
    assert long_one[0].startswith("  2:1 error SC104 ALTER TABLE orders") and long_one[-1].startswith("    fix: add")
    assert long_one[-1].endswith("…") and not long_one[-1].endswith((";…", ",…", ":…", " …"))  # cut after a word
    assert len(long_one[-1]) <= columns and sum(line.startswith("    fix:") for line in long_one) == 1
    assert short == ["  2:1 error SC104 Short message", short[1], "    fix: a short fix"]
    assert short[1].startswith("    | ALTER TABLE orders ADD COLUMN") and short[1].endswith("…")
    assert len(short[1]) <= columns
    assert not any(line.startswith("    fix:") for line in no_fix)
    assert server[0].startswith("  - error SC104 ") and not any(line.startswith("    | ") for line in server)


def test_a_long_file_name_prints_whole_on_its_own_line(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    sql = tmp_path / ("migrations_" * 6) / "20240101000000_add_the_orders_status.sql"
    sql.parent.mkdir()
    sql.write_text("CREATE INDEX i ON orders (status);\n")
    report = text(LintResult(findings=[finding(sql, 1, "short")], files=[str(sql)], statements=1))
    assert report.splitlines()[:2] == [str(sql), "  1:1 error SC104 short"]


@pytest.mark.parametrize("columns", ["40", "80"])
def test_the_demo_keeps_every_message_whole(capsys, monkeypatch, columns):
    """On real migrations, each message the JSON report carries is in the text report whole, with
    its table names and line numbers, at 80 columns and at a narrow terminal's 40."""
    monkeypatch.chdir(ROOT)
    paths = sorted(glob.glob("fixtures/demo/postgres/migrations/00000[2-4]_*.up.sql"))
    _, out, _ = run(capsys, "lint", "--format", "json", *paths)
    messages = [(f["code"], f["message"], f["table"]) for f in json.loads(out)["findings"]]
    monkeypatch.setenv("COLUMNS", columns)
    _, report, _ = run(capsys, "lint", *paths)
    shown = [(b[0].split()[2], message_of(b)) for b in blocks(report)]
    assert shown == [(code, " ".join(message.split())) for code, message, _ in messages]
    assert "while line 3 does long work: CREATE INDEX scans orders" in " ".join(report.split())
    assert all(table and table in message for _, message, table in messages)
    headers = [line for line in report.splitlines() if line.startswith("fixtures/")]
    assert headers == paths


def test_evidence_once_per_rule_after_the_findings(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    sql = tmp_path / "a.sql"
    sql.write_text("ALTER TABLE a ADD COLUMN b int;\n")
    cites = ("schemacite-2026-pg16-lock-durations", "pg-doc-explicit-locking")
    unmeasured = Finding(
        rule="lock-timeout-missing",
        code="SC110",
        severity=Severity.WARNING,
        location=Location(str(sql), 1, 1),
        message="no lock_timeout",
        evidence=("pg-doc-lock-timeout", "pg-doc-explicit-locking"),
        evidence_note="Documented server behaviour.",
    )
    findings = [finding(sql, 1, "first", evidence=cites), unmeasured, finding(sql, 1, "again", evidence=cites)]
    report = text(LintResult(findings=findings, files=[str(sql)], statements=1))
    head, evidence = report.split("Evidence per rule (each record in full: schemacite evidence show ID)\n")
    assert "schemacite-2026" not in head
    assert evidence.splitlines()[:6] == [
        "SC104 access-exclusive-lock",
        "  schemacite-2026-pg16-lock-durations: schemacite 2026 · PostgreSQL 16.14",
        "  pg-doc-explicit-locking: PostgreSQL documentation (current)",
        "SC110 lock-timeout-missing",
        "  pg-doc-lock-timeout: PostgreSQL documentation (current)",
        "  as above: pg-doc-explicit-locking",
    ]
    assert evidence.count("no measurement: Documented server behaviour.") == 1
    # no evidence section when nothing cites any, and none in the summary alone (-q)
    assert "Evidence per rule" not in text(LintResult(findings=[finding(sql, 1, "bare")], files=[str(sql)]))
    quiet = TextReporter()
    quiet.summary_only = True
    out = io.StringIO()
    quiet.render(LintResult(findings=findings, files=[str(sql)], statements=1), out)
    assert out.getvalue() == "2 errors, 1 warning in 1 file(s), 1 statement(s).\n"


def test_a_safe_fix_is_marked_as_ruff_marks_it(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    sql = tmp_path / "a.sql"
    sql.write_text("CREATE INDEX i ON a (b);\n")
    findings = [finding(sql, 1, "safe one"), finding(sql, 1, "unsafe one"), finding(sql, 1, "template only")]
    # Finding.fix may not exist yet: set on the instances, as the engine will
    for f, applicability in zip(findings, ("safe", "unsafe", "display-only"), strict=True):
        f.fix = Fix("Use CONCURRENTLY", Applicability(applicability))
    result = LintResult(findings=findings, files=[str(sql)], statements=1)
    full = text(result)
    assert "  1:1 error SC104 [*] safe one\n" in full
    assert "  1:1 error SC104 unsafe one\n" in full and "  1:1 error SC104 template only\n" in full
    out = io.StringIO()
    ConciseReporter().render(result, out)
    assert out.getvalue().splitlines()[:3] == [
        f"{sql}:1:1: SC104 [*] [error] safe one",
        f"{sql}:1:1: SC104 [error] unsafe one",
        f"{sql}:1:1: SC104 [error] template only",
    ]
    # without a fix attribute at all, nothing is marked
    assert "[*]" not in text(LintResult(findings=[finding(sql, 1, "plain")], files=[str(sql)]))


def test_the_readme_shows_what_the_demo_prints(capsys, monkeypatch):
    """The README's "What it prints" block is the command's output at 80 columns, line for line."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## What it prints\n\n```text\n", 1)[1].split("```", 1)[0]
    command, expected = block.split("\n", 1)
    words = command.removeprefix("$ ").split()
    assert words[:2] == ["schemacite", "lint"]
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "80")
    paths = [p for word in words[2:] for p in sorted(glob.glob(word))]  # as the shell expands them
    assert len(paths) == 3
    code, out, _ = run(capsys, "lint", *paths)
    assert code == 1 and out == expected
