"""What the language server's code actions write, checked without a client: fixes as
WorkspaceEdits, the fix-all loop, where a suppression comment goes; and `schemacite server`
without pygls."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from cli import run
from schemacite.model import Location
from schemacite.model.fixes import Applicability, Edit, Fix
from schemacite.model.results import Finding, Severity
from schemacite.server.actions import changed_lines, fix_all, suppressions, workspace_edit
from schemacite.server.diagnostics import uri
from schemacite.server.positions import Lines
from schemacite.server.workspace import Checked, Workspace
from schemacite.sources.edits import apply


def test_a_fix_becomes_a_workspace_edit_in_utf16_units(tmp_path: Path):
    path = str(tmp_path / "002.sql")
    text = "-- ünïcode 😀\n/* 😀😀 */ CREATE INDEX i ON t (c);\n"
    column = text.splitlines()[1].index("INDEX") + 1  # characters, from 1
    fix = Fix(
        "Build the index CONCURRENTLY",
        Applicability.SAFE,
        (
            Edit.insert(path, 2, column + len("INDEX"), " CONCURRENTLY"),
            Edit.new_file(str(tmp_path / "003_after.sql"), "ANALYZE t;\n"),
        ),
    )
    edit = workspace_edit(fix, lambda p: (text, 7) if p == path else None)
    first, create, created = edit.document_changes
    assert first.text_document == types.OptionalVersionedTextDocumentIdentifier(uri=uri(path), version=7)
    [insert] = first.edits
    # each emoji before it is two UTF-16 units: 0-based, the column is two more than in characters
    assert insert.range.start == types.Position(1, (column + len("INDEX") - 1) + 2)
    assert insert.range.start == insert.range.end and insert.new_text == " CONCURRENTLY"
    assert create == types.CreateFile(
        uri=uri(str(tmp_path / "003_after.sql")),
        options=types.CreateFileOptions(overwrite=False, ignore_if_exists=False),
    )
    assert created.edits[0].new_text == "ANALYZE t;\n"
    assert created.edits[0].range == types.Range(types.Position(0, 0), types.Position(0, 0))
    # a client without resource operations cannot create the file: no edit rather than half of one
    assert workspace_edit(fix, lambda p: None, document_changes=False) is None


def test_a_fix_of_a_file_not_open_is_located_in_the_file_on_disk(tmp_path: Path):
    path = tmp_path / "001.sql"
    path.write_text("SELECT 'é';\r\nSELECT 2;\r\n", newline="")
    fix = Fix("Replace", Applicability.UNSAFE, (Edit(str(path), 2, 8, 2, 9, "3"),))
    edit = workspace_edit(fix, lambda p: None, document_changes=False)
    [text_edit] = edit.changes[uri(str(path))]
    assert text_edit.range == types.Range(types.Position(1, 7), types.Position(1, 8))


def test_changed_lines_spans_only_what_changed():
    old = "a\nb\nc\nd\n"
    edit = changed_lines(old, "a\nB\nB2\nc\nd\n", Lines(old))
    assert edit.range == types.Range(types.Position(1, 0), types.Position(2, 0))
    assert edit.new_text == "B\nB2\n"
    tail = changed_lines("a\nb", "a\nc", Lines("a\nb"))
    assert tail.range == types.Range(types.Position(1, 0), types.Position(1, 1)) and tail.new_text == "c"


class Fixing(Workspace):
    """A project whose only rule flags every CREATE INDEX without CONCURRENTLY and offers the fix."""

    def check(self, path: str, text: str, version: int | None = None) -> Checked:
        checked = Checked(path, text, version)
        for n, line in enumerate(text.split("\n"), 1):
            at = line.find("CREATE INDEX ")
            if at >= 0 and "CONCURRENTLY" not in line:
                column = at + len("CREATE INDEX") + 1
                fix = Fix("Build it CONCURRENTLY", Applicability.SAFE, (Edit.insert(path, n, column, " CONCURRENTLY"),))
                checked.findings.append(
                    Finding("r", "SC105", Severity.WARNING, Location(path, n, at + 1), "m", fix=fix)
                )
        return checked


def test_fix_all_applies_every_safe_fix_and_lints_again():
    text = "SELECT 1;\nCREATE INDEX i ON t (c);\nCREATE INDEX j ON t (d);\nSELECT 2;\n"
    project = Fixing()
    checked = project.check("/x.sql", text)
    edit = fix_all(project, checked, Lines(text))
    assert edit.range == types.Range(types.Position(1, 0), types.Position(3, 0))
    assert edit.new_text == "CREATE INDEX CONCURRENTLY i ON t (c);\nCREATE INDEX CONCURRENTLY j ON t (d);\n"
    done = project.check("/x.sql", text.replace("INDEX", "INDEX CONCURRENTLY"))
    assert fix_all(project, done, Lines(done.text)) is None


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".schemacite.toml").write_text('dialect = "postgres"\n')
    return tmp_path


def _suppressed(project_root: Path, text: str, line: int) -> tuple[str, list[Finding]]:
    """The text with the statement-level suppression of the finding at `line` made, and what is left."""
    path = str(project_root / "m.sql")
    checker = Workspace(parse_cache=False)
    checked = checker.check(path, text)
    finding = next(f for f in checked.findings if f.location.line == line and f.code == "SC101")
    [(title, edit), _] = [(t, e) for t, e in suppressions(finding, checked, Lines(text))]
    assert title == "Suppress SC101 (no-primary-key) on this statement"
    at = Edit.insert(path, edit.range.start.line + 1, edit.range.start.character + 1, edit.new_text)  # ASCII text
    silenced = apply(text.encode(), [at]).decode()
    return silenced, checker.check(path, silenced).findings


def test_suppression_goes_on_the_line_before_with_its_indent(project: Path):
    silenced, left = _suppressed(project, "SELECT 1;\n  CREATE TABLE a (v int);\n", 2)
    assert silenced == "SELECT 1;\n  -- schemacite: ignore[no-primary-key]\n  CREATE TABLE a (v int);\n"
    assert left == []


def test_suppression_of_a_statement_starting_where_another_ends_goes_after_it(project: Path):
    text = "CREATE TABLE a (id int PRIMARY KEY); CREATE TABLE b\n  (v int);\nCREATE TABLE c (v int);\n"
    silenced, left = _suppressed(project, text, 1)
    assert silenced.splitlines()[1] == "  (v int); /* schemacite: ignore[no-primary-key] */"
    assert [(f.code, f.location.line) for f in left] == [("SC101", 3)]


def test_server_without_pygls_says_how_to_install_it(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pygls", None)  # `import pygls` now fails as if it were not installed
    code, out, err = run(capsys, "server")
    assert code == 2
    assert "the language server needs pygls 2 and lsprotocol: pip install 'pygls>=2,<3' lsprotocol" in err


def test_server_help(capsys):
    with pytest.raises(SystemExit) as stop:
        run(capsys, "server", "--help")
    assert stop.value.code == 0
    assert "Language Server Protocol" in capsys.readouterr().out


def test_fix_all_fixes_the_open_buffer_of_a_committed_migration(tmp_path: Path):
    # `lint --fix` leaves committed migrations alone; the editor fixes the buffer it was asked to
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t"}
    env |= {"GIT_COMMITTER_EMAIL": "t@e", "HOME": str(tmp_path)}
    (tmp_path / ".schemacite.toml").write_text('dialect = "postgres"\nhistory = ["001.sql"]\n')
    (tmp_path / "001.sql").write_text("CREATE TABLE t (c int);\n")
    text = "CREATE INDEX i ON t (c);\n"
    (tmp_path / "002.sql").write_text(text)
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "base"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, env=env)
    project = Workspace(parse_cache=False)
    edit = fix_all(project, project.check(str(tmp_path / "002.sql"), text), Lines(text))
    assert edit is not None and edit.new_text == "CREATE INDEX CONCURRENTLY i ON t (c);\n"
