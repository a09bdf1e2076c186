"""Code actions: a finding's fix (`model.fixes`), suppressing it with a comment, and applying
every safe fix of the document (`source.fixAll.schemacite`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from schemacite.model.fixes import Applicability, Edit, Fix
from schemacite.model.results import Finding
from schemacite.server.diagnostics import diagnostic, finding_range, uri
from schemacite.server.positions import Lines, overlaps
from schemacite.server.workspace import Checked, Workspace

FIX_ALL = "source.fixAll.schemacite"
KINDS = [types.CodeActionKind.QuickFix, FIX_ALL]

# the open documents: a path's text and version, None for a file that is not open
Opened = Callable[[str], "tuple[str, int | None] | None"]


def code_actions(
    project: Workspace,
    checked: Checked,
    lines: Lines,
    wanted: types.Range,
    only: Sequence[str] | None,
    opened: Opened,
    document_changes: bool,
) -> list[types.CodeAction]:
    out: list[types.CodeAction] = []
    if checked.problem:
        return out
    if _wanted(types.CodeActionKind.QuickFix, only):
        for f in checked.findings:
            if f.location.file != checked.path or not overlaps(finding_range(f, checked, lines), wanted):
                continue
            diag = [diagnostic(f, checked, lines)]
            if f.fix is not None and f.fix.applicability is not Applicability.DISPLAY_ONLY:
                edit = workspace_edit(f.fix, opened, lines.codec, document_changes)
                if edit is not None:
                    unsafe = " (unsafe: read it first)" if f.fix.applicability is Applicability.UNSAFE else ""
                    out.append(
                        types.CodeAction(
                            title=f"{f.fix.title}{unsafe}",
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=diag,
                            edit=edit,
                            is_preferred=f.fix.applicability is Applicability.SAFE,
                        )
                    )
            for title, insert in suppressions(f, checked, lines):
                edit = _one_document(checked, opened, [insert], document_changes)
                out.append(
                    types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=diag, edit=edit)
                )
    if _wanted(FIX_ALL, only):
        change = fix_all(project, checked, lines)
        if change is not None:
            out.append(
                types.CodeAction(
                    title="Apply every safe schemacite fix",
                    kind=FIX_ALL,
                    edit=_one_document(checked, opened, [change], document_changes),
                )
            )
    return out


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether a request limited to the kinds `only` (None: any) takes actions of `kind`."""
    return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)


# ---- suppressing -------------------------------------------------------------------------------


def suppressions(f: Finding, checked: Checked, lines: Lines) -> list[tuple[str, types.TextEdit]]:
    """The comments that silence `f`: one for its statement, where `sources.read` looks for it (a
    line of its own before the statement, else at the statement's end), and one for the file."""
    if f.rule in checked.unsuppressible:
        return []
    newline = "\r\n" if "\r\n" in checked.text else "\n"
    out = []
    stmt = checked.statement_at(f.location.line, f.location.column)
    if stmt is not None and stmt.location.line == f.location.line:
        # a comment belongs to the statements ending on the first line at or after it that ends one
        before = max((s.end_line for s in checked.statements if s.end_line < stmt.end_line), default=0)
        comment = f"schemacite: ignore[{f.rule}]"
        if stmt.location.line > before:
            line = lines.line(stmt.location.line)
            indent = line[: len(line) - len(line.lstrip())]
            at = types.Position(stmt.location.line - 1, 0)
            out.append((f"{indent}-- {comment}{newline}", at))
        elif stmt.end_line > before:  # it starts on the line another statement ends on
            at = lines.statement_range(stmt).end
            out.append((f" /* {comment} */", at))
    titles = [f"Suppress {f.code} ({f.rule}) on this statement"] if out else []
    out.append((f"-- schemacite: ignore-file[{f.rule}]{newline}", types.Position(0, 0)))
    titles.append(f"Suppress {f.code} ({f.rule}) in this file")
    return [(title, types.TextEdit(types.Range(at, at), text)) for title, (text, at) in zip(titles, out)]


# ---- fixes --------------------------------------------------------------------------------------


def workspace_edit(
    fix: Fix, opened: Opened, codec: PositionCodec | None = None, document_changes: bool = True
) -> types.WorkspaceEdit | None:
    """`fix` as a WorkspaceEdit: its edits of each file located in the text the editor holds (the
    file on disk when it is not open), a new file created first. None when the client cannot take
    it (a new file, and a client that takes no resource operations)."""
    changes: list[types.TextDocumentEdit | types.CreateFile] = []
    plain: dict[str, list[types.TextEdit]] = {}
    for path in fix.paths:
        edits = [e for e in fix.edits if e.path == path]
        target = uri(os.path.abspath(path))
        if any(e.create for e in edits):
            if not document_changes:
                return None
            changes.append(
                types.CreateFile(uri=target, options=types.CreateFileOptions(overwrite=False, ignore_if_exists=False))
            )
            start = types.Range(types.Position(0, 0), types.Position(0, 0))
            text_edits = [types.TextEdit(start, e.text) for e in edits if e.create]
            version = None
        else:
            held = opened(os.path.abspath(path))
            text, version = held if held is not None else (_read(path), None)
            lines = Lines(text, codec)
            text_edits = [
                types.TextEdit(
                    types.Range(lines.position(e.line, e.column), lines.position(e.end_line, e.end_column)), e.text
                )
                for e in sorted(edits, key=Edit.sort_key)
            ]
        plain[target] = text_edits
        document = types.OptionalVersionedTextDocumentIdentifier(uri=target, version=version)
        changes.append(types.TextDocumentEdit(text_document=document, edits=list(text_edits)))
    if document_changes:
        return types.WorkspaceEdit(document_changes=changes)
    return types.WorkspaceEdit(changes=plain)


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return ""


def _one_document(
    checked: Checked, opened: Opened, edits: list[types.TextEdit], document_changes: bool
) -> types.WorkspaceEdit:
    target = uri(checked.path)
    if not document_changes:
        return types.WorkspaceEdit(changes={target: edits})
    held = opened(checked.path)
    version = held[1] if held is not None else checked.version
    document = types.OptionalVersionedTextDocumentIdentifier(uri=target, version=version)
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=document, edits=list(edits))])


def fix_all(project: Workspace, checked: Checked, lines: Lines) -> types.TextEdit | None:
    """Every safe fix of the document made, the document linted again and fixed again until
    nothing is left to fix (as `lint --fix` does): one edit replacing the lines that changed, or None."""
    # start-up: the language server loads this on the first request that needs it
    from schemacite.lint.fixing import MAX_ROUNDS, choose
    from schemacite.sources.edits import apply

    text, current = checked.text, checked
    for _ in range(MAX_ROUNDS):
        # the fixes `lint --fix` would make in this round, those that touch only this document
        fixes = [
            fix
            for fix in choose(current.findings, unsafe=False)
            if all(not e.create and os.path.abspath(e.path) == checked.path for e in fix.edits)
        ]
        if not fixes:
            break
        text = apply(text.encode(), [e for fix in fixes for e in fix.edits]).decode()
        current = project.check(checked.path, text)
        if current.problem or current.errors:
            break
    if text == checked.text:
        return None
    return changed_lines(checked.text, text, lines)


def changed_lines(old: str, new: str, lines: Lines) -> types.TextEdit:
    """One edit turning `old` into `new` that spans only the lines between their common head and tail."""
    a, b = re.split("(?<=\n)", old), re.split("(?<=\n)", new)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    end = types.Position(len(a) - tail, 0) if tail else lines.end()
    return types.TextEdit(types.Range(types.Position(head, 0), end), "".join(b[head : len(b) - tail]))
