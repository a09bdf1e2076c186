"""`schemacite server`, driven over standard input and output by a real LSP client (pytest-lsp)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, client_capabilities, register_lsp_features

from schemacite import lint_paths

pytestmark = pytest.mark.asyncio

HISTORY = """CREATE TABLE orders (
    id bigint PRIMARY KEY,
    created_at timestamptz NOT NULL
);
"""
# the statement starts after a comment whose characters take more UTF-16 units than characters
UNICODE_PREFIX = "/* déjà vu 😀 */ "
MIGRATION = f"""-- the next deploy
{UNICODE_PREFIX}CREATE INDEX orders_created ON orders (created_at);
"""
CONFIG = 'dialect = "postgres"\ntarget = "postgres-15"\nhistory = ["migrations/*.sql"]\n'


def make_client() -> LanguageClient:
    """pytest-lsp's client, also keeping every publishDiagnostics with its version, in order."""
    client = LanguageClient(converter_factory=default_converter)
    client.published = []

    def published(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append(params)

    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: published})
    return client


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "schemacite.cli", "server", "--stdio"], client_factory=make_client
    )
)
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".schemacite.toml").write_text(CONFIG)
    (tmp_path / "migrations").mkdir()
    (tmp_path / "migrations" / "001_orders.sql").write_text(HISTORY)
    return tmp_path


async def start(client: LanguageClient, root: Path, options: dict | None = None) -> None:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options={"debounceMs": 0, **(options or {})},
        )
    )


async def open_migration(
    client: LanguageClient, project: Path, name: str, text: str, options: dict | None = None
) -> tuple[str, list[types.Diagnostic]]:
    """Start the server on `project`, open `migrations/<name>` holding `text`: its URI and first diagnostics."""
    await start(client, project, options)
    uri = open_document(client, project / "migrations" / name, text)
    return uri, await published(client, uri, 1)


def open_document(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="sql", version=version, text=text))
    )
    return uri


def change(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def published(client: LanguageClient, uri: str, version: int, after: int = 0, timeout: float = 20):
    """The diagnostics the server publishes for `version` of `uri` (among those after the first `after`)."""
    for _ in range(int(timeout / 0.02)):
        found = [p for p in client.published[after:] if p.uri == uri and p.version == version]
        if found:
            return list(found[-1].diagnostics)
        await asyncio.sleep(0.02)
    raise AssertionError(f"no diagnostics for {uri} version {version}: {client.published}")


def codes(diagnostics) -> list[str]:
    return sorted(str(d.code) for d in diagnostics if d.code)


def apply_edit(text: str, edit: types.WorkspaceEdit, uri: str) -> str:
    """The document's text after the edits a WorkspaceEdit makes to it (as an editor applies them)."""
    from schemacite.server.positions import Lines

    edits = [e for change in edit.document_changes or [] if change.text_document.uri == uri for e in change.edits]
    lines = Lines(text)
    starts = [0]
    for line in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(p: types.Position) -> int:
        line, column = lines.character(p)
        return starts[line - 1] + column - 1

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end) :]
    return text


async def test_diagnostics_on_open_judge_the_migration_after_its_history(client: LanguageClient, project: Path):
    path = project / "migrations" / "002_index.sql"
    path.write_text(MIGRATION)
    _, diagnostics = await open_migration(client, project, path.name, MIGRATION)
    index = next(d for d in diagnostics if d.code == "SC105")
    assert index.source == "schemacite"
    assert index.severity == types.DiagnosticSeverity.Warning
    assert index.code_description.href.endswith("/docs/rules/write-blocking-lock.md")
    assert "ShareLock on orders" in index.message
    # the statement's range, in UTF-16 code units: the emoji takes two
    prefix_units = len(UNICODE_PREFIX.encode("utf-16-le")) // 2
    assert prefix_units == len(UNICODE_PREFIX) + 1
    statement = "CREATE INDEX orders_created ON orders (created_at);"
    assert index.range == types.Range(types.Position(1, prefix_units), types.Position(1, prefix_units + len(statement)))
    related = {r.message.split(":")[0]: r for r in index.related_information}
    assert "CONCURRENTLY" in related["suggestion"].message
    assert "evidence pg-doc-explicit-locking" in related
    created = related["orders is created here"].location
    assert created.uri == (project / "migrations" / "001_orders.sql").as_uri()
    assert created.range.start.line == 0
    # the same engine as `schemacite lint`: the same findings, at the same lines
    cli = lint_paths(str(path), config_path=str(project / ".schemacite.toml"))
    assert codes(diagnostics) == sorted(f.code for f in cli.findings)
    assert sorted(d.range.start.line + 1 for d in diagnostics) == sorted(f.location.line for f in cli.findings)


async def test_one_open_publishes_its_diagnostics_once(client: LanguageClient, project: Path):
    uri, diagnostics = await open_migration(client, project, "002_index.sql", MIGRATION)
    assert "SC105" in codes(diagnostics)
    # the client's settings arrive after the open (workspace/configuration) and change nothing:
    # the same verdict on the same version is not published a second time
    await asyncio.sleep(1.5)
    assert [p.version for p in client.published if p.uri == uri] == [1]


