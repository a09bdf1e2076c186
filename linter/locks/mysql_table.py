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

Each row names the documentation page it comes from in `source` (the pages are
listed once below); `unmeasured` is empty when a row was measured on a real server
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

from schemacite.locks.rows import FulltextLimits
from schemacite.locks.rows import MysqlRow as Row

# --------------------------------------------------------------------------- sources
MY57 = "https://dev.mysql.com/doc/refman/5.7/en/innodb-online-ddl-operations.html"
MY80 = "https://dev.mysql.com/doc/refman/8.0/en/innodb-online-ddl-operations.html"
MY84 = "https://dev.mysql.com/doc/refman/8.4/en/innodb-online-ddl-operations.html"
MY_MDL = "https://dev.mysql.com/doc/refman/8.0/en/innodb-online-ddl-performance.html"
MY_ALTER = "https://dev.mysql.com/doc/refman/8.0/en/alter-table.html"
MY_INVISIBLE_IDX = "https://dev.mysql.com/doc/refman/8.0/en/invisible-indexes.html"
MY_INVISIBLE_COL = "https://dev.mysql.com/doc/refman/8.0/en/invisible-columns.html"
MY_CHECK = "https://dev.mysql.com/doc/refman/8.0/en/create-table-check-constraints.html"
MY_TRUNCATE = "https://dev.mysql.com/doc/refman/8.0/en/truncate-table.html"
MY_DROP = "https://dev.mysql.com/doc/refman/8.0/en/drop-table.html"
MY_METADATA = "https://dev.mysql.com/doc/refman/8.0/en/metadata-locking.html"
MY_LOCK = "https://dev.mysql.com/doc/refman/8.0/en/lock-tables.html"
MY_CREATE_FK = "https://dev.mysql.com/doc/refman/8.0/en/create-table-foreign-keys.html"

MDB_INSTANT = (
    "https://mariadb.com/docs/server/server-usage/storage-engines/innodb/innodb-online-ddl/"
    "innodb-online-ddl-operations-with-the-instant-alter-algorithm"
)
MDB_NOCOPY = (
    "https://mariadb.com/docs/server/server-usage/storage-engines/innodb/innodb-online-ddl/"
    "innodb-online-ddl-operations-with-the-nocopy-alter-algorithm"
)
MDB_INPLACE = (
    "https://mariadb.com/docs/server/server-usage/storage-engines/innodb/innodb-online-ddl/"
    "innodb-online-ddl-operations-with-the-inplace-alter-algorithm"
)
MDB_OVERVIEW = (
    "https://mariadb.com/docs/server/server-usage/storage-engines/innodb/innodb-online-ddl/innodb-online-ddl-overview"
)
MDB_ONLINE_COPY = (
    "https://mariadb.com/docs/server/reference/sql-statements/data-definition/alter/alter-table/online-schema-change"
)
MDB_10_4_BLOG = "https://mariadb.com/resources/blog/alter-table-improvements-in-mariadb-server-10-4/"
MDB_PARTITION = "https://mariadb.com/docs/server/server-usage/partitioning-tables/partition-maintenance"
MDB_IGNORED_IDX = "https://mariadb.com/docs/server/ha-and-performance/optimization-and-tuning/optimization-and-indexes/ignored-indexes"
MDB_TRUNCATE = "https://mariadb.com/docs/server/reference/sql-statements/table-statements/truncate-table"
MDB_LOCK = "https://mariadb.com/docs/server/reference/sql-statements/transactions/lock-tables"
MDB_DROP = "https://mariadb.com/docs/server/reference/sql-statements/data-definition/drop/drop-table"
MDB_ALTER = "https://mariadb.com/docs/server/reference/sql-statements/data-definition/alter/alter-table"
MDB_FK = "https://mariadb.com/kb/en/foreign-keys/"
MDB_MDL = "https://mariadb.com/docs/server/reference/sql-statements/transactions/metadata-locking"


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

