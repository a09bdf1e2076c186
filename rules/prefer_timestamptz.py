"""prefer-timestamptz: timestamp without time zone columns on PostgreSQL (a preference)."""

from __future__ import annotations

from collections.abc import Iterator

from schemacite.model.statements import Statement
from schemacite.rule import Context, Finding, Rule, Severity
from schemacite.rules.declared_types import declared_types


class PreferTimestamptz(Rule):
    """Column declared timestamp without time zone on PostgreSQL.

    ## What it does
    Flags a `timestamp` (`timestamp without time zone`) column that a `CREATE TABLE`,
    `ADD COLUMN` or `ALTER COLUMN ... TYPE` declares on PostgreSQL. A preference: it runs only
    when selected.

    ## Why is this bad?
    A `timestamp` stores a date and a clock reading with no zone, so it does not name an instant:
    the same value means different moments to sessions whose `TimeZone` differs, and arithmetic
    across a daylight-saving change is off by the shift. PostgreSQL's manual says the literal's
    zone is silently ignored for this type. A `timestamptz` stores the instant (in UTC) and shows it
    in the session's zone. Turn it on if your timestamps record when something happened; leave it
    off for wall-clock values such as a shop's opening hours.

    ## Example
    ```sql postgres
    CREATE TABLE events (id bigint PRIMARY KEY, happened_at timestamp NOT NULL);
    ```

    ## Use instead
    ```sql postgres
    CREATE TABLE events (id bigint PRIMARY KEY, happened_at timestamptz NOT NULL);
    ```

    ## References
    - [PostgreSQL: Date/Time Types, Time Stamps](https://www.postgresql.org/docs/current/datatype-datetime.html#DATATYPE-DATETIME-INPUT-TIME-STAMPS)
    - [PostgreSQL wiki: Don't Do This, Don't use timestamp (without time zone)](https://wiki.postgresql.org/wiki/Don't_Do_This#Don.27t_use_timestamp_.28without_time_zone.29)
    """

    code = "SC203"
    name = "prefer-timestamptz"
    family = "preferences"
    summary = "Column {table}.{column} is timestamp without time zone: its values name no instant"
    default_severity = Severity.WARNING
    dialects = frozenset({"postgres"})
    evidence = ("pg-doc-timestamp-time-zones",)
    evidence_note = "A type preference: documented behaviour of the type, no cost to measure."

    def check_statement(self, stmt: Statement, ctx: Context) -> Iterator[Finding]:
        for col in declared_types(stmt):
            if col.base_type != "timestamp":
                continue
            yield self.finding(
                stmt.location,
                table=col.table,
                column=col.column,
                suggestion="declare it timestamptz; changing an existing column's type rewrites the table "
                "(and reads the values in the session's TimeZone)",
                dialect=ctx.dialect,
                identity=col.column,
            )