async def test_diagnostics_follow_changes_and_saves(client: LanguageClient, project: Path):
    path = project / "migrations" / "002_index.sql"
    uri, diagnostics = await open_migration(client, project, path.name, "SELECT 1;\n")
    assert diagnostics == []
    change(client, uri, MIGRATION, 2)
    assert "SC105" in codes(await published(client, uri, 2))
    fixed = MIGRATION.replace("CREATE INDEX", "CREATE INDEX CONCURRENTLY")
    change(client, uri, fixed, 3)
    assert "SC105" not in codes(await published(client, uri, 3))
    before = len(client.published)
    path.write_text(fixed)
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
    assert "SC105" not in codes(await published(client, uri, 3, after=before))


async def test_changes_are_debounced(client: LanguageClient, project: Path):
    uri, _ = await open_migration(client, project, "002_index.sql", "SELECT 1;\n", {"debounceMs": 400})
    before = len(client.published)
    for version in range(2, 6):
        change(client, uri, MIGRATION + f"-- edit {version}\n", version)
        await asyncio.sleep(0.05)
    await published(client, uri, 5, after=before)
    await asyncio.sleep(0.5)
    # the four edits come out as one publish
    assert [p.version for p in client.published[before:] if p.uri == uri] == [5]


async def test_hover_shows_the_lock_row_and_its_evidence(client: LanguageClient, project: Path):
    uri, _ = await open_migration(client, project, "002_index.sql", MIGRATION)
    answer = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(1, len(UNICODE_PREFIX) + 5))
    )
    text = answer.contents.value
    assert "**CREATE INDEX** on postgres-15: blocks **writes**" in text
    assert "| orders | ShareLock | writes |" in text
    assert "rewrite: no · scan: yes" in text
    assert "safer: CREATE INDEX CONCURRENTLY" in text
    assert "measured on PostgreSQL 15." in text
    assert "write-blocking-lock" in text and "pg-doc-explicit-locking" in text
    outside = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 3))
    )
    assert outside is None  # a comment is no statement


async def test_suppress_action_silences_the_finding(client: LanguageClient, project: Path):
    text = "CREATE TABLE audit (v int);\n    ALTER TABLE orders\n        ADD COLUMN note text;\n"
    uri, diagnostics = await open_migration(client, project, "002_note.sql", text)
    assert codes(diagnostics) == ["SC101", "SC110"]
    lock = next(d for d in diagnostics if d.code == "SC110")
    assert (lock.range.start.line, lock.range.end.line) == (1, 2)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=lock.range,
            context=types.CodeActionContext(diagnostics=[lock]),
        )
    )
    titles = [a.title for a in actions]
    assert "Suppress SC110 (lock-timeout-missing) on this statement" in titles
    assert "Suppress SC110 (lock-timeout-missing) in this file" in titles
    suppress = next(a for a in actions if a.title.endswith("on this statement") and "SC110" in a.title)
    silenced = apply_edit(text, suppress.edit, uri)
    assert silenced.splitlines()[1] == "    -- schemacite: ignore[lock-timeout-missing]"
    change(client, uri, silenced, 2)
    assert codes(await published(client, uri, 2)) == ["SC101"]


async def test_settings_from_initialization_and_workspace_configuration(client: LanguageClient, project: Path):
    client.set_configuration({"target": "postgres-12"}, section="schemacite")
    uri, diagnostics = await open_migration(client, project, "002_index.sql", MIGRATION, {"ignore": ["SC105"]})
    assert "SC105" not in codes(diagnostics)
    answer = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(1, len(UNICODE_PREFIX) + 5))
    )
    assert "on postgres-12" in answer.contents.value  # the pulled configuration's target
    before = len(client.published)
    client.set_configuration({"select": "SC105", "ignore": [], "target": "postgres-16"}, section="schemacite")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert codes(await published(client, uri, 1, after=before)) == ["SC105"]
    answer = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(1, len(UNICODE_PREFIX) + 5))
    )
    assert "on postgres-16" in answer.contents.value


async def test_bad_settings_are_logged_and_the_server_goes_on(client: LanguageClient, project: Path):
    _, diagnostics = await open_migration(
        client, project, "002_index.sql", MIGRATION, {"debounceMs": "soon", "colour": "red"}
    )
    assert "SC105" in codes(diagnostics)
    logged = " ".join(m.message for m in client.log_messages)
    assert "setting 'debounceMs': must be a number of milliseconds" in logged
    assert "unknown setting 'colour'" in logged


async def test_unparseable_sql_is_an_error_at_its_line(client: LanguageClient, project: Path):
    text = "CREATE TABLE t (id int PRIMARY KEY);\n\nCREATE TABLE (oops;\nALTER TABLE orders ADD COLUMN y int;\n"
    uri, diagnostics = await open_migration(client, project, "002_broken.sql", text)
    error = next(d for d in diagnostics if d.severity == types.DiagnosticSeverity.Error)
    assert error.range.start == types.Position(2, 13)
    assert "syntax error" in error.message
    assert "SC110" in codes(diagnostics)  # the statements around it are still judged
    change(client, uri, "\x00\x01 not sql at all", 2)
    binary = await published(client, uri, 2)
    assert [d.severity for d in binary] == [types.DiagnosticSeverity.Error]
    change(client, uri, "", 3)
    assert await published(client, uri, 3) == []


