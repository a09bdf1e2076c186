"""Turning lock impacts into findings: the policy the two lock rules share (not a plugin itself)."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.lint.rule import Context, Finding, Rule, Severity
from schemacite.locks import existing_locks, label, unseen, works_on_existing
from schemacite.locks.duration import estimate, human_bytes, human_seconds
from schemacite.model.statements import Statement


def lock_findings(rule: Rule, stmt: Statement, ctx: Context, blocks: str) -> Iterator[Finding]:
    """One finding per statement for the impacts whose worst lock blocks exactly `blocks`."""
    existing = [(impact, existing_locks(impact, ctx.schema, stmt)) for impact in ctx.impacts]
    if blocks == "writes" and any(lk.blocks == "reads+writes" for _, locks in existing for lk in locks):
        return  # access-exclusive-lock reports this statement
    hits = [
        (impact, matching) for impact, locks in existing if (matching := [lk for lk in locks if lk.blocks == blocks])
    ]
    if not hits:
        return
    # a rewrite, scan or index build of a table the change created is quick, and the safer forms
    # (NOT VALID, CONCURRENTLY) are for a table that holds rows
    on_rows = works_on_existing(stmt, ctx.schema)
    heavy = [h for h in hits if h[0].rewrite or h[0].scan] if on_rows else []
    impact, locks = (heavy or hits)[0]
    sized = estimate(impact, ctx.schema, ctx.dialect, ctx.target) if heavy else None
    extra: dict = {}
    if sized is not None:
        # the lock lasts as long as the work: an error only when that is longer than allowed
        severity = Severity.ERROR if sized.seconds > ctx.max_lock_seconds else None
        rows = f", {sized.rows:,} rows" if sized.rows is not None else ""
        why = (
            f": it {sized.work} {sized.relation} ({human_bytes(sized.bytes)}{rows}) under the lock,"
            f" {human_seconds(sized.seconds)} at {human_bytes(sized.rate)}/s ({sized.evidence})"
        )
        extra = {
            "table_rows": sized.rows,
            "table_bytes": sized.bytes,
            "estimated_lock_seconds": round(sized.seconds, 1),
            "rate_evidence": sized.evidence,
        }
    elif heavy:
        severity = Severity.ERROR
        why = " while it " + ("rewrites the table" if impact.rewrite else "scans the table")
    else:
        severity = Severity.INFO if ctx.lock_timeout_set else None
        why = ""
    what = label(impact.operation)
    suggestion = (impact.alternative or "") if on_rows else ""
    if not ctx.lock_timeout_set:
        wait = "SET lock_timeout" if ctx.dialect == "postgres" else "SET SESSION lock_wait_timeout"
        suggestion = (
            suggestion + "; " if suggestion else ""
        ) + f"{wait} first so the lock cannot queue traffic for long"
    if impact.note:
        suggestion += f" ({impact.note})"
    names = list(dict.fromkeys(lk.relation for lk in locks))
    named_indexes = set(getattr(stmt.op, "names", ())) if stmt.kind == "drop_index" else set()
    indexes = [
        n for n in names if n not in ctx.schema.tables and (ctx.schema.index_owner(n) is not None or n in named_indexes)
    ]
    tables = [n for n in names if n not in indexes]
    missing = unseen(names, ctx.schema)
    if missing:
        why += f" ({', '.join(missing)} not seen in the history)"
    mode = "/".join(dict.fromkeys(lk.mode if ctx.dialect == "postgres" else f"LOCK={lk.mode}" for lk in locks))
    if impact.algorithm:
        mode += f" (ALGORITHM={impact.algorithm})"
    finding = rule.finding(
        stmt.location,
        table=", ".join(tables) or None,
        index=", ".join(indexes) or None,
        severity=severity,
        dialect=ctx.dialect,
        sql=stmt.sql,
        suggestion=suggestion,
        what=what,
        mode=mode,
        why=why,
        on=", ".join(names),
    )
    if extra:
        finding.extra.update(extra)
        finding.evidence = tuple(dict.fromkeys((*finding.evidence, sized.evidence)))
    yield finding
