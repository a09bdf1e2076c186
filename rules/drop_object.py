"""drop-object: DROP FUNCTION, PROCEDURE, SEQUENCE or EXTENSION of one the running release may
still call."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model import Schema
from schemacite.model.statements import DropObjects, DropSequence, Statement
from schemacite.rule import Context, Finding
from schemacite.rules.running_release import BreaksRunning
from schemacite.sources.names import written

# what the running release's statements get once the object is gone, by object
FAILS = {
    "function": "its calls of {name}() fail (42883 undefined function)",
    "procedure": "its CALL {name}() fails (42883 undefined function)",
    "sequence": "its nextval('{name}') fails (42P01 relation does not exist)",
    "extension": "the types and functions {name} installed go with it, and the queries using them fail",
}
MYSQL_FAILS = {
    "function": "its calls of {name}() fail (1305 FUNCTION does not exist)",
    "procedure": "its CALL {name}() fails (1305 PROCEDURE does not exist)",
    "sequence": "its NEXTVAL({name}) fails (1146 Table doesn't exist)",
}
KINDS = frozenset({"function", "procedure", "routine", "sequence", "extension"})


class DropObject(BreaksRunning):
    """Function, procedure, sequence or extension dropped while the previous release may still use it.

    ## What it does
    Flags `DROP FUNCTION`, `DROP PROCEDURE`, `DROP ROUTINE`, `DROP SEQUENCE` and `DROP EXTENSION`
    of one that existed before the deploy, on PostgreSQL, and `DROP FUNCTION` / `DROP PROCEDURE`
    (and MariaDB's `DROP SEQUENCE`) on MySQL and MariaDB. One the same deploy created, a `DROP
    ... IF EXISTS` of one the history never shows created, and one the deploy creates again under
    the same name before it ends (a function dropped to change its signature or its return type,
    then created anew) are not flagged. Functions are told apart by name, not by argument types.

    ## Why is this bad?
    During a rolling deploy the previous release keeps serving while the migration runs. Once
    the object is gone its statements fail until its last process stops: a call of the function
    or procedure with `42883 undefined function` (MySQL and MariaDB `1305 does not exist`), a
    `nextval('seq')` with `42P01 relation does not exist`, and the queries using the types,
    operators and functions an extension installed with errors of their own. A rollback of the
    code finds them gone too.

    The rule cannot see whether the code stopped using the object in an earlier release. After
    such a deprecation, silence the finding where it stands with
    `-- schemacite: ignore[drop-object] unused since 4.2` on the line before the statement, or
    record it in a baseline (`--write-baseline`).

    ## Example
    ```sql postgres
    DROP FUNCTION order_total(bigint);
    ```

    ## Use instead
    Stop calling it in one release, and drop it in the next:
    ```sql postgres
    -- release N: the code no longer calls order_total()
    -- release N+1:
    -- schemacite: ignore[drop-object] unused since release N
    DROP FUNCTION order_total(bigint);
    ```
    To change a function's body, `CREATE OR REPLACE FUNCTION` it in place.

    ## References
    - [squawk: ban-drop-function](https://squawkhq.com/docs/ban-drop-function)
    - [squawk: ban-drop-sequence](https://squawkhq.com/docs/ban-drop-sequence)
    - [squawk: ban-drop-extension](https://squawkhq.com/docs/ban-drop-extension)
    - [PostgreSQL: DROP FUNCTION](https://www.postgresql.org/docs/current/sql-dropfunction.html)
    """

    code = "SC134"
    name = "drop-object"
    summary = "{what} {object} is dropped while the release still running may use it: {fails}"
    statement_kinds = frozenset({"other", "drop_sequence"})
    evidence = ("squawk-ban-drop-function-sequence-extension",)

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        op, schema = stmt.op, ctx.schema
        if isinstance(op, DropSequence):
            kind, names, if_exists = "sequence", op.names, op.if_exists
        elif isinstance(op, DropObjects) and op.object in KINDS:
            kind, names, if_exists = op.object, op.names, op.if_exists
        else:
            return
        fails = MYSQL_FAILS if ctx.dialect != "postgres" else FAILS
        for name in names:
            if not name or not _before(schema, kind, name, if_exists):
                continue
            shown = "function" if kind == "routine" else kind
            what = {"routine": "Routine"}.get(kind, shown.capitalize())
            shown_name = written(name, ctx.dialect) if kind in ("sequence", "extension") else name
            yield self.finding(
                stmt.location,
                sql=stmt.sql,
                dialect=ctx.dialect,
                identity=f"{kind} {name}",
                what=what,
                object=shown_name,
                fails=fails.get(shown, FAILS[shown]).format(name=shown_name),
                suggestion=(
                    f"first deploy code that no longer uses {shown_name}, then drop it in a later release"
                    + ("; to change its body, CREATE OR REPLACE it in place" if kind != "sequence" else "")
                    if kind != "extension"
                    else f"first deploy code that no longer uses the types and functions of {shown_name}, "
                    "then drop it in a later release"
                ),
            )

    def answers(self, finding: Finding, schema: Schema) -> bool:
        """Whether the deploy created the name again before it ended."""
        kind, _, name = finding.identity.partition(" ")
        if kind == "sequence":
            return name in schema.sequences
        kinds = ("function", "procedure") if kind == "routine" else (kind,)
        return any((k, name) in schema.objects for k in kinds)


def _before(schema: Schema, kind: str, name: str, if_exists: bool) -> bool:
    """Whether the object may be one the running release uses: there before the deploy (one
    never seen is taken to exist, unless IF EXISTS)."""
    if kind == "sequence":
        if name in schema.fresh:
            return False
        return name in schema.sequences or not if_exists
    kinds = ("function", "procedure") if kind == "routine" else (kind,)
    if any((k, name) in schema.fresh_objects for k in kinds):
        return False
    return any((k, name) in schema.objects for k in kinds) or not if_exists