async def test_a_file_outside_any_config_and_a_broken_config(client: LanguageClient, tmp_path: Path):
    loose = tmp_path / "loose"
    loose.mkdir()
    await start(client, tmp_path)
    uri = open_document(client, loose / "one.sql", "CREATE TABLE `t` (v int) ENGINE=InnoDB;\n")
    diagnostics = await published(client, uri, 1)
    assert codes(diagnostics) == ["SC101"]  # read as MySQL, from the file's own marks
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".schemacite.toml").write_text('select = ["no-such-rule"]\n')
    uri = open_document(client, broken / "two.sql", "CREATE TABLE t (v int);\n")
    [problem] = await published(client, uri, 1)
    assert problem.severity == types.DiagnosticSeverity.Error
    assert "unknown rule 'no-such-rule'" in problem.message
    assert problem.range.start.line == 0


async def code_actions(client: LanguageClient, uri: str, where: types.Range, only: list[str] | None = None):
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=where,
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )


async def test_quickfix_applies_the_findings_fix(client: LanguageClient, project: Path):
    uri, diagnostics = await open_migration(client, project, "002_index.sql", MIGRATION)
    index = next(d for d in diagnostics if d.code == "SC105")
    actions = await code_actions(client, uri, index.range)
    fix = next(a for a in actions if a.title == "CREATE INDEX CONCURRENTLY")
    assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred
    assert [d.code for d in fix.diagnostics] == ["SC105"]
    [edit] = fix.edit.document_changes
    assert edit.text_document.version == 1
    # inserted after "CREATE INDEX ", counted in UTF-16 units past the emoji
    assert edit.edits[0].range.start == types.Position(1, len(UNICODE_PREFIX) + 1 + len("CREATE INDEX "))
    fixed = apply_edit(MIGRATION, fix.edit, uri)
    assert fixed == MIGRATION.replace("CREATE INDEX", "CREATE INDEX CONCURRENTLY")
    change(client, uri, fixed, 2)
    assert "SC105" not in codes(await published(client, uri, 2))


async def test_fix_all_applies_every_safe_fix(client: LanguageClient, project: Path):
    text = MIGRATION + "CREATE INDEX orders_id ON orders (id, created_at);\nALTER TABLE orders ADD COLUMN note text;\n"
    uri, diagnostics = await open_migration(client, project, "002_index.sql", text)
    assert codes(diagnostics) == ["SC105", "SC105", "SC110"]  # SC110's fix (SET lock_timeout) is unsafe
    whole = types.Range(types.Position(0, 0), types.Position(0, 0))
    [action] = await code_actions(client, uri, whole, only=[types.CodeActionKind.SourceFixAll])
    assert action.kind == "source.fixAll.schemacite"
    fixed = apply_edit(text, action.edit, uri)
    assert fixed == text.replace("CREATE INDEX", "CREATE INDEX CONCURRENTLY")  # and no SET lock_timeout
    change(client, uri, fixed, 2)
    assert codes(await published(client, uri, 2)) == ["SC110"]
    assert not await code_actions(client, uri, whole, only=["source.fixAll.schemacite"])


async def test_config_setting_names_the_file_for_every_document(client: LanguageClient, project: Path):
    (project / "strict.toml").write_text(CONFIG + 'disable = ["SC105"]\n')
    uri, diagnostics = await open_migration(client, project, "002_index.sql", MIGRATION, {"config": "strict.toml"})
    assert diagnostics == []  # the nearest config (.schemacite.toml) gives SC105 here
    before = len(client.published)
    client.set_configuration({"config": "missing.toml"}, section="schemacite")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    [problem] = await published(client, uri, 1, after=before)
    assert problem.message == f"{project / 'missing.toml'}: no such config file (the server's `config` setting)"


async def test_a_verdict_judged_while_the_settings_changed_is_judged_again(tmp_path: Path):
    """The client's settings can land while a document is being judged under the ones it gave at
    start (an open racing the configuration pull): that verdict is stale, never kept or shown."""
    from types import SimpleNamespace

    from schemacite.server.protocol import SchemaciteServer
    from schemacite.server.settings import Settings

    server = SchemaciteServer()
    pulled = Settings(target="postgres-12")
    judged_under = []

    def check(path, text, version=None):
        judged_under.append(server.project.settings.target)
        if len(judged_under) == 1:
            server.project.settings = pulled  # the pull's answer arrives mid-judgement
        return SimpleNamespace(version=version, text=text, target=judged_under[-1])

    server.project.check = check
    document = SimpleNamespace(source="SELECT 1;\n", version=1, path=str(tmp_path / "m.sql"))
    server.document = lambda uri: document
    checked = await server.current("file:///m.sql")
    assert judged_under == [None, "postgres-12"] and checked.target == "postgres-12"
    assert server.checked["file:///m.sql"] is checked
