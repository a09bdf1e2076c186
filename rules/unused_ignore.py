"""unused-ignore: suppression comments that do not parse, name no known rule, or silence nothing."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.rule import Context, Finding, Rule, Severity, Suppression


class UnusedIgnore(Rule):
    """Suppression comment does not parse, names an unknown rule, or silences nothing.

    ## What it does
    Flags `-- schemacite: ignore[...]` and `-- schemacite: ignore-file[...]` comments that
    name a rule schemacite does not know (a typo, or a rule from a pack that is not
    installed), and comments whose rules raised nothing there to silence. A comment naming a
    rule that did not run (disabled in the config, or not for this dialect) is left alone: it
    cannot be judged.

    A `schemacite:` comment that does not parse is flagged too, and silences nothing: an
    `ignore` or `ignore-file` that names no rule (a suppression silences only the rules it
    names, never every rule), or a word after `schemacite:` that is not a directive
    (`ignore`, `ignore-file`, `insert-heavy`).

    ## Why is this bad?
    A misspelt rule name silences nothing, so the finding it was meant for still fails the
    build, or, worse, the author believes a check was considered when it was not. A comment
    that no longer silences anything (the statement was fixed) stays in the file and will
    silently swallow the next, different finding on that statement. A comment that names no
    rule would otherwise silence every rule on its statement, errors included, unseen.

    ## Example
    ```sql postgres
    -- schemacite: ignore[no-primary-kye]
    CREATE TABLE events (id bigint PRIMARY KEY, payload jsonb);
    ```

    ## Use instead
    ```sql postgres
    CREATE TABLE events (id bigint PRIMARY KEY, payload jsonb);
    ```

    ## References
    - ruff's `unused-noqa` (RUF100) and squawk's unused-ignore check follow the same idea.
    """

    code = "SC108"
    name = "unused-ignore"
    family = "suppressions"
    summary = "Suppression {what}"
    default_severity = Severity.WARNING
    evidence_note = "Keeps suppression comments honest; a matter of correctness, not a measured cost."

    def check_suppression(self, suppression: Suppression, ctx: Context) -> Iterator[Finding]:
        if suppression.problem:
            yield self.finding(
                suppression.location,
                identity="problem",
                what=f"comment does not parse: {suppression.problem}; it silences nothing",
                suggestion="name the rules it silences: `schemacite: ignore[SC104, no-primary-key] reason`",
            )
            return
        comment = "ignore-file" if suppression.scope == "file" else "ignore"
        for rule in sorted(suppression.unknown):
            yield self.finding(
                suppression.location,
                identity=f"unknown:{rule}",
                what=f"names unknown rule {rule!r}",
                suggestion=f"use a rule name or code from `schemacite rules` in {comment}[...]",
            )
        idle = sorted(suppression.rules - suppression.used - suppression.unknown - suppression.inactive)
        if idle:
            yield self.finding(
                suppression.location,
                identity=f"unused:{','.join(idle)}",
                what=f"{comment}[{', '.join(idle)}] silences nothing here",
                suggestion="remove it (or the rule names it no longer needs)",
            )
