"""The lock tables as Markdown pages (docs/locks/<dialect>.md), generated from the tables themselves.

One row per operation and version range: what it locks, whether it rewrites or scans, the
server versions the row holds for and the ones it was measured on, and where it comes from.
"""

from __future__ import annotations

from schemacite.locks import label
from schemacite.locks.rows import dotted
from schemacite.model.dialects import DEFAULT_TARGET, Dialect


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _yes(value: bool | None, when: str = "") -> str:
    if value is None:
        return f"depends: {when}" if when else "depends"
    return "yes" if value else "no"


def postgres_page() -> str:
    # start-up: `rules` and `explain` import these pages (through schemacite.docs); each table loads for its page
    from schemacite.locks import postgres_table as T

    majors = sorted(T.MEASURED_ON)
    releases = ", ".join(T.MEASURED_ON[m] for m in majors)
    lines = [
        "# What each statement locks on PostgreSQL",
        "",
        "Generated from `linter/locks/postgres_table.py` by `python -m schemacite.docs`; do not edit.",
        "",
        f"Every row is checked by `tests/test_locks_postgres.py` on a real server of each major it holds for "
        f"(releases {releases}): the lock on every relation (`pg_locks`), whether the table is rewritten "
        "(`relfilenode`) and whether it is read whole (`pg_stat_xact_user_tables.seq_scan`; statements that "
        "cannot run in a transaction block are observed from another session, where the scan is not seen). "
        "The rows that no server case can reach say why. Lock names are those of `pg_locks.mode`; "
        f"*others* are locks on other relations, by role. The default target is {DEFAULT_TARGET[Dialect.POSTGRES]}.",
        "",
        "| statement | lock | others | rewrite | scan | versions | measured on | source |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, rows in T.ROWS.items():
        for row in rows:
            versions = dotted(row.since) + (
                "+" if row.until is None else f"-{dotted(row.until)}" if row.until != row.since else ""
            )
            held = [m for m in majors if row.holds_on((m,))]
            measured = (
                f"not measured: {row.unmeasured}" if row.unmeasured else ", ".join(T.MEASURED_ON[m] for m in held)
            )
            others = "; ".join(
                f"{o.role}: {o.mode}" + (" (and its partitions)" if o.recurse else "") for o in row.others
            )
            lock = row.mode or "(per parameter)" if key.endswith("storage_params") else row.mode or "none of its own"
            if row.recurse:
                lock += f", partitions {row.partition_mode or row.mode}"
            if row.refused:
                lock = f"refused (SQLSTATE {row.refused})"
            rewrite = "new empty file" if row.new_storage else _yes(row.rewrite, row.rewrite_when)
            lines.append(
                "| "
                + " | ".join(
                    _cell(c)
                    for c in (
                        label(key),
                        lock,
                        others or "",
                        rewrite,
                        _yes(row.scan, row.scan_when),
                        versions,
                        measured,
                        row.source,
                    )
                )
                + " |"
            )
    return "\n".join(lines) + "\n"


def mysql_page() -> str:
    # start-up: `rules` and `explain` import these pages (through schemacite.docs); each table loads for its page
    from schemacite.locks import mysql_table as T

    lines = [
        "# What each statement does on MySQL and MariaDB",
        "",
        "Generated from `linter/locks/mysql_table.py` by `python -m schemacite.docs`; do not edit.",
        "",
        "The online DDL matrix: the cheapest algorithm and the least LOCK level the server accepts for each "
        "operation, whether the table is rebuilt, and from which release. Rows marked *measured* were checked "
        "by `tests/test_locks_mysql.py` on a real MariaDB 10.11 server, which was asked for every "
        "ALGORITHM/LOCK combination in turn. **No MySQL server could be run here: every MySQL row rests on "
        "MySQL's documentation only**, as do the MariaDB rows for other releases.",
        "",
    ]
    for server, table in T.tables().items():
        lines += [
            f"## {'MySQL' if server == 'mysql' else 'MariaDB'}",
            "",
            "| operation | from | algorithm | lock | rebuild | scan | checked | source |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for key, rows in table.items():
            for row in rows:
                checked = "documentation" if row.unmeasured else f"measured on {server} {T.MEASURED_ON[server]}"
                lines.append(
                    "| "
                    + " | ".join(
                        _cell(c)
                        for c in (
                            key.replace("_", " "),
                            dotted(row.since),
                            row.algorithm or "(no clause)",
                            row.mode,
                            _yes(row.rewrite),
                            _yes(row.scan),
                            checked,
                            row.source,
                        )
                    )
                    + " |"
                )
        since, source, ignored = T.INLINE_REFERENCES[server]
        created = (
            f"adds a foreign key from {dotted(since)}, judged as `ADD FOREIGN KEY` in the same statement; before that: "
            if since
            else "adds nothing on any target: "
        )
        lines += ["", f"An inline `REFERENCES` in `ADD COLUMN` {created}{ignored} ({source}).", ""]
        for case, (first, code, source, why) in T.REFUSED[server].items():
            lines += [
                f"Refused from {dotted(first)} ({case.replace('_', ' ')}, error {code}): {why} ({source}).",
                "",
            ]
    return "\n".join(lines)


PAGES = {"postgres.md": postgres_page, "mysql.md": mysql_page}