# Cheaper ways to the same result, as the `alternative` of each row of their key (both servers).
_FK_CHECKS_OFF = (
    "SET SESSION foreign_key_checks = 0 before the ALTER makes it in place and metadata only "
    "(existing rows are then not checked)"
)
_SAME_STATEMENT = "drop the old and add the new primary key in the same ALTER TABLE: in place, LOCK=NONE"
_ADD_LAST = "add the column last: INSTANT from MySQL 8.0.12 / MariaDB 10.3.2"
_FILL_LATER = (
    "add the column with no DEFAULT (or a constant one), fill the rows in batches "
    "(UPDATE ... SET c = uuid() WHERE c IS NULL LIMIT ...), then ALTER COLUMN c SET DEFAULT (...): "
    "both ALTERs are INSTANT (checked on MariaDB 10.11)"
)
# vitessio/vitess#16024: MySQL refuses INSTANT for ADD COLUMN with an expression DEFAULT
VITESS_16024 = "https://github.com/vitessio/vitess/issues/16024"

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
_M57 = (5, 7)
_VIEW_MDL = (
    "takes an exclusive metadata lock on the view: it waits for every open transaction that used the view, "
    "and queries of the view queue behind it"
)
MYSQL: dict[str, tuple[Row, ...]] = {
    # ---- columns (MySQL 5.7/8.0/8.4 "Online DDL Operations", Column Operations)
    "add_column": (
        Row(
            since=_M57, algorithm="INPLACE", rewrite=True, mode="NONE", source=MY57, note="rebuilds the table in place"
        ),
        Row(
            since=(8, 0, 12),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="INSTANT adds only a last column before 8.0.29; at most 64 instant row "
            "versions per table, then the table must be rebuilt",
            inplace_rewrite=True,
        ),
    ),
    "add_column.position": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MY57,
            note="rebuilds the table in place",
            alternative=_ADD_LAST,
        ),
        Row(
            since=(8, 0, 12),
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MY80,
            note="INSTANT ADD COLUMN only appends a last column before 8.0.29",
            alternative=_ADD_LAST,
        ),
        Row(
            since=(8, 0, 29),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="INSTANT at any position from 8.0.29; at most 64 instant row versions",
            inplace_rewrite=True,
            alternative=_ADD_LAST,
        ),
    ),
    "add_column.default_expression": (
        Row(
            since=(8, 0, 13),
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MY80,
            note="an expression DEFAULT ((2 + 5) as much as (uuid())) refuses ALGORITHM=INSTANT, which the Online "
            f"DDL table leaves out ({VITESS_16024}: ERROR 1845 ... Try ALGORITHM=COPY/INPLACE): the table is "
            "rebuilt in place; whether every nondeterministic one allows INPLACE is not documented",
            alternative=_FILL_LATER,
        ),
    ),
    "add_column.auto_increment": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="adding an AUTO_INCREMENT column blocks writes: at least ALGORITHM=INPLACE, LOCK=SHARED",
            scan=True,
        ),
    ),
    "add_column.stored": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="a STORED generated column is computed by the server: table copy",
            scan=True,
        ),
    ),
    "add_column.virtual": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="metadata only for non-partitioned tables; not in place for partitioned tables",
        ),
        Row(
            since=(8, 0, 12),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="instant for non-partitioned tables; not in place for partitioned tables",
        ),
    ),
    "drop_column": (
        Row(
            since=_M57, algorithm="INPLACE", rewrite=True, mode="NONE", source=MY57, note="rebuilds the table in place"
        ),
        Row(
            since=(8, 0, 29),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="INSTANT DROP COLUMN from 8.0.29; at most 64 instant row versions",
            inplace_rewrite=True,
        ),
    ),
    "drop_column.indexed": (
        Row(
            since=_M57, algorithm="INPLACE", rewrite=True, mode="NONE", source=MY57, note="rebuilds the table in place"
        ),
        Row(
            since=(8, 0, 29),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="INSTANT DROP COLUMN from 8.0.29 (a column with a functional index cannot be dropped instantly)",
            inplace_rewrite=True,
        ),
    ),
    "drop_column.in_composite": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MY80,
            note="inferred, not measured: the column leaves the multi-column index it is part of (ALTER TABLE "
            "page), which INSTANT cannot change; the table is rebuilt in place as for DROP COLUMN before 8.0.29",
            inplace_rewrite=True,
        ),
    ),
    "drop_column.stored": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MY57,
            note="dropping a STORED generated column rebuilds in place",
        ),
    ),
    "drop_column.virtual": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="metadata only for non-partitioned tables",
        ),
        Row(
            since=(8, 0, 12),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="instant for non-partitioned tables",
        ),
    ),
    "rename_column": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="keep the same type and NULL-ness to stay online; a column referenced by a "
            "foreign key can only be renamed with ALGORITHM=INPLACE",
        ),
        Row(
            since=(8, 0, 28),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="INSTANT rename from 8.0.28; a column referenced by a foreign key "
            "can only be renamed with ALGORITHM=INPLACE",
            inplace_rewrite=False,
        ),
    ),
    "modify_column.rename": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="CHANGE with the same definition: a rename",
        ),
        Row(
            since=(8, 0, 28),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="CHANGE with the same definition: a rename",
            inplace_rewrite=False,
        ),
    ),
    "modify_column.same": (
        # inferred: a MODIFY that changes nothing the storage sees (comment, same definition)
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="inferred: no storage change, metadata only (not listed in the Online DDL tables)",
        ),
    ),
    "modify_column.default": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="only the default changes: metadata only",
        ),
        Row(
            since=(8, 0, 12),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="only the default changes: metadata only",
            inplace_rewrite=False,
        ),
    ),
    "modify_column.reorder": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MY57,
            note="FIRST/AFTER reorders columns: rebuilds in place",
        ),
    ),
    "modify_column.type": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="changing the data type is only supported with ALGORITHM=COPY",
            scan=True,
        ),
    ),
    "modify_column.varchar_extend": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="VARCHAR extended within the same number of length bytes (0-255 or 256+ bytes)",
        ),
    ),
    "modify_column.varchar_extend_from_127": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="VARCHAR crossing from under 256 to 256+ bytes needs a second length byte: table copy",
            scan=True,
        ),
    ),
    "modify_column.varchar_extend_over_255": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="VARCHAR crossing from under 256 to 256+ bytes needs a second length byte: table copy",
            scan=True,
        ),
    ),
    "modify_column.not_null": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MY57,
            note="rebuilds in place; needs a strict SQL_MODE and fails if the column holds NULLs",
            scan=True,
        ),
    ),
    "modify_column.null": (
        Row(
            since=_M57, algorithm="INPLACE", rewrite=True, mode="NONE", source=MY57, note="rebuilds the table in place"
        ),
    ),
    "modify_column.enum_append": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="members appended at the end with the same storage size: metadata only",
        ),
        Row(
            since=(8, 0, 12),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="members appended at the end with the same storage size: metadata only",
            inplace_rewrite=False,
        ),
    ),
    "modify_column.charset_utf8mb3_to_utf8mb4": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="a character set change is a data type change: table copy",
            scan=True,
        ),
    ),
    "modify_column.collation": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="a collation change is treated as a data type change: table copy",
            scan=True,
        ),
    ),
    "modify_column.auto_increment": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="making a column AUTO_INCREMENT changes its type: table copy",
            scan=True,
        ),
    ),
    "alter_column_visibility": (
        Row(
            since=(8, 0, 23),
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY_INVISIBLE_COL,
            note="inferred: column visibility (8.0.23+) is data-dictionary metadata; not listed "
            "in the Online DDL tables",
        ),
    ),
    "set_default": (
        Row(since=_M57, algorithm="INPLACE", rewrite=False, mode="NONE", source=MY57, note="metadata only"),
        Row(
            since=(8, 0, 12),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="metadata only",
            inplace_rewrite=False,
        ),
    ),
    "drop_default": (
        Row(since=_M57, algorithm="INPLACE", rewrite=False, mode="NONE", source=MY57, note="metadata only"),
        Row(
            since=(8, 0, 12),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="metadata only",
            inplace_rewrite=False,
        ),
    ),
    "auto_increment": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="changes a value kept in memory, not the data file",
        ),
    ),
    # ---- indexes (Index Operations, Primary Key Operations)
    "add_index": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="builds the secondary index while writes go on",
            scan=True,
        ),
    ),
    "add_unique": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="builds the unique index while writes go on; fails on duplicates",
            scan=True,
        ),
    ),
    "add_unique.clustered": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MY57,
            note="inferred: on a table without a primary key, a unique key on NOT NULL columns "
            "becomes the clustered index, so the table is rebuilt as for ADD PRIMARY KEY",
            scan=True,
        ),
    ),
    "add_index.fulltext_first": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="the first FULLTEXT index rebuilds the table to add FTS_DOC_ID (unless the table "
            "has one) and blocks writes",
            scan=True,
        ),
    ),
    "add_index.fulltext": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="SHARED",
            source=MY57,
            note="a further FULLTEXT index blocks writes while it is built; one at a time",
            scan=True,
        ),
    ),
    "add_index.spatial": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="SHARED",
            source=MY57,
            note="a SPATIAL index blocks writes while it is built",
            scan=True,
        ),
    ),
    "drop_index": (
        Row(since=_M57, algorithm="INPLACE", rewrite=False, mode="NONE", source=MY57, note="metadata only"),
    ),
    "rename_index": (
        Row(since=_M57, algorithm="INPLACE", rewrite=False, mode="NONE", source=MY57, note="metadata only"),
    ),
    "alter_index_visibility": (
        Row(
            since=(8, 0),
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY_INVISIBLE_IDX,
            note="inferred: index visibility (8.0+) is metadata; not listed in the Online DDL tables",
        ),
    ),
    "add_primary_key": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MY57,
            note="rebuilds the clustered index in place; needs a strict SQL_MODE, and INPLACE is "
            "refused in some cases where columns must become NOT NULL",
            scan=True,
        ),
    ),
    "drop_primary_key": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="only ALGORITHM=COPY drops a primary key without adding another",
            scan=True,
            alternative=_SAME_STATEMENT,
        ),
    ),
    "drop_primary_key+add_primary_key": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MY57,
            note="replacing the primary key rebuilds in place",
            scan=True,
        ),
    ),
    # ---- foreign keys (Foreign Key Operations)
    "add_foreign_key": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="with foreign_key_checks=1 only ALGORITHM=COPY adds a foreign key",
            scan=True,
            alternative=_FK_CHECKS_OFF,
        ),
    ),
    "add_foreign_key.no_checks": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="with foreign_key_checks=0 the foreign key is added in place, metadata only, "
            "and existing rows are not checked",
        ),
    ),
    "drop_foreign_key": (
        Row(since=_M57, algorithm="INPLACE", rewrite=False, mode="NONE", source=MY57, note="metadata only"),
    ),
    "add_check": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=False,
            mode="NONE",
            source=MY_CHECK,
            note="CHECK constraints are parsed and ignored before 8.0.16",
        ),
        Row(
            since=(8, 0, 16),
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY_CHECK,
            note="inferred: an enforced CHECK constraint is validated against every row by "
            "the server, which needs a table copy; not listed in the Online DDL tables",
            scan=True,
        ),
    ),
    "drop_constraint": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=False,
            mode="NONE",
            source=MY_CHECK,
            note="CHECK constraints are parsed and ignored before 8.0.16",
        ),
        Row(
            since=(8, 0, 16),
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY_CHECK,
            note="inferred: dropping a CHECK constraint is metadata only; not listed in the Online DDL tables",
        ),
    ),
    # ---- table options (Table Operations)
    "row_format": (
        Row(
            since=_M57, algorithm="INPLACE", rewrite=True, mode="NONE", source=MY57, note="rebuilds the table in place"
        ),
    ),
    "key_block_size": (
        Row(
            since=_M57, algorithm="INPLACE", rewrite=True, mode="NONE", source=MY57, note="rebuilds the table in place"
        ),
    ),
    "table_option": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="persistent statistics options: metadata only",
        ),
    ),
    "table_comment": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="inferred: a table comment is metadata only; not listed in the Online DDL tables",
        ),
    ),
    "default_charset": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MY57,
            note="rebuilds the table if the new character encoding differs",
        ),
    ),
    "convert_charset": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="converting the character set copies the table",
            scan=True,
        ),
        Row(
            since=(8, 0),
            algorithm="INPLACE",
            rewrite=True,
            mode="SHARED",
            source=MY80,
            note="the 8.0/8.4 tables list converting a character set as in place, rebuilding the table, "
            'without concurrent DML ("In Place: Yes, Rebuilds Table: Yes*, Permits Concurrent DML: No"); '
            "when string columns change type the server falls back to ALGORITHM=COPY, also write-blocking",
            scan=True,
        ),
    ),
    # The pages: "Rebuilds the table if the new character encoding is different." A conversion to
    # the character set (and collation) the table already has changes no stored byte.
    "convert_charset.same": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="the 5.7 table lists converting a character set as not in place (its example: ALGORITHM=COPY), "
            "so the copy is assumed even where the character set stays, although the page says the table "
            "is rebuilt only if the encoding differs",
            scan=True,
        ),
        Row(
            since=(8, 0),
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="the table already has that character set and collation: the 8.0/8.4 pages rebuild the table "
            'only "if the new character encoding is different", and their example runs the conversion '
            'with ALGORITHM=INPLACE, LOCK=NONE; the table\'s "Permits Concurrent DML: No" is read as the '
            "conversion that rebuilds",
        ),
    ),
    "convert_charset.utf8mb3_to_utf8mb4": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="converting the character set copies the table",
            scan=True,
        ),
        Row(
            since=(8, 0),
            algorithm="INPLACE",
            rewrite=True,
            mode="SHARED",
            source=MY80,
            note="the 8.0/8.4 tables list it in place but without concurrent DML",
            scan=True,
        ),
    ),
    "engine": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MY57,
            note="ENGINE=InnoDB on an InnoDB table: a null rebuild in place",
        ),
    ),
    "engine.change": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY_ALTER,
            note="moving to another storage engine copies the table",
            scan=True,
        ),
    ),
    "force": (
        Row(
            since=_M57, algorithm="INPLACE", rewrite=True, mode="NONE", source=MY57, note="rebuilds the table in place"
        ),
    ),
    "order_by": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY_ALTER,
            note="ORDER BY rewrites the rows in order: table copy",
            scan=True,
        ),
    ),
    "enable_keys": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=False,
            mode="NONE",
            source=MY_ALTER,
            note="InnoDB ignores ENABLE/DISABLE KEYS (with a warning); lock level not measured on MySQL "
            "(MariaDB 10.11 takes it exclusively)",
        ),
    ),
    "disable_keys": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=False,
            mode="NONE",
            source=MY_ALTER,
            note="InnoDB ignores ENABLE/DISABLE KEYS (with a warning); lock level not measured on MySQL "
            "(MariaDB 10.11 takes it exclusively)",
        ),
    ),
    "rename_table": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="renames the files without copying",
        ),
        Row(
            since=(8, 0, 12),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="renames the files without copying",
            inplace_rewrite=False,
        ),
    ),
    # ---- partitions (Partitioning Operations)
    "partition_by": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="repartitions by copying the table",
            scan=True,
        ),
    ),
    "remove_partitioning": (
        Row(
            since=_M57,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="removes partitioning by copying the table",
            scan=True,
        ),
    ),
    "add_partition": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=False,
            mode="SHARED",
            source=MY57,
            note="RANGE/LIST: no data copied; only ALGORITHM=DEFAULT, LOCK=DEFAULT; DML not permitted",
        ),
        Row(
            since=(8, 0),
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="RANGE/LIST: no data copied, concurrent DML allowed",
        ),
    ),
    "add_partition.hash": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="HASH/KEY: rows are redistributed under a shared lock; only ALGORITHM=DEFAULT",
            scan=True,
        ),
        Row(
            since=(8, 0),
            algorithm="INPLACE",
            rewrite=True,
            mode="SHARED",
            source=MY80,
            note="HASH/KEY: rows are redistributed; LOCK=NONE is not supported",
            scan=True,
        ),
    ),
    "drop_partition": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=False,
            mode="SHARED",
            source=MY57,
            note="RANGE/LIST: drops the partition's data without copying; only ALGORITHM=DEFAULT",
        ),
        Row(
            since=(8, 0),
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="drops the partition and its rows; ALGORITHM=COPY would move the rows instead",
        ),
    ),
    "truncate_partition": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="deletes the partition's rows; no data copied",
        ),
    ),
    "coalesce_partition": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="rows are copied under a shared lock; only ALGORITHM=DEFAULT",
            scan=True,
        ),
        Row(
            since=(8, 0),
            algorithm="INPLACE",
            rewrite=True,
            mode="SHARED",
            source=MY80,
            note="rows of the affected partitions are copied; no LOCK=NONE",
            scan=True,
        ),
    ),
    "reorganize_partition": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="rows are copied under a shared lock; only ALGORITHM=DEFAULT",
            scan=True,
        ),
        Row(
            since=(8, 0),
            algorithm="INPLACE",
            rewrite=True,
            mode="SHARED",
            source=MY80,
            note="rows of the affected partitions are copied; no LOCK=NONE",
            scan=True,
        ),
    ),
    "rebuild_partition": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="rows are copied under a shared lock; only ALGORITHM=DEFAULT",
            scan=True,
        ),
        Row(
            since=(8, 0),
            algorithm="INPLACE",
            rewrite=True,
            mode="SHARED",
            source=MY80,
            note="rows of the affected partitions are copied; no LOCK=NONE",
            scan=True,
        ),
    ),
    "exchange_partition": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="swaps the partition and the table; WITH VALIDATION (the default) reads every row "
            "of the exchanged table",
            scan=True,
        ),
    ),
    "optimize_partition": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=True,
            mode="SHARED",
            source=MY57,
            note="InnoDB rebuilds and analyzes the entire table; ALGORITHM and LOCK are ignored",
            scan=True,
        ),
    ),
    "analyze_partition": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="reads key distributions",
            scan=True,
        ),
    ),
    "check_partition": (
        Row(since=_M57, algorithm=None, rewrite=False, mode="NONE", source=MY57, note="reads the partition", scan=True),
    ),
    "repair_partition": (
        Row(since=_M57, algorithm=None, rewrite=False, mode="NONE", source=MY57, note="no-op for InnoDB partitions"),
    ),
    "discard_partition_tablespace": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=False,
            mode="EXCLUSIVE",
            source=MY57,
            note="only ALGORITHM=DEFAULT, LOCK=DEFAULT; no DML",
        ),
    ),
    "import_partition_tablespace": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=False,
            mode="EXCLUSIVE",
            source=MY57,
            note="only ALGORITHM=DEFAULT, LOCK=DEFAULT; no DML",
        ),
    ),
    # ---- other statements
    "statement.optimize_table": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MY57,
            note="OPTIMIZE TABLE on InnoDB is recreate + analyze, in place; it takes no ALGORITHM/LOCK clause",
        ),
    ),
    "statement.truncate": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=True,
            mode="EXCLUSIVE",
            source=MY_TRUNCATE,
            note="drops and recreates the table under an exclusive metadata lock",
        ),
    ),
    "statement.drop_table": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=False,
            mode="EXCLUSIVE",
            source=MY_DROP,
            note="takes an exclusive metadata lock; the data is gone",
        ),
    ),
    # DROP VIEW, CREATE OR REPLACE VIEW and ALTER VIEW of an existing view (MySQL: from the documentation)
    "statement.drop_view": (
        Row(since=_M57, algorithm=None, rewrite=False, mode="EXCLUSIVE", source=MY_METADATA, note=_VIEW_MDL),
    ),
    "statement.replace_view": (
        Row(since=_M57, algorithm=None, rewrite=False, mode="EXCLUSIVE", source=MY_METADATA, note=_VIEW_MDL),
    ),
    "statement.rename_table": (
        Row(
            since=_M57,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MY57,
            note="renames the files without copying",
        ),
        Row(
            since=(8, 0, 12),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MY80,
            note="renames the files without copying",
        ),
    ),
    "statement.lock_table.read": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=False,
            mode="SHARED",
            source=MY_LOCK,
            note="LOCK TABLES ... READ blocks writers until UNLOCK TABLES or the session ends",
        ),
    ),
    "statement.lock_table.write": (
        Row(
            since=_M57,
            algorithm=None,
            rewrite=False,
            mode="EXCLUSIVE",
            source=MY_LOCK,
            note="LOCK TABLES ... WRITE blocks readers and writers until UNLOCK TABLES or the session ends",
        ),
    ),
}

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
MARIADB: dict[str, tuple[Row, ...]] = {
    # ---- columns
    "add_column": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="rebuilds the table in place",
        ),
        Row(
            since=(10, 3, 2),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="INSTANT when the column is added last (10.3) or anywhere (10.4+); not with a "
            "hidden FTS_DOC_ID (FULLTEXT index)",
            unmeasured="",
        ),
    ),
    "add_column.position": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="rebuilds the table in place",
            alternative=_ADD_LAST,
        ),
        Row(
            since=(10, 4),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="INSTANT at any position from 10.4",
            unmeasured="",
            alternative=_ADD_LAST,
        ),
    ),
    "add_column.default_copy": (
        Row(
            since=(10, 2, 1),
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INSTANT,
            note="a DEFAULT computed row by row (uuid(), sysdate(), another column) refuses INSTANT and INPLACE: "
            "the table is copied and writes wait (measured; now(), rand() and constant expressions stay INSTANT)",
            scan=True,
            unmeasured="",
            alternative=_FILL_LATER,
        ),
        Row(
            since=MARIADB_ONLINE_COPY_SINCE,
            algorithm="COPY",
            rewrite=True,
            mode="NONE",
            source=MDB_ONLINE_COPY,
            note="online copy: the table is still copied, with LOCK=NONE",
            scan=True,
            alternative=_FILL_LATER,
        ),
    ),
    "add_column.auto_increment": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="adding an AUTO_INCREMENT column rebuilds and blocks writes",
            scan=True,
            unmeasured="",
        ),
    ),
    "add_column.stored": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="a PERSISTENT/STORED generated column is computed by the server: table copy",
            scan=True,
            unmeasured="",
        ),
        Row(
            since=MARIADB_ONLINE_COPY_SINCE,
            algorithm="COPY",
            rewrite=True,
            mode="NONE",
            source=MDB_ONLINE_COPY,
            note="online copy: a STORED generated column can be added with LOCK=NONE",
            scan=True,
        ),
    ),
    "add_column.virtual": (
        Row(since=_D0, algorithm="INPLACE", rewrite=False, mode="NONE", source=MDB_INPLACE, note="metadata only"),
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="inferred from the INSTANT ADD COLUMN rules; a VIRTUAL column stores nothing",
            unmeasured="",
        ),
    ),
    "drop_column": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="rebuilds the table in place",
        ),
        Row(
            since=(10, 4),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="INSTANT DROP COLUMN from 10.4",
            unmeasured="",
        ),
    ),
    "drop_column.indexed": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="rebuilds the table in place",
        ),
        Row(
            since=(10, 4),
            algorithm="NOCOPY",
            rewrite=False,
            mode="NONE",
            source=MDB_NOCOPY,
            note="measured: the column goes instantly, but dropping the index on it makes the statement NOCOPY",
            unmeasured="",
        ),
    ),
    "drop_column.in_composite": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="measured: the column leaves a multi-column index, which is rebuilt with the table in place "
            "(the ALTER TABLE page says NOCOPY; the server refuses NOCOPY, error 1845)",
            unmeasured="",
        ),
    ),
    "drop_column.stored": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="rebuilds the table in place",
        ),
        Row(
            since=(10, 4),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="INSTANT DROP COLUMN from 10.4",
            unmeasured="",
        ),
    ),
    "drop_column.virtual": (
        Row(since=_D0, algorithm="INPLACE", rewrite=False, mode="NONE", source=MDB_INPLACE, note="metadata only"),
        Row(
            since=(10, 4),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="INSTANT DROP COLUMN from 10.4",
            unmeasured="",
        ),
    ),
    "rename_column": (
        Row(since=_D0, algorithm="INPLACE", rewrite=False, mode="NONE", source=MDB_INPLACE, note="metadata only"),
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="INSTANT when only the name changes",
            unmeasured="",
        ),
    ),
    "modify_column.rename": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MDB_INPLACE,
            note="CHANGE with the same definition: metadata only",
        ),
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="CHANGE with the same definition",
            unmeasured="",
        ),
    ),
    "modify_column.same": (
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="measured: a MODIFY that changes nothing stored (comment, same definition) is "
            "instant; not described on the page",
            unmeasured="",
        ),
    ),
    "modify_column.default": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MDB_INPLACE,
            note="only the default changes: metadata only",
        ),
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="only the default changes",
            unmeasured="",
        ),
    ),
    "modify_column.reorder": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="FIRST/AFTER reorders columns: rebuilds in place",
        ),
        Row(
            since=(10, 4),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="INSTANT reordering from 10.4",
            unmeasured="",
        ),
    ),
    "modify_column.type": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="changing the data type copies the table (integer widening included: measured COPY "
            "on 10.11 even for ROW_FORMAT=REDUNDANT)",
            scan=True,
            unmeasured="",
        ),
        Row(
            since=MARIADB_ONLINE_COPY_SINCE,
            algorithm="COPY",
            rewrite=True,
            mode="NONE",
            source=MDB_ONLINE_COPY,
            note="online copy: the type change runs with LOCK=NONE",
            scan=True,
        ),
    ),
    "modify_column.varchar_extend": (
        Row(
            since=(10, 2, 2),
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MDB_INPLACE,
            note="VARCHAR extended within the same number of length bytes",
        ),
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="VARCHAR extended within the same number of length bytes (any extension with ROW_FORMAT=REDUNDANT)",
            unmeasured="",
        ),
    ),
    "modify_column.varchar_extend_from_127": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="the number of length bytes changes: table copy",
            scan=True,
        ),
        Row(
            since=(10, 4, 3),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="from at most 127 bytes to 256+ bytes stays instant (stored lengths fit one byte either way)",
            unmeasured="",
        ),
    ),
    "modify_column.varchar_extend_over_255": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="from 128-255 bytes to 256+ bytes changes the number of length bytes: table copy "
            "(instant with ROW_FORMAT=REDUNDANT from 10.4.3)",
            scan=True,
            unmeasured="",
        ),
        Row(
            since=MARIADB_ONLINE_COPY_SINCE,
            algorithm="COPY",
            rewrite=True,
            mode="NONE",
            source=MDB_ONLINE_COPY,
            note="online copy with LOCK=NONE",
            scan=True,
        ),
    ),
    "modify_column.not_null": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="rebuilds in place; needs strict mode and fails if the column holds NULLs",
            scan=True,
            unmeasured="",
        ),
    ),
    "modify_column.null": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="rebuilds in place (INSTANT only with ROW_FORMAT=REDUNDANT, 10.4.3+)",
            unmeasured="",
        ),
    ),
    "modify_column.enum_append": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MDB_INPLACE,
            note="appended members, same storage size: metadata only",
        ),
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="appended members, same storage size",
            unmeasured="",
        ),
    ),
    "modify_column.charset_utf8mb3_to_utf8mb4": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="a character set change copies the table",
            scan=True,
        ),
        Row(
            since=(10, 4),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_10_4_BLOG,
            note="utf8mb3 to utf8mb4 is instant from 10.4 (an index on the column makes it NOCOPY)",
            unmeasured="",
        ),
    ),
    "modify_column.collation": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="a collation change copies the table",
            scan=True,
        ),
        Row(
            since=(10, 4),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_10_4_BLOG,
            note="a collation change of an unindexed column is instant; with an index on it the "
            "index is rebuilt (NOCOPY)",
            unmeasured="",
        ),
    ),
    "modify_column.auto_increment": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="making a column AUTO_INCREMENT copies the table",
            scan=True,
            unmeasured="",
        ),
        Row(
            since=MARIADB_ONLINE_COPY_SINCE,
            algorithm="COPY",
            rewrite=True,
            mode="NONE",
            source=MDB_ONLINE_COPY,
            note="online copy allowed when the column was NOT NULL and a NOT NULL unique key stays unchanged",
            scan=True,
        ),
    ),
    "alter_column_visibility": (
        Row(
            since=(10, 3, 3),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="measured: MODIFY ... INVISIBLE is metadata only; not described on the page",
            unmeasured="",
        ),
    ),
    "set_default": (
        Row(since=_D0, algorithm="INPLACE", rewrite=False, mode="NONE", source=MDB_INPLACE, note="metadata only"),
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="metadata only",
            unmeasured="",
        ),
    ),
    "drop_default": (
        Row(since=_D0, algorithm="INPLACE", rewrite=False, mode="NONE", source=MDB_INPLACE, note="metadata only"),
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="metadata only",
            unmeasured="",
        ),
    ),
    "auto_increment": (
        Row(since=_D0, algorithm="INPLACE", rewrite=False, mode="NONE", source=MDB_INPLACE, note="no rebuild"),
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="metadata only",
            unmeasured="",
        ),
    ),
    # ---- indexes
    "add_index": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MDB_INPLACE,
            note="builds the index while writes go on",
            scan=True,
        ),
        Row(
            since=(10, 3, 7),
            algorithm="NOCOPY",
            rewrite=False,
            mode="NONE",
            source=MDB_NOCOPY,
            note="builds the index while writes go on",
            scan=True,
            unmeasured="",
        ),
    ),
    "add_unique": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MDB_INPLACE,
            note="builds the index while writes go on",
            scan=True,
        ),
        Row(
            since=(10, 3, 7),
            algorithm="NOCOPY",
            rewrite=False,
            mode="NONE",
            source=MDB_NOCOPY,
            note="builds the unique index while writes go on; fails on duplicates",
            scan=True,
            unmeasured="",
        ),
    ),
    "add_unique.clustered": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="measured: on a table without a primary key, a unique key on NOT NULL columns becomes "
            "the clustered index and the table is rebuilt, as for ADD PRIMARY KEY",
            scan=True,
            unmeasured="",
        ),
    ),
    "add_index.fulltext_first": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="the first FULLTEXT index rebuilds the table to add a hidden FTS_DOC_ID and blocks writes",
            scan=True,
            unmeasured="",
        ),
    ),
    "add_index.fulltext": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=False,
            mode="SHARED",
            source=MDB_INPLACE,
            note="a further FULLTEXT index blocks writes while it is built; one at a time",
            scan=True,
        ),
        Row(
            since=(10, 3, 7),
            algorithm="NOCOPY",
            rewrite=False,
            mode="SHARED",
            source=MDB_NOCOPY,
            note="a further FULLTEXT index blocks writes while it is built; one at a time",
            scan=True,
            unmeasured="",
        ),
    ),
    "add_index.spatial": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=False,
            mode="SHARED",
            source=MDB_INPLACE,
            note="a SPATIAL index blocks writes while it is built",
            scan=True,
        ),
        Row(
            since=(10, 3, 7),
            algorithm="NOCOPY",
            rewrite=False,
            mode="SHARED",
            source=MDB_NOCOPY,
            note="a SPATIAL index blocks writes while it is built",
            scan=True,
            unmeasured="",
        ),
    ),
    "drop_index": (
        Row(since=_D0, algorithm="INPLACE", rewrite=False, mode="NONE", source=MDB_INPLACE, note="metadata only"),
        Row(
            since=(10, 3, 7),
            algorithm="NOCOPY",
            rewrite=False,
            mode="NONE",
            source=MDB_NOCOPY,
            note='measured NOCOPY: 10.11 refuses ALGORITHM=INSTANT ("Reason: DROP INDEX") '
            "although the NOCOPY page points to an INSTANT rule",
            unmeasured="",
        ),
    ),
    "rename_index": (
        Row(
            since=(10, 5, 2),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="measured: RENAME INDEX (10.5.2+) is metadata only; not described on the page",
            unmeasured="",
        ),
    ),
    "alter_index_visibility": (
        Row(
            since=(10, 6),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_IGNORED_IDX,
            note="ALTER INDEX ... [NOT] IGNORED (10.6+) is instant: the page and the server agree",
            unmeasured="",
        ),
    ),
    "add_primary_key": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="rebuilds the clustered index in place; use strict mode so NULLs fail instead of turning into defaults",
            scan=True,
            unmeasured="",
        ),
    ),
    "drop_primary_key": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="only ALGORITHM=COPY drops a primary key without adding another",
            scan=True,
            unmeasured="",
            alternative=_SAME_STATEMENT,
        ),
        Row(
            since=MARIADB_ONLINE_COPY_SINCE,
            algorithm="COPY",
            rewrite=True,
            mode="NONE",
            source=MDB_ONLINE_COPY,
            note="online copy: a primary key can be dropped with LOCK=NONE",
            scan=True,
            alternative=_SAME_STATEMENT,
        ),
    ),
    "drop_primary_key+add_primary_key": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="replacing the primary key rebuilds in place",
            scan=True,
            unmeasured="",
        ),
    ),
    # ---- foreign keys
    "add_foreign_key": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="with foreign_key_checks=ON only ALGORITHM=COPY adds a foreign key",
            scan=True,
            unmeasured="",
            alternative=_FK_CHECKS_OFF,
        ),
        Row(
            since=MARIADB_ONLINE_COPY_SINCE,
            algorithm="COPY",
            rewrite=True,
            mode="NONE",
            source=MDB_ONLINE_COPY,
            note="online copy with LOCK=NONE (not for tables with cascading foreign keys)",
            scan=True,
            alternative=_FK_CHECKS_OFF,
        ),
    ),
    "add_foreign_key.no_checks": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=False,
            mode="NONE",
            source=MDB_INPLACE,
            note="foreign_key_checks=OFF: metadata only",
        ),
        Row(
            since=(10, 3, 7),
            algorithm="NOCOPY",
            rewrite=False,
            mode="NONE",
            source=MDB_NOCOPY,
            note="foreign_key_checks=OFF: metadata only; existing rows are not checked",
            unmeasured="",
        ),
    ),
    "drop_foreign_key": (
        Row(since=_D0, algorithm="INPLACE", rewrite=False, mode="NONE", source=MDB_INPLACE, note="metadata only"),
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="metadata only",
            unmeasured="",
        ),
    ),
    "add_check": (
        Row(
            since=(10, 2, 1),
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_ONLINE_COPY,
            note="measured: adding a CHECK constraint copies the table to validate every row; "
            "not described on the Online DDL pages",
            scan=True,
            unmeasured="",
        ),
        Row(
            since=MARIADB_ONLINE_COPY_SINCE,
            algorithm="COPY",
            rewrite=True,
            mode="NONE",
            source=MDB_ONLINE_COPY,
            note="online copy: a CHECK constraint can be added with LOCK=NONE",
            scan=True,
        ),
    ),
    "drop_constraint": (
        Row(
            since=(10, 3, 6),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="dropping a CHECK constraint",
            unmeasured="",
        ),
    ),
    # ---- table options
    "row_format": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="rebuilds the table in place",
            unmeasured="",
        ),
    ),
    "key_block_size": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="rebuilds the table in place",
            unmeasured="",
        ),
    ),
    "table_option": (
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="measured: statistics options are metadata only; not described on the page",
            unmeasured="",
        ),
    ),
    "table_comment": (
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="measured: a table comment is metadata only; not described on the page",
            unmeasured="",
        ),
    ),
    "default_charset": (
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="measured: the table default charset only affects later columns; not described on the page",
            unmeasured="",
        ),
    ),
    "convert_charset": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="converting string columns to another character set copies the table",
            scan=True,
            unmeasured="",
        ),
        Row(
            since=MARIADB_ONLINE_COPY_SINCE,
            algorithm="COPY",
            rewrite=True,
            mode="NONE",
            source=MDB_ONLINE_COPY,
            note="online copy with LOCK=NONE",
            scan=True,
        ),
    ),
    "convert_charset.utf8mb3_to_utf8mb4": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="converting the character set copies the table",
            scan=True,
        ),
        Row(
            since=(10, 4),
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_10_4_BLOG,
            note="measured: utf8mb3 to utf8mb4 is instant when no TEXT column must grow to a larger "
            "type (then COPY) and no index covers a converted column (then NOCOPY)",
            unmeasured="",
        ),
    ),
    "convert_charset.same": (
        Row(
            since=_D0,
            algorithm="INSTANT",
            rewrite=False,
            mode="NONE",
            source=MDB_INSTANT,
            note="measured: the table already has that character set (and no index covers a string column "
            "whose collation changes); only metadata changes",
            unmeasured="",
        ),
    ),
    "convert_charset.collation": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="a collation change of indexed columns copies the table before 10.4",
            scan=True,
        ),
        Row(
            since=(10, 4),
            algorithm="NOCOPY",
            rewrite=False,
            mode="NONE",
            source=MDB_10_4_BLOG,
            note="measured: the character set stays and the collation changes: the indexes over string "
            "columns are rebuilt, the table is not",
            scan=True,
            unmeasured="",
        ),
    ),
    "engine": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="ENGINE=InnoDB on an InnoDB table: rebuild in place",
            unmeasured="",
        ),
    ),
    "engine.change": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_OVERVIEW,
            note="moving to another storage engine copies the table (10.11 accepts ALGORITHM=INSTANT "
            "here and copies anyway: measured)",
            scan=True,
            unmeasured="",
        ),
        Row(
            since=MARIADB_ONLINE_COPY_SINCE,
            algorithm="COPY",
            rewrite=True,
            mode="NONE",
            source=MDB_ONLINE_COPY,
            note="online copy with LOCK=NONE",
            scan=True,
        ),
    ),
    "force": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="rebuilds the table in place",
            unmeasured="",
        ),
    ),
    "order_by": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_ONLINE_COPY,
            note="ORDER BY copies the rows in order; online copy does not support it",
            scan=True,
            unmeasured="",
        ),
    ),
    "enable_keys": (
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="EXCLUSIVE",
            source=MDB_OVERVIEW,
            note="measured: InnoDB ignores ENABLE/DISABLE KEYS, yet 10.11 accepts only "
            "LOCK=EXCLUSIVE for it: a brief full block; not described on the pages",
            unmeasured="",
        ),
    ),
    "disable_keys": (
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="EXCLUSIVE",
            source=MDB_OVERVIEW,
            note="measured: InnoDB ignores ENABLE/DISABLE KEYS, yet 10.11 accepts only "
            "LOCK=EXCLUSIVE for it: a brief full block; not described on the pages",
            unmeasured="",
        ),
    ),
    "rename_table": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=False,
            mode="EXCLUSIVE",
            source=MDB_INPLACE,
            note="metadata only, but only the exclusive locking strategy is supported",
        ),
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="EXCLUSIVE",
            source=MDB_INSTANT,
            note="instant, but only LOCK=EXCLUSIVE is accepted: readers and writers wait for the (short) rename",
            unmeasured="",
        ),
    ),
    # ---- partitions: MariaDB accepts no ALGORITHM/LOCK on partition maintenance
    # ("Partition specific operations do not yet support LOCK/ALGORITHM"); the lock
    # levels follow the MySQL 5.7 table MariaDB's partitioning code shares, and are
    # not measurable through clauses.
    "partition_by": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="repartitioning copies the table",
            scan=True,
            unmeasured="",
        ),
        Row(
            since=MARIADB_ONLINE_COPY_SINCE,
            algorithm="COPY",
            rewrite=True,
            mode="NONE",
            source=MDB_ONLINE_COPY,
            note="online copy: a table can be partitioned with LOCK=NONE",
            scan=True,
        ),
    ),
    "remove_partitioning": (
        Row(
            since=_D0,
            algorithm="COPY",
            rewrite=True,
            mode="SHARED",
            source=MDB_INPLACE,
            note="removing partitioning copies the table",
            scan=True,
            unmeasured="",
        ),
        Row(
            since=MARIADB_ONLINE_COPY_SINCE,
            algorithm="COPY",
            rewrite=True,
            mode="NONE",
            source=MDB_ONLINE_COPY,
            note="online copy: partitioning can be removed with LOCK=NONE",
            scan=True,
        ),
    ),
    "add_partition": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=False,
            mode="SHARED",
            source=MDB_PARTITION,
            note="RANGE/LIST: a new empty partition, no data copied (measured); writes wait (MySQL 5.7 rule)",
            unmeasured="",
        ),
    ),
    "add_partition.hash": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=True,
            mode="SHARED",
            source=MDB_PARTITION,
            note="HASH/KEY: rows are redistributed (measured: rows copied); writes wait",
            scan=True,
            unmeasured="",
        ),
    ),
    "drop_partition": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=False,
            mode="SHARED",
            source=MDB_PARTITION,
            note="drops the partition and its rows, no copy (measured); writes wait (MySQL 5.7 rule)",
            unmeasured="",
        ),
    ),
    "truncate_partition": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=False,
            mode="NONE",
            source=MDB_PARTITION,
            note="deletes the partition's rows; no data copied",
            unmeasured="",
        ),
    ),
    "coalesce_partition": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=True,
            mode="SHARED",
            source=MDB_PARTITION,
            note="rows of the merged partitions are copied (measured)",
            scan=True,
            unmeasured="",
        ),
    ),
    "reorganize_partition": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=True,
            mode="SHARED",
            source=MDB_PARTITION,
            note="rows of the reorganized partitions are copied (measured)",
            scan=True,
            unmeasured="",
        ),
    ),
    "rebuild_partition": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=True,
            mode="SHARED",
            source=MDB_PARTITION,
            note="drops and re-inserts the partition's rows (measured)",
            scan=True,
            unmeasured="",
        ),
    ),
    "exchange_partition": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=False,
            mode="NONE",
            source=MDB_PARTITION,
            note="swaps the partition with a table; validation reads the exchanged table",
            scan=True,
            unmeasured="",
        ),
    ),
    "optimize_partition": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=True,
            mode="SHARED",
            source=MDB_PARTITION,
            note="InnoDB rebuilds and analyzes the entire table",
            scan=True,
            unmeasured="",
        ),
    ),
    "analyze_partition": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=False,
            mode="NONE",
            source=MDB_PARTITION,
            note="reads key distributions",
            scan=True,
            unmeasured="",
        ),
    ),
    "check_partition": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=False,
            mode="NONE",
            source=MDB_PARTITION,
            note="reads the partition",
            scan=True,
            unmeasured="",
        ),
    ),
    "repair_partition": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=False,
            mode="NONE",
            source=MDB_PARTITION,
            note="no-op for InnoDB partitions",
            unmeasured="",
        ),
    ),
    "discard_partition_tablespace": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=False,
            mode="EXCLUSIVE",
            source=MDB_PARTITION,
            note="MariaDB has no per-partition DISCARD TABLESPACE: 10.11 rejects the syntax (measured)",
        ),
    ),
    "import_partition_tablespace": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=False,
            mode="EXCLUSIVE",
            source=MDB_PARTITION,
            note="MariaDB has no per-partition IMPORT TABLESPACE: 10.11 rejects the syntax (measured)",
        ),
    ),
    # ---- other statements
    "statement.optimize_table": (
        Row(
            since=_D0,
            algorithm="INPLACE",
            rewrite=True,
            mode="NONE",
            source=MDB_INPLACE,
            note="OPTIMIZE TABLE is ALTER TABLE ... FORCE (unless innodb_defragment or "
            "innodb_optimize_fulltext_only is ON); it takes no ALGORITHM/LOCK clause",
            unmeasured="",
        ),
    ),
    "statement.truncate": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=True,
            mode="EXCLUSIVE",
            source=MDB_TRUNCATE,
            note="drops and recreates the table under an exclusive metadata lock",
            unmeasured="",
        ),
    ),
    "statement.drop_table": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=False,
            mode="EXCLUSIVE",
            source=MDB_DROP,
            note="takes an exclusive metadata lock; the data is gone",
            unmeasured="",
        ),
    ),
    # measured: tests/test_locks_mysql.py::test_view_ddl_waits_for_readers_of_the_view
    "statement.drop_view": (
        Row(since=_D0, algorithm=None, rewrite=False, mode="EXCLUSIVE", source=MDB_MDL, note=_VIEW_MDL),
    ),
    "statement.replace_view": (
        Row(since=_D0, algorithm=None, rewrite=False, mode="EXCLUSIVE", source=MDB_MDL, note=_VIEW_MDL),
    ),
    "statement.rename_table": (
        Row(
            since=(10, 3, 7),
            algorithm="INSTANT",
            rewrite=False,
            mode="EXCLUSIVE",
            source=MDB_INSTANT,
            note="instant, under an exclusive lock: readers and writers wait for the (short) rename",
            unmeasured="",
        ),
    ),
    "statement.lock_table.read": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=False,
            mode="SHARED",
            source=MDB_LOCK,
            note="LOCK TABLES ... READ blocks writers until UNLOCK TABLES or the session ends",
        ),
    ),
    "statement.lock_table.write": (
        Row(
            since=_D0,
            algorithm=None,
            rewrite=False,
            mode="EXCLUSIVE",
            source=MDB_LOCK,
            note="LOCK TABLES ... WRITE blocks readers and writers until UNLOCK TABLES or the session ends",
        ),
    ),
}

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

TABLES = {"mysql": MYSQL, "mariadb": MARIADB}
