"""The language server itself: pygls handlers over `Workspace`.

Documents are linted on open and save at once, and after edits once the editor has been quiet
for `debounceMs`. Linting runs on one worker thread, so the connection keeps answering (and
edits keep arriving) while a document is judged; a verdict on a version the editor has since
changed is not published, the newer one follows. Hover and code actions answer from the
verdict on the version the editor holds, judging it first when it is not there yet.
"""

from __future__ import annotations

import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from schemacite import __version__
from schemacite.model.record import replace
from schemacite.server.actions import KINDS, code_actions
from schemacite.server.diagnostics import diagnostics
from schemacite.server.hover import hover
from schemacite.server.positions import Lines
from schemacite.server.settings import SECTION, Settings
from schemacite.server.workspace import Checked, Workspace

logger = logging.getLogger(__name__)


class SchemaciteServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("schemacite", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.project = Workspace()
        self.given = Settings()  # initializationOptions
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="schemacite-lint")
        self.pending: dict[str, asyncio.Task] = {}
        self.checked: dict[str, Checked] = {}
        self.said: dict[str, list[str]] = {}  # the notes last logged per document
        # the diagnostics last published per document, with their version: a re-judging that finds the
        # same (the client's settings arriving just after an open) publishes nothing new
        self.shown: dict[str, tuple[int | None, list[types.Diagnostic]]] = {}
        self.open: set[str] = set()  # the documents' URIs, as the client spells them

    # ---- settings -----------------------------------------------------------------------------

    def use(self, settings: Settings) -> None:
        for problem in settings.problems:
            self.window_log_message(types.LogMessageParams(types.MessageType.Warning, f"schemacite: {problem}"))
        if settings.config and self.workspace.root_path:  # a relative path names a file of the workspace
            settings = replace(settings, config=os.path.join(self.workspace.root_path, settings.config))
        if settings != self.project.settings:
            self.project.settings = settings
            self.checked.clear()

    async def pull_settings(self) -> None:
        """The `schemacite` section of the client's settings, when the client serves them."""
        if not _capable(self.client_capabilities, "workspace", "configuration"):
            return
        try:
            answer = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
            )
        except Exception as e:  # a client that cannot answer keeps the settings it gave at start
            logger.warning("workspace/configuration: %s", e)
            return
        self.use(self.given.merged(answer[0] if answer else None))

    # ---- linting -------------------------------------------------------------------------------

    def schedule(self, uri: str, delay: float | None = None) -> None:
        """Lint `uri` after `delay` seconds (the debounce setting), unless another edit comes first."""
        earlier = self.pending.pop(uri, None)
        if earlier is not None:
            earlier.cancel()
        wait = self.project.settings.debounce_ms / 1000 if delay is None else delay
        self.pending[uri] = asyncio.ensure_future(self._later(uri, wait))

    async def _later(self, uri: str, wait: float) -> None:
        if wait:
            await asyncio.sleep(wait)
        if self.pending.get(uri) is asyncio.current_task():
            del self.pending[uri]
        await self.lint(uri)

    async def lint(self, uri: str) -> None:
        checked = await self.current(uri)
        if checked is None:
            return
        document = self.document(uri)
        if document is None or document.version != checked.version:
            return  # closed, or edited meanwhile: the newer version's verdict follows
        lines = Lines(checked.text, self.workspace.position_codec)
        verdict = (checked.version, diagnostics(checked, lines))
        if self.shown.get(uri) != verdict:
            self.shown[uri] = verdict
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=verdict[1], version=checked.version)
            )
        if checked.notes != self.said.get(uri, []):
            self.said[uri] = checked.notes
            for note in checked.notes:
                self.window_log_message(types.LogMessageParams(types.MessageType.Info, f"schemacite: {note}"))

    async def current(self, uri: str) -> Checked | None:
        """The verdict on the version of `uri` the editor holds, judged now if need be."""
        document = self.document(uri)
        if document is None:
            return None
        checked = self.checked.get(uri)
        if checked is not None and checked.version == document.version and checked.text == document.source:
            return checked
        text, version = document.source, document.version
        settings = self.project.settings
        loop = asyncio.get_running_loop()
        checked = await loop.run_in_executor(self.worker, self.project.check, document.path, text, version)
        if self.project.settings is not settings:  # new settings came while it ran: its verdict is stale
            return await self.current(uri)
        self.checked[uri] = checked
        return checked

    def document(self, uri: str):
        """The open document `uri` names, or None."""
        return self.workspace.text_documents.get(unquote(uri)) if uri in self.open else None

    def relint_all(self, but: str | None = None) -> None:
        for uri in sorted(self.open):
            if uri != but:
                self.schedule(uri, 0)

    def opened(self, path: str) -> tuple[str, int | None] | None:
        """An open document's text and version by its path (for fixes that edit other files)."""
        for document in self.workspace.text_documents.values():
            if document.path == path:
                return document.source, document.version
        return None


def _capable(capabilities, *names: str) -> bool:
    value = capabilities
    for name in names:
        value = getattr(value, name, None)
        if value is None:
            return False
    return bool(value)


server = SchemaciteServer()


@server.feature(types.INITIALIZE)
def initialize(ls: SchemaciteServer, params: types.InitializeParams) -> None:
    ls.given = Settings().merged(params.initialization_options)
    ls.use(ls.given)


@server.feature(types.INITIALIZED)
async def initialized(ls: SchemaciteServer, params: types.InitializedParams) -> None:
    await ls.pull_settings()
    ls.relint_all()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def configuration_changed(ls: SchemaciteServer, params: types.DidChangeConfigurationParams) -> None:
    if _capable(ls.client_capabilities, "workspace", "configuration"):
        await ls.pull_settings()
    else:  # pushed with the notification
        ls.use(ls.given.merged(params.settings))
    ls.relint_all()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: SchemaciteServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.open.add(params.text_document.uri)
    ls.schedule(params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: SchemaciteServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: SchemaciteServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.shown.pop(params.text_document.uri, None)  # a save is answered, even with what was shown
    ls.schedule(params.text_document.uri, 0)
    ls.relint_all(but=params.text_document.uri)  # the saved file may be another's history


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: SchemaciteServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.open.discard(uri)
    pending = ls.pending.pop(uri, None)
    if pending is not None:
        pending.cancel()
    ls.checked.pop(uri, None)
    ls.said.pop(uri, None)
    ls.shown.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def on_hover(ls: SchemaciteServer, params: types.HoverParams) -> types.Hover | None:
    checked = await ls.current(params.text_document.uri)
    if checked is None or checked.problem:
        return None
    lines = Lines(checked.text, ls.workspace.position_codec)
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(ls.worker, hover, ls.project, checked, lines, params.position)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=False),
)
async def on_code_action(ls: SchemaciteServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    checked = await ls.current(params.text_document.uri)
    if checked is None:
        return None
    lines = Lines(checked.text, ls.workspace.position_codec)
    document_changes = _capable(ls.client_capabilities, "workspace", "workspace_edit", "document_changes")
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(
        ls.worker,
        code_actions,
        ls.project,
        checked,
        lines,
        params.range,
        params.context.only,
        ls.opened,
        document_changes,
    )


def serve() -> None:
    server.start_io()
