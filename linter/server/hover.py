"""Hover on a statement: its row of `schemacite locks` for the target, and the evidence behind it
(the lock table's source and the server it was measured on; the records its findings cite)."""

from __future__ import annotations

from lsprotocol import types

from schemacite.locks import label
from schemacite.server.positions import Lines, contains
from schemacite.server.workspace import Checked, Workspace


def hover(project: Workspace, checked: Checked, lines: Lines, position: types.Position) -> types.Hover | None:
    stmt = next((s for s in checked.statements if contains(lines.statement_range(s), position)), None)
    if stmt is None or checked.config is None:
        return None
    row = next((r for r in project.locks(checked) if r.statement.location == stmt.location), None)
    text = describe(row, checked) if row is not None else _findings(checked, stmt.location.line)
    if not text:
        return None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
        range=lines.statement_range(stmt),
    )


def describe(row, checked: Checked) -> str:
    """A lock-table row as Markdown: what the statement takes, on which relation, and why we think so."""
    # start-up: the language server loads this on the first request that needs it
    from schemacite.locks.report import measured_on, row_json

    config = checked.config
    assert config is not None
    facts = row_json(row, config.dialect)
    mysql = config.dialect.is_mysql_family
    operations = ", ".join(dict.fromkeys(label(i.operation) for i in row.impacts)) or row.statement.kind.upper()
    sections = [f"**{operations}** on {config.target}: blocks **{row.blocks}**"]
    if row.summary:
        sections.append(row.summary)
    if facts["locks"] and row.existing:
        table = ["| relation | lock | blocks |", "|---|---|---|"]
        table += [f"| {lk['relation']} | {lk['mode']} | {lk['blocks']} |" for lk in facts["locks"]]
        sections.append("\n".join(table))
    work = [f"{'rebuild' if mysql else 'rewrite'}: {'yes' if facts['rewrite'] else 'no'}"]
    work.append(f"scan: {'yes' if facts['scan'] else 'no'}")
    if mysql and facts.get("algorithm"):
        work.append(f"algorithm: {facts['algorithm']}")
    sections.append(" · ".join(work))
    if facts["alternative"]:
        sections.append(f"safer: {facts['alternative']}")
    sections += [f"note: {note}" for note in facts["notes"] if note != row.summary]
    sources = dict.fromkeys(
        f"- `{i.row}`: {i.source or 'no documentation named'}; {measured_on(i, config.target)}"
        for i in row.impacts
        if i.row
    )
    if sources:
        sections.append("lock table:\n\n" + "\n".join(sources))
    sections.append(_findings(checked, row.statement.location.line))
    return "\n\n".join(s for s in sections if s)


def _findings(checked: Checked, line: int) -> str:
    """The findings of the statement at `line`, each with the evidence it cites."""
    # start-up: the evidence catalogue loads only when something cites it
    from schemacite.evidence import load_catalogue

    catalogue = load_catalogue()
    out = []
    for f in checked.findings:
        if f.location.line == line and f.location.file == checked.path:
            out.append(f"- [{f.code}]({f.url}) {f.rule}: {f.message}")
            cited = [_cited(eid, catalogue.get(eid)) for eid in f.evidence]
            out += [f"  - {c}" for c in [*cited, f.evidence_note] if c]
    return "findings:\n\n" + "\n".join(out) if out else ""


def _cited(eid: str, record) -> str:
    """An evidence id, linked to its source, with who measured it on what."""
    if record is None:
        return eid
    head = f"[{eid}]({record.url})" if record.url else eid
    return f"{head}: {record.title} ({record.short_citation()})"
