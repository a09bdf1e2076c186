"""Findings and input errors as LSP diagnostics.

A finding covers its statement; its related information says what the finding rests on: the
suggestion, the evidence it cites (or why none is measured), and where each table it names was
created, in this file or in the history.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from schemacite.model import Location
from schemacite.model.results import Finding, Severity
from schemacite.model.statements import ParseError
from schemacite.server.positions import Lines
from schemacite.server.workspace import Checked

SOURCE = "schemacite"
SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def diagnostics(checked: Checked, lines: Lines) -> list[types.Diagnostic]:
    if checked.problem:  # nothing was judged: say why where the file starts
        return [_error(lines.line_range(1), checked.problem)]
    out = [_error(_error_range(e, checked, lines), _error_message(e, checked)) for e in checked.errors]
    out += [diagnostic(f, checked, lines) for f in checked.findings if f.location.file == checked.path]
    return out


def finding_range(f: Finding, checked: Checked, lines: Lines) -> types.Range:
    stmt = checked.statement_at(f.location.line, f.location.column)
    if stmt is not None and stmt.location.line == f.location.line:
        return lines.statement_range(stmt)
    return lines.line_range(f.location.line)


def diagnostic(f: Finding, checked: Checked, lines: Lines) -> types.Diagnostic:
    where = finding_range(f, checked, lines)
    return types.Diagnostic(
        range=where,
        message=f.message,
        severity=SEVERITY[f.severity],
        code=f.code,
        code_description=types.CodeDescription(href=f.url) if f.url else None,
        source=SOURCE,
        related_information=related(f, checked, where) or None,
        data={"rule": f.rule, "line": f.location.line, "column": f.location.column},
    )


def related(f: Finding, checked: Checked, where: types.Range) -> list[types.DiagnosticRelatedInformation]:
    # start-up: the evidence catalogue loads only when something cites it
    from schemacite.evidence import load_catalogue

    here = types.Location(uri(checked.path), where)
    out = []
    if f.suggestion:
        out.append(types.DiagnosticRelatedInformation(here, f"suggestion: {f.suggestion}"))
    catalogue = load_catalogue()
    for eid in f.evidence:
        record = catalogue.get(eid)
        cited = f"{record.title} ({record.short_citation()})" if record else "not in the catalogue"
        out.append(types.DiagnosticRelatedInformation(here, f"evidence {eid}: {cited}"))
    if f.evidence_note:
        out.append(types.DiagnosticRelatedInformation(here, f.evidence_note))
    for table in dict.fromkeys((f.table or "").split(", ")):
        created = checked.created_at(table) if table else None
        if created is not None and created.line and (created.file, created.line) != (f.location.file, f.location.line):
            out.append(types.DiagnosticRelatedInformation(_line_of(created), f"{table} is created here"))
    return out


def _line_of(at: Location) -> types.Location:
    """A whole line of a file that may not be open (no text to count its columns in)."""
    return types.Location(uri(at.file), types.Range(types.Position(at.line - 1, 0), types.Position(at.line, 0)))


def _error(where: types.Range, message: str) -> types.Diagnostic:
    return types.Diagnostic(range=where, message=message, severity=types.DiagnosticSeverity.Error, source=SOURCE)


def _error_range(e: ParseError, checked: Checked, lines: Lines) -> types.Range:
    if e.file != checked.path or e.line < 1:  # a file it includes, or the file as a whole
        return lines.line_range(1)
    whole = lines.line_range(e.line)
    start = lines.position(e.line, e.column)
    if not e.column or start.character >= whole.end.character:
        return whole
    return types.Range(start, whole.end)


def _error_message(e: ParseError, checked: Checked) -> str:
    return e.message if e.file == checked.path else str(e)


def uri(path: str) -> str:
    return from_fs_path(path) or Path(path).as_uri()
