"""Applying fixes: pick the ones that do not overlap, make them, lint again, repeat (with a bound).

`--fix` writes the files; `--diff` makes the same changes in memory (the engine reads them from
an overlay) and prints them. A fix whose edits overlap one already taken waits for the next
round, when it is judged again on the file as changed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import field

from schemacite.model.fixes import Edit, Fix
from schemacite.model.record import record
from schemacite.model.results import Finding, LintResult
from schemacite.sources.edits import apply, created, overlaps

MAX_ROUNDS = 10  # each round applies at least one fix; a bound keeps a fix that undoes another from looping


@record
class Fixed:
    """What a fixing run changed: each file's bytes before (None: created) and after."""

    files: dict[str, tuple[bytes | None, bytes]] = field(default_factory=dict)
    applied: int = 0
    rounds: int = 0
    left: list[str] = field(default_factory=list)  # files whose fixes were held back (as findings name them)

    def changed(self) -> dict[str, tuple[bytes | None, bytes]]:
        return {p: (b, a) for p, (b, a) in self.files.items() if b != a}


def applicable(findings: list[Finding], unsafe: bool) -> list[Finding]:
    return [f for f in findings if f.fix is not None and f.fix.applicability.applies(unsafe)]


def held_back(finding: Finding, kept: frozenset[str]) -> bool:
    """Whether the finding's fix would change a file of `kept` (real paths): its own file, or a
    file it edits."""
    fix = finding.fix
    paths = [finding.location.file, *(e.path for e in fix.edits if not e.create)] if fix else []
    return any(os.path.realpath(p) in kept for p in paths)


def choose(findings: list[Finding], unsafe: bool, kept: frozenset[str] = frozenset()) -> list[Fix]:
    """The fixes of one round: in file order, each whose edits overlap none already taken, none
    changing a file of `kept` (real paths). A fix that changes how the runner wraps a file in a
    transaction goes first and alone in its files: the others are judged again next round,
    against the file as the runner will then run it (a `SET LOCAL` outside any transaction would
    do nothing)."""
    taken: list[Fix] = []
    edits: list[Edit] = []
    reframed: set[str] = set()  # files whose transaction a fix of this round changes
    fixes = [f.fix for f in applicable(findings, unsafe) if f.fix is not None and not held_back(f, kept)]
    for fix in sorted(fixes, key=lambda x: not x.changes_transaction):  # stable: file order otherwise
        paths = set(fix.paths)
        if fix in taken or paths & reframed or any(overlaps(a, b) for a in fix.edits for b in edits):
            continue
        if fix.changes_transaction and paths & {e.path for e in edits}:
            continue
        taken.append(fix)
        edits.extend(fix.edits)
        if fix.changes_transaction:
            reframed |= paths
    return taken


def fix_files(
    lint: Callable[[dict[str, bytes]], LintResult], unsafe: bool, write: bool, kept: frozenset[str] = frozenset()
) -> tuple[Fixed, LintResult]:
    """Lint, apply, lint again until nothing applicable is left (or MAX_ROUNDS); `lint` takes the
    overlay of files changed so far (by absolute path). With `write`, files are written as each
    round ends; without, nothing on disk changes. The files of `kept` (real paths) are not
    changed: the ones whose fixes that held back are listed in `left`. Returns what changed and
    the last result."""
    done = Fixed()
    overlay: dict[str, bytes] = {}
    result = lint(overlay)
    while done.rounds < MAX_ROUNDS and not result.errors:
        fixes = choose(result.findings, unsafe, kept)
        for finding in applicable(result.findings, unsafe):
            if held_back(finding, kept) and finding.location.file not in done.left:
                done.left.append(finding.location.file)
        if not fixes:
            break
        done.rounds += 1
        by_path: dict[str, list[Edit]] = {}
        for fix in fixes:
            for edit in fix.edits:
                by_path.setdefault(os.path.abspath(edit.path), []).append(edit)
        for path, edits in by_path.items():
            before = overlay.get(path)
            if before is None and os.path.exists(path):
                with open(path, "rb") as f:
                    before = f.read()
            new = [e for e in edits if e.create]
            if new and (before is not None or len(edits) > 1):
                continue  # the file exists by now (another fix made it): judged again next round
            after = created(new[0]) if new else apply(before or b"", edits)
            first = done.files.get(path, (before, after))[0]  # as it was before the first round
            done.files[path] = (first, after)
            overlay[path] = after
            if write:
                if new:  # a runner whose migrations are folders (Prisma) gets a new folder
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(after)
        done.applied += len(fixes)
        result = lint({} if write else overlay)
    return done, result
