"""InnoDB online DDL matrix for MySQL and MariaDB: data, no logic.

For every operation key, per server, a tuple of `Row`s (`rows.MysqlRow`, keyword-only), oldest
first: a row holds from version `since` until the next row of its key. A row gives the cheapest
ALGORITHM the server can use, whether the table is rewritten (rebuilt or copied), and in `mode`
the least restrictive LOCK level that still lets the statement run:

    NONE       concurrent reads and writes go on   (blocks nothing)
    SHARED     reads go on, writes wait            (blocks writes)
    EXCLUSIVE  reads and writes wait               (blocks reads+writes)

`algorithm` None means the server takes no ALGORITHM clause for the operation
(MariaDB partition maintenance, MySQL 5.7 partition maintenance, TRUNCATE ...).

The rows are in mysql_table.json, read on first use (the end of this module). Each names the
documentation page it comes from in `source`; `unmeasured` is empty when a row was measured on a real server
(MEASURED_ON) by tests/test_locks_mysql.py, and "documentation only" otherwise. Where the
server and the page disagree, the row follows the server and `note` says so.
Rows marked "inferred" are not in the Online DDL tables; their note says why
the value was chosen.

Keys are the ALTER TABLE action ops of schemacite.model.statements, refined with a
suffix where the outcome depends on what the op changes:

    add_column[.position|.auto_increment|.stored|.virtual|.default_expression|.default_copy]
    drop_column[.indexed|.in_composite|.stored|.virtual]
    modify_column.<change>   (also used for change_column; the changes are listed below)
    add_index[.fulltext_first|.fulltext|.spatial], add_unique[.clustered]
    add_foreign_key[.no_checks], engine[.change], convert_charset[.utf8mb3_to_utf8mb4|.same|.collation]
    add_partition[.hash], ...
    statement.<kind>         statement kinds other than alter_table
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from schemacite.locks.rows import FulltextLimits
from schemacite.locks.rows import MysqlRow as Row

# --------------------------------------------------------------------------- sources
MY57 = "https://dev.mysql.com/doc/refman/5.7/en/innodb-online-ddl-operations.html"
MY80 = "https://dev.mysql.com/doc/refman/8.0/en/innodb-online-ddl-operations.html"
MY84 = "https://dev.mysql.com/doc/refman/8.4/en/innodb-online-ddl-operations.html"
MY_MDL = "https://dev.mysql.com/doc/refman/8.0/en/innodb-online-ddl-performance.html"
MY_ALTER = "https://dev.mysql.com/doc/refman/8.0/en/alter-table.html"
MY_CREATE_FK = "https://dev.mysql.com/doc/refman/8.0/en/create-table-foreign-keys.html"

MDB_INSTANT = (
    "https://mariadb.com/docs/server/server-usage/storage-engines/innodb/innodb-online-ddl/"
    "innodb-online-ddl-operations-with-the-instant-alter-algorithm"
)
MDB_INPLACE = (
    "https://mariadb.com/docs/server/server-usage/storage-engines/innodb/innodb-online-ddl/"
    "innodb-online-ddl-operations-with-the-inplace-alter-algorithm"
)
MDB_OVERVIEW = (
    "https://mariadb.com/docs/server/server-usage/storage-engines/innodb/innodb-online-ddl/innodb-online-ddl-overview"
)
MDB_ALTER = "https://mariadb.com/docs/server/reference/sql-statements/data-definition/alter/alter-table"
MDB_FK = "https://mariadb.com/kb/en/foreign-keys/"


# The servers rows marked measured (`unmeasured=""`) were checked on by tests/test_locks_mysql.py
# (through schemacite.locks.verify_mysql): server -> the release. No MySQL server could be run.
MEASURED_ON = {"mariadb": "10.11"}

# The note every MySQL/MariaDB DDL carries, whatever its row says.
MDL_NOTE = (
    "Every ALTER TABLE (and CREATE/DROP INDEX, OPTIMIZE, RENAME, TRUNCATE) takes an exclusive "
    "metadata lock briefly at its start and end. It waits for every open transaction that has "
    "touched the table, and while it waits every new query on the table queues behind it. "
    "Run `SET SESSION lock_wait_timeout = 5;` (seconds) before the statement so it gives up "
    "instead of stalling traffic, and retry."
)
MDL_NOTE_MARIADB = " On MariaDB, `ALTER TABLE t WAIT 5 ...` / `NOWAIT` bounds the wait for one statement."
MDL_SOURCES = {
    "mysql": MY_MDL + "#online-ddl-metadata-locks",
    "mariadb": MDB_OVERVIEW + "#alter-locking-strategies",
}

# MariaDB 11.2+: ALGORITHM=COPY can run with LOCK=NONE (online copy through a change
# buffer), and is the default whenever the engine cannot do the change natively.
MARIADB_ONLINE_COPY_SINCE = (11, 2)


# MariaDB: the functions whose value a DEFAULT of ADD COLUMN must compute row by row, so that
# INSTANT and INPLACE are refused (1845, "Try ALGORITHM=COPY") and the table is copied under
# LOCK=SHARED; measured on MariaDB 10.11, one ALTER per function (`add_column.default_copy`). A
# DEFAULT that reads another column of the table copies too. Measured INSTANT (the value is the
# same for every existing row, computed once): now(), current_timestamp(), curdate(), curtime(),
# utc_date(), utc_time(), rand(), user(), current_user(), database(), connection_id(), version(),
# unix_timestamp(), concat(...), md5(rand()), constant arithmetic.
MARIADB_DEFAULT_COPY_FUNCTIONS = frozenset(
    {"uuid", "uuid_short", "sys_guid", "sysdate", "utc_timestamp", "random_bytes"}
)

# What a MODIFY/CHANGE COLUMN changes (the <change> of modify_column.<change>), in the order impacts()
# checks them:
#   rename                      CHANGE a b <same definition>
#   same                        no change the storage sees (comment, same definition)
#   default                     only the DEFAULT differs
#   not_null                    NULL -> NOT NULL
#   null                        NOT NULL -> NULL
#   reorder                     FIRST / AFTER
#   varchar_extend              longer VARCHAR, same number of length bytes (<=255 or >=256 bytes both)
#   varchar_extend_from_127     <=127 bytes -> >=256 bytes (MariaDB instant, MySQL copy)
#   varchar_extend_over_255     128..255 bytes -> >=256 bytes: length bytes change
#   enum_append                 ENUM/SET members appended at the end, same storage size
#   charset_utf8mb3_to_utf8mb4
#   collation                   same charset, other collation
#   auto_increment              existing column becomes AUTO_INCREMENT
#   type                        any other type change (shrink, int widen, signedness, charset, reorder ENUM...)
#   foreign_key_type            a type change of a column in a foreign key

# --------------------------------------------------------------------------- MySQL

# Table facts that change the row (MySQL).
MYSQL_FULLTEXT: FulltextLimits = {
    # instant ADD/DROP COLUMN is not available on a table with a FULLTEXT index
    "no_instant_columns": (
        (8, 0, 12),
        MY80,
        "INSTANT cannot add or drop columns of a table with a FULLTEXT index",
    ),
    # a rebuild of a table with a FULLTEXT index cannot run with LOCK=NONE
    "rebuild_lock": (
        "SHARED",
        MY57,
        (
            "inferred from InnoDB's FULLTEXT limits (measured on MariaDB): rebuilding a table with a "
            "FULLTEXT index blocks writes"
        ),
    ),
    # FORCE, ENGINE=InnoDB and OPTIMIZE TABLE fall back to COPY
    "rebuild_copy_ops": frozenset({"force", "engine", "statement.optimize_table"}),
    "rebuild_copy_note": "ALGORITHM=INPLACE is not supported for tables with FULLTEXT indexes",
}

# --------------------------------------------------------------------------- MariaDB
_D0 = (10, 0)

# Table facts that change the row (MariaDB), from the INPLACE page's Limitations.
MARIADB_FULLTEXT: FulltextLimits = {
    # a hidden FTS_DOC_ID column prevents instant ADD/DROP/reorder of columns (measured)
    "no_instant_columns": (
        (10, 3, 2),
        MDB_INSTANT,
        (
            "a table with a FULLTEXT index (hidden FTS_DOC_ID) cannot add, drop or reorder columns "
            "instantly: the table is rebuilt"
        ),
    ),
    "rebuild_lock": ("SHARED", MDB_INPLACE, "a table with a FULLTEXT index cannot be rebuilt with LOCK=NONE"),
    # with two or more FULLTEXT indexes no rebuild can run in place
    "rebuild_copy_if_more_than_one": True,
    "rebuild_copy_note": "a table with more than one FULLTEXT index cannot be rebuilt in place",
}
# ROW_FORMAT=COMPRESSED: no instant column changes; the table is rebuilt in place instead
COMPRESSED_NO_INSTANT = {
    "mysql": (MY84, "ROW_FORMAT=COMPRESSED tables do not support ALGORITHM=INSTANT: the table is rebuilt"),
    "mariadb": (
        MDB_INSTANT,
        "ROW_FORMAT=COMPRESSED tables cannot add, drop or reorder columns instantly "
        "(measured: ALGORITHM=INSTANT refused, error 1845): the table is rebuilt in place",
    ),
}

SPATIAL_REBUILD = (
    "SHARED",
    MDB_INPLACE,
    "a table with a SPATIAL index cannot be rebuilt with LOCK=NONE",
)

# Column ops that INSTANT handles only on their own: combined with any action that
# is not INSTANT, the statement falls back to a table rebuild (MySQL "A statement
# cannot combine the addition of a column with other ALTER TABLE actions that do
# not support the INSTANT algorithm"; measured the same on MariaDB 10.11).
INSTANT_ONLY_ALONE = frozenset(
    {
        "add_column",
        "add_column.position",
        "drop_column",
        "drop_column.stored",
        "modify_column.reorder",
    }
)

# An inline `col ... REFERENCES p (id)` in ADD COLUMN: (since, source, what happens before) per server.
# From `since` it adds a real foreign key, judged as ADD FOREIGN KEY in the same statement
# (measured on MariaDB 10.11: COPY with foreign_key_checks=ON, error 1846 for anything cheaper;
# with them OFF the instant column falls back to an in-place rebuild). Before it the clause is
# parsed and ignored (every MySQL target).
INLINE_REFERENCES = {
    "mariadb": (
        (10, 5),
        MDB_FK,
        "MariaDB before 10.5 parses and ignores an inline REFERENCES: no foreign key is created",
    ),
    "mysql": (
        None,  # no MySQL target (8.4 and older) creates one
        MY_CREATE_FK,
        "MySQL 8 parses and ignores an inline REFERENCES (its foreign key page; not measured): no foreign key "
        "is created; write FOREIGN KEY (col) REFERENCES ... to get one",
    ),
}

# Statements the server refuses whatever the clauses: key -> (since, error code, source, why).
REFUSED = {
    "mariadb": {
        "drop_column.in_composite_unique": (
            (10, 2, 8),
            "1072",
            MDB_ALTER,
            "MariaDB 10.2.8+ does not drop a column that is part of a multi-column UNIQUE or PRIMARY KEY "
            "(error 1072, measured on 10.11): drop or redefine the key in the same ALTER TABLE",
        ),
        # measured on 10.11 with foreign_key_checks ON and OFF alike; older releases not measured
        "drop_column.foreign_key": (
            _D0,
            "1553",
            MDB_FK,
            "MariaDB does not drop a column a foreign key uses, on either table (error 1553, 1828 or 1829, "
            "measured on 10.11): drop the foreign key first, or in the same ALTER TABLE",
        ),
        "modify_column.foreign_key_type": (
            _D0,
            "1832",
            MDB_FK,
            "MariaDB does not change the type or length of a column a foreign key uses (error 1832 on the "
            "referencing table, 1833 on the referenced one, measured on 10.11): drop the foreign key, change "
            "the columns on both sides, add it back",
        ),
    },
    "mysql": {},
}

# MODIFY/CHANGE keys that change the type or length of a column (REFUSED's foreign-key case; measured
# for a wider integer, signedness and a longer VARCHAR; NULL, DEFAULT, rename and AUTO_INCREMENT pass).
TYPE_CHANGES = frozenset(
    {
        "modify_column.type",
        "modify_column.varchar_extend",
        "modify_column.varchar_extend_from_127",
        "modify_column.varchar_extend_over_255",
    }
)

# MariaDB 10.11 accepts any ALGORITHM clause for these and copies the table anyway (measured:
# rows affected = row count), so no clause is refused.
MARIADB_ALGORITHM_IGNORED = frozenset({"engine.change", "order_by"})

# The cheaper way for any statement that copies the table, or rebuilds it under a lock
# (shown as LockImpact.alternative where its row names none).
COPY_ALTERNATIVE = (
    "an online schema change tool (gh-ost, pt-online-schema-change) keeps the table writable while it is copied"
)


# --------------------------------------------------------------------------- the rows
# The matrix itself is data: mysql_table.json, one row a line, per server and operation key,
# each field the row's (`rows.MysqlRow`; a field left out has its default; `since` and `until`
# are lists). It is read the first time a MySQL or MariaDB statement is looked up: a PostgreSQL
# run never reads it.


@functools.cache
def tables() -> dict[str, dict[str, tuple[Row, ...]]]:
    """Per server ("mysql", "mariadb"), per operation key, its rows oldest first."""
    data = json.loads(Path(__file__).with_name("mysql_table.json").read_text(encoding="utf-8"))
    return {server: {key: tuple(map(_row, rows)) for key, rows in keys.items()} for server, keys in data.items()}


def _row(raw: dict[str, Any]) -> Row:
    fields = dict(raw)
    for name in ("since", "until"):
        if fields.get(name) is not None:
            fields[name] = tuple(fields[name])
    return Row(**fields)
