"""InnoDB online DDL matrix for MySQL and MariaDB: data, no logic.

For every operation key, per server, a list of `(since, Row)` pairs, oldest first:
the row holds from version `since` until the next pair. A row gives the cheapest
ALGORITHM the server can use, whether the table is rebuilt (or copied), and the
least restrictive LOCK level that still lets the statement run:

    NONE       concurrent reads and writes go on   (blocks nothing)
    SHARED     reads go on, writes wait            (blocks writes)
    EXCLUSIVE  reads and writes wait               (blocks reads+writes)

`algorithm` None means the server takes no ALGORITHM clause for the operation
(MariaDB partition maintenance, MySQL 5.7 partition maintenance, TRUNCATE ...).

Each row names the documentation page it comes from in `source` (the pages are
listed once below); `verified` says when a row was measured on a real server by
tests/test_locks_mysql.py (through schemacite.live.verify_mysql). Where the
server and the page disagree, the row follows the server and `note` says so.
Rows marked "inferred" are not in the Online DDL tables; their note says why
the value was chosen.

Keys are the ALTER TABLE action ops of schemacite.model.statements, refined with a
suffix where the outcome depends on what the op changes:

    add_column[.position|.auto_increment|.stored|.virtual]
    drop_column[.indexed|.in_composite|.stored|.virtual]
    modify_column.<change>   (also used for change_column; the changes are listed below)
    add_index[.fulltext_first|.fulltext|.spatial], add_unique[.clustered]
    add_foreign_key[.no_checks], engine[.change], convert_charset[.utf8mb3_to_utf8mb4|.same]
    add_partition[.hash], ...
    statement.<kind>         statement kinds other than alter_table
"""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Row:
    algorithm: str | None  # INSTANT | NOCOPY | INPLACE | COPY; None: no ALGORITHM clause applies
    rebuild: bool  # the table (or the affected partitions) is rebuilt or copied
    lock: str  # least restrictive LOCK the server accepts: NONE | SHARED | EXCLUSIVE
    source: str  # documentation page
    note: str = ""
    scan: bool = False  # reads the whole table (index build, validation) while the lock is held
    # MySQL only: what an explicit ALGORITHM=INPLACE does to an INSTANT operation
    # (True: it rebuilds the table, as for ADD/DROP COLUMN); None: same as `rebuild`.
    inplace_rebuild: bool | None = None
    verified: str = ""  # "mariadb 10.11" when tests/test_locks_mysql.py measures this row


def R(algorithm, rebuild, lock, source, note="", *, scan=False, inplace_rebuild=None, verified=""):
    return Row(algorithm, rebuild, lock, source, note, scan, inplace_rebuild, verified)


V = "mariadb 10.11"  # rows measured by tests/test_locks_mysql.py

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

# How many bytes a character can take, for the VARCHAR length-byte rules.
CHARSET_MAXLEN = {
    "latin1": 1,
    "ascii": 1,
    "binary": 1,
    "latin2": 1,
    "cp1250": 1,
    "cp1251": 1,
    "cp1252": 1,
    "utf8": 3,
    "utf8mb3": 3,
    "ucs2": 2,
    "utf16": 4,
    "utf16le": 4,
    "utf32": 4,
    "utf8mb4": 4,
    "gbk": 2,
    "big5": 2,
    "sjis": 2,
    "ujis": 3,
    "gb18030": 4,
    "euckr": 2,
}
DEFAULT_CHARSET = "utf8mb4"  # assumed when neither the column type nor the table says

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
MYSQL: dict[str, tuple[tuple[tuple[int, ...], Row], ...]] = {
    # ---- columns (MySQL 5.7/8.0/8.4 "Online DDL Operations", Column Operations)
    "add_column": (
        (_M57, R("INPLACE", True, "NONE", MY57, "rebuilds the table in place")),
        (
            (8, 0, 12),
            R(
                "INSTANT",
                False,
                "NONE",
                MY80,
                "INSTANT adds only a last column before 8.0.29; at most 64 instant row "
                "versions per table, then the table must be rebuilt",
                inplace_rebuild=True,
            ),
        ),
    ),
    "add_column.position": (
        (_M57, R("INPLACE", True, "NONE", MY57, "rebuilds the table in place")),
        ((8, 0, 12), R("INPLACE", True, "NONE", MY80, "INSTANT ADD COLUMN only appends a last column before 8.0.29")),
        (
            (8, 0, 29),
            R(
                "INSTANT",
                False,
                "NONE",
                MY80,
                "INSTANT at any position from 8.0.29; at most 64 instant row versions",
                inplace_rebuild=True,
            ),
        ),
    ),
    "add_column.auto_increment": (
        (
            _M57,
            R(
                "INPLACE",
                True,
                "SHARED",
                MY57,
                "adding an AUTO_INCREMENT column blocks writes: at least ALGORITHM=INPLACE, LOCK=SHARED",
                scan=True,
            ),
        ),
    ),
    "add_column.stored": (
        (
            _M57,
            R(
                "COPY",
                True,
                "SHARED",
                MY57,
                "a STORED generated column is computed by the server: table copy",
                scan=True,
            ),
        ),
    ),
    "add_column.virtual": (
        (
            _M57,
            R(
                "INPLACE",
                False,
                "NONE",
                MY57,
                "metadata only for non-partitioned tables; not in place for partitioned tables",
            ),
        ),
        (
            (8, 0, 12),
            R(
                "INSTANT",
                False,
                "NONE",
                MY80,
                "instant for non-partitioned tables; not in place for partitioned tables",
            ),
        ),
    ),
    "drop_column": (
        (_M57, R("INPLACE", True, "NONE", MY57, "rebuilds the table in place")),
        (
            (8, 0, 29),
            R(
                "INSTANT",
                False,
                "NONE",
                MY80,
                "INSTANT DROP COLUMN from 8.0.29; at most 64 instant row versions",
                inplace_rebuild=True,
            ),
        ),
    ),
    "drop_column.indexed": (
        (_M57, R("INPLACE", True, "NONE", MY57, "rebuilds the table in place")),
        (
            (8, 0, 29),
            R(
                "INSTANT",
                False,
                "NONE",
                MY80,
                "INSTANT DROP COLUMN from 8.0.29 (a column with a functional index cannot be dropped instantly)",
                inplace_rebuild=True,
            ),
        ),
    ),
    "drop_column.in_composite": (
        (
            _M57,
            R(
                "INPLACE",
                True,
                "NONE",
                MY80,
                "inferred, not measured: the column leaves the multi-column index it is part of (ALTER TABLE "
                "page), which INSTANT cannot change; the table is rebuilt in place as for DROP COLUMN before 8.0.29",
                inplace_rebuild=True,
            ),
        ),
    ),
    "drop_column.stored": (
        (_M57, R("INPLACE", True, "NONE", MY57, "dropping a STORED generated column rebuilds in place")),
    ),
    "drop_column.virtual": (
        (_M57, R("INPLACE", False, "NONE", MY57, "metadata only for non-partitioned tables")),
        ((8, 0, 12), R("INSTANT", False, "NONE", MY80, "instant for non-partitioned tables")),
    ),
    "rename_column": (
        (
            _M57,
            R(
                "INPLACE",
                False,
                "NONE",
                MY57,
                "keep the same type and NULL-ness to stay online; a column referenced by a "
                "foreign key can only be renamed with ALGORITHM=INPLACE",
            ),
        ),
        (
            (8, 0, 28),
            R(
                "INSTANT",
                False,
                "NONE",
                MY80,
                "INSTANT rename from 8.0.28; a column referenced by a foreign key "
                "can only be renamed with ALGORITHM=INPLACE",
                inplace_rebuild=False,
            ),
        ),
    ),
    "modify_column.rename": (
        (_M57, R("INPLACE", False, "NONE", MY57, "CHANGE with the same definition: a rename")),
        (
            (8, 0, 28),
            R("INSTANT", False, "NONE", MY80, "CHANGE with the same definition: a rename", inplace_rebuild=False),
        ),
    ),
    "modify_column.same": (
        # inferred: a MODIFY that changes nothing the storage sees (comment, same definition)
        (
            _M57,
            R(
                "INPLACE",
                False,
                "NONE",
                MY57,
                "inferred: no storage change, metadata only (not listed in the Online DDL tables)",
            ),
        ),
    ),
    "modify_column.default": (
        (_M57, R("INPLACE", False, "NONE", MY57, "only the default changes: metadata only")),
        (
            (8, 0, 12),
            R("INSTANT", False, "NONE", MY80, "only the default changes: metadata only", inplace_rebuild=False),
        ),
    ),
    "modify_column.reorder": (
        (_M57, R("INPLACE", True, "NONE", MY57, "FIRST/AFTER reorders columns: rebuilds in place")),
    ),
    "modify_column.type": (
        (
            _M57,
            R("COPY", True, "SHARED", MY57, "changing the data type is only supported with ALGORITHM=COPY", scan=True),
        ),
    ),
    "modify_column.varchar_extend": (
        (
            _M57,
            R(
                "INPLACE",
                False,
                "NONE",
                MY57,
                "VARCHAR extended within the same number of length bytes (0-255 or 256+ bytes)",
            ),
        ),
    ),
    "modify_column.varchar_extend_from_127": (
        (
            _M57,
            R(
                "COPY",
                True,
                "SHARED",
                MY57,
                "VARCHAR crossing from under 256 to 256+ bytes needs a second length byte: table copy",
                scan=True,
            ),
        ),
    ),
    "modify_column.varchar_extend_over_255": (
        (
            _M57,
            R(
                "COPY",
                True,
                "SHARED",
                MY57,
                "VARCHAR crossing from under 256 to 256+ bytes needs a second length byte: table copy",
                scan=True,
            ),
        ),
    ),
    "modify_column.not_null": (
        (
            _M57,
            R(
                "INPLACE",
                True,
                "NONE",
                MY57,
                "rebuilds in place; needs a strict SQL_MODE and fails if the column holds NULLs",
                scan=True,
            ),
        ),
    ),
    "modify_column.null": ((_M57, R("INPLACE", True, "NONE", MY57, "rebuilds the table in place")),),
    "modify_column.enum_append": (
        (
            _M57,
            R("INPLACE", False, "NONE", MY57, "members appended at the end with the same storage size: metadata only"),
        ),
        (
            (8, 0, 12),
            R(
                "INSTANT",
                False,
                "NONE",
                MY80,
                "members appended at the end with the same storage size: metadata only",
                inplace_rebuild=False,
            ),
        ),
    ),
    "modify_column.charset_utf8mb3_to_utf8mb4": (
        (_M57, R("COPY", True, "SHARED", MY57, "a character set change is a data type change: table copy", scan=True)),
    ),
    "modify_column.collation": (
        (
            _M57,
            R(
                "COPY",
                True,
                "SHARED",
                MY57,
                "a collation change is treated as a data type change: table copy",
                scan=True,
            ),
        ),
    ),
    "modify_column.auto_increment": (
        (
            _M57,
            R("COPY", True, "SHARED", MY57, "making a column AUTO_INCREMENT changes its type: table copy", scan=True),
        ),
    ),
    "alter_column_visibility": (
        (
            (8, 0, 23),
            R(
                "INPLACE",
                False,
                "NONE",
                MY_INVISIBLE_COL,
                "inferred: column visibility (8.0.23+) is data-dictionary metadata; not listed "
                "in the Online DDL tables",
            ),
        ),
    ),
    "set_default": (
        (_M57, R("INPLACE", False, "NONE", MY57, "metadata only")),
        ((8, 0, 12), R("INSTANT", False, "NONE", MY80, "metadata only", inplace_rebuild=False)),
    ),
    "drop_default": (
        (_M57, R("INPLACE", False, "NONE", MY57, "metadata only")),
        ((8, 0, 12), R("INSTANT", False, "NONE", MY80, "metadata only", inplace_rebuild=False)),
    ),
    "auto_increment": ((_M57, R("INPLACE", False, "NONE", MY57, "changes a value kept in memory, not the data file")),),
    # ---- indexes (Index Operations, Primary Key Operations)
    "add_index": (
        (_M57, R("INPLACE", False, "NONE", MY57, "builds the secondary index while writes go on", scan=True)),
    ),
    "add_unique": (
        (
            _M57,
            R(
                "INPLACE",
                False,
                "NONE",
                MY57,
                "builds the unique index while writes go on; fails on duplicates",
                scan=True,
            ),
        ),
    ),
    "add_unique.clustered": (
        (
            _M57,
            R(
                "INPLACE",
                True,
                "NONE",
                MY57,
                "inferred: on a table without a primary key, a unique key on NOT NULL columns "
                "becomes the clustered index, so the table is rebuilt as for ADD PRIMARY KEY",
                scan=True,
            ),
        ),
    ),
    "add_index.fulltext_first": (
        (
            _M57,
            R(
                "INPLACE",
                True,
                "SHARED",
                MY57,
                "the first FULLTEXT index rebuilds the table to add FTS_DOC_ID (unless the table "
                "has one) and blocks writes",
                scan=True,
            ),
        ),
    ),
    "add_index.fulltext": (
        (
            _M57,
            R(
                "INPLACE",
                False,
                "SHARED",
                MY57,
                "a further FULLTEXT index blocks writes while it is built; one at a time",
                scan=True,
            ),
        ),
    ),
    "add_index.spatial": (
        (_M57, R("INPLACE", False, "SHARED", MY57, "a SPATIAL index blocks writes while it is built", scan=True)),
    ),
    "drop_index": ((_M57, R("INPLACE", False, "NONE", MY57, "metadata only")),),
    "rename_index": ((_M57, R("INPLACE", False, "NONE", MY57, "metadata only")),),
    "alter_index_visibility": (
        (
            (8, 0),
            R(
                "INPLACE",
                False,
                "NONE",
                MY_INVISIBLE_IDX,
                "inferred: index visibility (8.0+) is metadata; not listed in the Online DDL tables",
            ),
        ),
    ),
    "add_primary_key": (
        (
            _M57,
            R(
                "INPLACE",
                True,
                "NONE",
                MY57,
                "rebuilds the clustered index in place; needs a strict SQL_MODE, and INPLACE is "
                "refused in some cases where columns must become NOT NULL",
                scan=True,
            ),
        ),
    ),
    "drop_primary_key": (
        (
            _M57,
            R(
                "COPY",
                True,
                "SHARED",
                MY57,
                "only ALGORITHM=COPY drops a primary key without adding another",
                scan=True,
            ),
        ),
    ),
    "drop_primary_key+add_primary_key": (
        (_M57, R("INPLACE", True, "NONE", MY57, "replacing the primary key rebuilds in place", scan=True)),
    ),
    # ---- foreign keys (Foreign Key Operations)
    "add_foreign_key": (
        (
            _M57,
            R(
                "COPY",
                True,
                "SHARED",
                MY57,
                "with foreign_key_checks=1 only ALGORITHM=COPY adds a foreign key",
                scan=True,
            ),
        ),
    ),
    "add_foreign_key.no_checks": (
        (
            _M57,
            R(
                "INPLACE",
                False,
                "NONE",
                MY57,
                "with foreign_key_checks=0 the foreign key is added in place, metadata only, "
                "and existing rows are not checked",
            ),
        ),
    ),
    "drop_foreign_key": ((_M57, R("INPLACE", False, "NONE", MY57, "metadata only")),),
    "add_check": (
        (_M57, R(None, False, "NONE", MY_CHECK, "CHECK constraints are parsed and ignored before 8.0.16")),
        (
            (8, 0, 16),
            R(
                "COPY",
                True,
                "SHARED",
                MY_CHECK,
                "inferred: an enforced CHECK constraint is validated against every row by "
                "the server, which needs a table copy; not listed in the Online DDL tables",
                scan=True,
            ),
        ),
    ),
    "drop_constraint": (
        (_M57, R(None, False, "NONE", MY_CHECK, "CHECK constraints are parsed and ignored before 8.0.16")),
        (
            (8, 0, 16),
            R(
                "INPLACE",
                False,
                "NONE",
                MY_CHECK,
                "inferred: dropping a CHECK constraint is metadata only; not listed in the Online DDL tables",
            ),
        ),
    ),
    # ---- table options (Table Operations)
    "row_format": ((_M57, R("INPLACE", True, "NONE", MY57, "rebuilds the table in place")),),
    "key_block_size": ((_M57, R("INPLACE", True, "NONE", MY57, "rebuilds the table in place")),),
    "table_option": ((_M57, R("INPLACE", False, "NONE", MY57, "persistent statistics options: metadata only")),),
    "table_comment": (
        (
            _M57,
            R(
                "INPLACE",
                False,
                "NONE",
                MY57,
                "inferred: a table comment is metadata only; not listed in the Online DDL tables",
            ),
        ),
    ),
    "default_charset": (
        (_M57, R("INPLACE", True, "NONE", MY57, "rebuilds the table if the new character encoding differs")),
    ),
    "convert_charset": (
        (_M57, R("COPY", True, "SHARED", MY57, "converting the character set copies the table", scan=True)),
        (
            (8, 0),
            R(
                "INPLACE",
                True,
                "SHARED",
                MY80,
                "the 8.0/8.4 tables list it in place but without concurrent DML; when string "
                "columns change type the server falls back to ALGORITHM=COPY, also write-blocking",
                scan=True,
            ),
        ),
    ),
    "convert_charset.utf8mb3_to_utf8mb4": (
        (_M57, R("COPY", True, "SHARED", MY57, "converting the character set copies the table", scan=True)),
        (
            (8, 0),
            R(
                "INPLACE",
                True,
                "SHARED",
                MY80,
                "the 8.0/8.4 tables list it in place but without concurrent DML",
                scan=True,
            ),
        ),
    ),
    "engine": ((_M57, R("INPLACE", True, "NONE", MY57, "ENGINE=InnoDB on an InnoDB table: a null rebuild in place")),),
    "engine.change": (
        (_M57, R("COPY", True, "SHARED", MY_ALTER, "moving to another storage engine copies the table", scan=True)),
    ),
    "force": ((_M57, R("INPLACE", True, "NONE", MY57, "rebuilds the table in place")),),
    "order_by": (
        (_M57, R("COPY", True, "SHARED", MY_ALTER, "ORDER BY rewrites the rows in order: table copy", scan=True)),
    ),
    "enable_keys": (
        (
            _M57,
            R(
                None,
                False,
                "NONE",
                MY_ALTER,
                "InnoDB ignores ENABLE/DISABLE KEYS (with a warning); lock level not measured on MySQL "
                "(MariaDB 10.11 takes it exclusively)",
            ),
        ),
    ),
    "disable_keys": (
        (
            _M57,
            R(
                None,
                False,
                "NONE",
                MY_ALTER,
                "InnoDB ignores ENABLE/DISABLE KEYS (with a warning); lock level not measured on MySQL "
                "(MariaDB 10.11 takes it exclusively)",
            ),
        ),
    ),
    "rename_table": (
        (_M57, R("INPLACE", False, "NONE", MY57, "renames the files without copying")),
        ((8, 0, 12), R("INSTANT", False, "NONE", MY80, "renames the files without copying", inplace_rebuild=False)),
    ),
    # ---- partitions (Partitioning Operations)
    "partition_by": ((_M57, R("COPY", True, "SHARED", MY57, "repartitions by copying the table", scan=True)),),
    "remove_partitioning": (
        (_M57, R("COPY", True, "SHARED", MY57, "removes partitioning by copying the table", scan=True)),
    ),
    "add_partition": (
        (
            _M57,
            R(
                None,
                False,
                "SHARED",
                MY57,
                "RANGE/LIST: no data copied; only ALGORITHM=DEFAULT, LOCK=DEFAULT; DML not permitted",
            ),
        ),
        ((8, 0), R("INPLACE", False, "NONE", MY80, "RANGE/LIST: no data copied, concurrent DML allowed")),
    ),
    "add_partition.hash": (
        (
            _M57,
            R(
                None,
                True,
                "SHARED",
                MY57,
                "HASH/KEY: rows are redistributed under a shared lock; only ALGORITHM=DEFAULT",
                scan=True,
            ),
        ),
        (
            (8, 0),
            R(
                "INPLACE",
                True,
                "SHARED",
                MY80,
                "HASH/KEY: rows are redistributed; LOCK=NONE is not supported",
                scan=True,
            ),
        ),
    ),
    "drop_partition": (
        (
            _M57,
            R(
                None,
                False,
                "SHARED",
                MY57,
                "RANGE/LIST: drops the partition's data without copying; only ALGORITHM=DEFAULT",
            ),
        ),
        (
            (8, 0),
            R(
                "INPLACE",
                False,
                "NONE",
                MY80,
                "drops the partition and its rows; ALGORITHM=COPY would move the rows instead",
            ),
        ),
    ),
    "truncate_partition": ((_M57, R("INPLACE", False, "NONE", MY57, "deletes the partition's rows; no data copied")),),
    "coalesce_partition": (
        (_M57, R(None, True, "SHARED", MY57, "rows are copied under a shared lock; only ALGORITHM=DEFAULT", scan=True)),
        (
            (8, 0),
            R("INPLACE", True, "SHARED", MY80, "rows of the affected partitions are copied; no LOCK=NONE", scan=True),
        ),
    ),
    "reorganize_partition": (
        (_M57, R(None, True, "SHARED", MY57, "rows are copied under a shared lock; only ALGORITHM=DEFAULT", scan=True)),
        (
            (8, 0),
            R("INPLACE", True, "SHARED", MY80, "rows of the affected partitions are copied; no LOCK=NONE", scan=True),
        ),
    ),
    "rebuild_partition": (
        (_M57, R(None, True, "SHARED", MY57, "rows are copied under a shared lock; only ALGORITHM=DEFAULT", scan=True)),
        (
            (8, 0),
            R("INPLACE", True, "SHARED", MY80, "rows of the affected partitions are copied; no LOCK=NONE", scan=True),
        ),
    ),
    "exchange_partition": (
        (
            _M57,
            R(
                "INPLACE",
                False,
                "NONE",
                MY57,
                "swaps the partition and the table; WITH VALIDATION (the default) reads every row "
                "of the exchanged table",
                scan=True,
            ),
        ),
    ),
    "optimize_partition": (
        (
            _M57,
            R(
                None,
                True,
                "SHARED",
                MY57,
                "InnoDB rebuilds and analyzes the entire table; ALGORITHM and LOCK are ignored",
                scan=True,
            ),
        ),
    ),
    "analyze_partition": ((_M57, R(None, False, "NONE", MY57, "reads key distributions", scan=True)),),
    "check_partition": ((_M57, R(None, False, "NONE", MY57, "reads the partition", scan=True)),),
    "repair_partition": ((_M57, R(None, False, "NONE", MY57, "no-op for InnoDB partitions")),),
    "discard_partition_tablespace": (
        (_M57, R(None, False, "EXCLUSIVE", MY57, "only ALGORITHM=DEFAULT, LOCK=DEFAULT; no DML")),
    ),
    "import_partition_tablespace": (
        (_M57, R(None, False, "EXCLUSIVE", MY57, "only ALGORITHM=DEFAULT, LOCK=DEFAULT; no DML")),
    ),
    # ---- other statements
    "statement.optimize_table": (
        (
            _M57,
            R(
                "INPLACE",
                True,
                "NONE",
                MY57,
                "OPTIMIZE TABLE on InnoDB is recreate + analyze, in place; it takes no ALGORITHM/LOCK clause",
            ),
        ),
    ),
    "statement.truncate": (
        (
            _M57,
            R(None, True, "EXCLUSIVE", MY_TRUNCATE, "drops and recreates the table under an exclusive metadata lock"),
        ),
    ),
    "statement.drop_table": (
        (_M57, R(None, False, "EXCLUSIVE", MY_DROP, "takes an exclusive metadata lock; the data is gone")),
    ),
    # DROP VIEW, CREATE OR REPLACE VIEW and ALTER VIEW of an existing view (MySQL: from the documentation)
    "statement.drop_view": ((_M57, R(None, False, "EXCLUSIVE", MY_METADATA, _VIEW_MDL)),),
    "statement.replace_view": ((_M57, R(None, False, "EXCLUSIVE", MY_METADATA, _VIEW_MDL)),),
    "statement.rename_table": (
        (_M57, R("INPLACE", False, "NONE", MY57, "renames the files without copying")),
        ((8, 0, 12), R("INSTANT", False, "NONE", MY80, "renames the files without copying")),
    ),
    "statement.lock_table.read": (
        (
            _M57,
            R(
                None,
                False,
                "SHARED",
                MY_LOCK,
                "LOCK TABLES ... READ blocks writers until UNLOCK TABLES or the session ends",
            ),
        ),
    ),
    "statement.lock_table.write": (
        (
            _M57,
            R(
                None,
                False,
                "EXCLUSIVE",
                MY_LOCK,
                "LOCK TABLES ... WRITE blocks readers and writers until UNLOCK TABLES or the session ends",
            ),
        ),
    ),
}

# Table facts that change the row (MySQL).
MYSQL_FULLTEXT = {
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
MARIADB: dict[str, tuple[tuple[tuple[int, ...], Row], ...]] = {
    # ---- columns
    "add_column": (
        (_D0, R("INPLACE", True, "NONE", MDB_INPLACE, "rebuilds the table in place")),
        (
            (10, 3, 2),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_INSTANT,
                "INSTANT when the column is added last (10.3) or anywhere (10.4+); not with a "
                "hidden FTS_DOC_ID (FULLTEXT index)",
                verified=V,
            ),
        ),
    ),
    "add_column.position": (
        (_D0, R("INPLACE", True, "NONE", MDB_INPLACE, "rebuilds the table in place")),
        ((10, 4), R("INSTANT", False, "NONE", MDB_INSTANT, "INSTANT at any position from 10.4", verified=V)),
    ),
    "add_column.auto_increment": (
        (
            _D0,
            R(
                "INPLACE",
                True,
                "SHARED",
                MDB_INPLACE,
                "adding an AUTO_INCREMENT column rebuilds and blocks writes",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "add_column.stored": (
        (
            _D0,
            R(
                "COPY",
                True,
                "SHARED",
                MDB_INPLACE,
                "a PERSISTENT/STORED generated column is computed by the server: table copy",
                scan=True,
                verified=V,
            ),
        ),
        (
            MARIADB_ONLINE_COPY_SINCE,
            R(
                "COPY",
                True,
                "NONE",
                MDB_ONLINE_COPY,
                "online copy: a STORED generated column can be added with LOCK=NONE",
                scan=True,
            ),
        ),
    ),
    "add_column.virtual": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "metadata only")),
        (
            (10, 3, 7),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_INSTANT,
                "inferred from the INSTANT ADD COLUMN rules; a VIRTUAL column stores nothing",
                verified=V,
            ),
        ),
    ),
    "drop_column": (
        (_D0, R("INPLACE", True, "NONE", MDB_INPLACE, "rebuilds the table in place")),
        ((10, 4), R("INSTANT", False, "NONE", MDB_INSTANT, "INSTANT DROP COLUMN from 10.4", verified=V)),
    ),
    "drop_column.indexed": (
        (_D0, R("INPLACE", True, "NONE", MDB_INPLACE, "rebuilds the table in place")),
        (
            (10, 4),
            R(
                "NOCOPY",
                False,
                "NONE",
                MDB_NOCOPY,
                "measured: the column goes instantly, but dropping the index on it makes the statement NOCOPY",
                verified=V,
            ),
        ),
    ),
    "drop_column.in_composite": (
        (
            _D0,
            R(
                "INPLACE",
                True,
                "NONE",
                MDB_INPLACE,
                "measured: the column leaves a multi-column index, which is rebuilt with the table in place "
                "(the ALTER TABLE page says NOCOPY; the server refuses NOCOPY, error 1845)",
                verified=V,
            ),
        ),
    ),
    "drop_column.stored": (
        (_D0, R("INPLACE", True, "NONE", MDB_INPLACE, "rebuilds the table in place")),
        ((10, 4), R("INSTANT", False, "NONE", MDB_INSTANT, "INSTANT DROP COLUMN from 10.4", verified=V)),
    ),
    "drop_column.virtual": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "metadata only")),
        ((10, 4), R("INSTANT", False, "NONE", MDB_INSTANT, "INSTANT DROP COLUMN from 10.4", verified=V)),
    ),
    "rename_column": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "metadata only")),
        ((10, 3, 7), R("INSTANT", False, "NONE", MDB_INSTANT, "INSTANT when only the name changes", verified=V)),
    ),
    "modify_column.rename": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "CHANGE with the same definition: metadata only")),
        ((10, 3, 7), R("INSTANT", False, "NONE", MDB_INSTANT, "CHANGE with the same definition", verified=V)),
    ),
    "modify_column.same": (
        (
            (10, 3, 7),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_INSTANT,
                "measured: a MODIFY that changes nothing stored (comment, same definition) is "
                "instant; not described on the page",
                verified=V,
            ),
        ),
    ),
    "modify_column.default": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "only the default changes: metadata only")),
        ((10, 3, 7), R("INSTANT", False, "NONE", MDB_INSTANT, "only the default changes", verified=V)),
    ),
    "modify_column.reorder": (
        (_D0, R("INPLACE", True, "NONE", MDB_INPLACE, "FIRST/AFTER reorders columns: rebuilds in place")),
        ((10, 4), R("INSTANT", False, "NONE", MDB_INSTANT, "INSTANT reordering from 10.4", verified=V)),
    ),
    "modify_column.type": (
        (
            _D0,
            R(
                "COPY",
                True,
                "SHARED",
                MDB_INPLACE,
                "changing the data type copies the table (integer widening included: measured COPY "
                "on 10.11 even for ROW_FORMAT=REDUNDANT)",
                scan=True,
                verified=V,
            ),
        ),
        (
            MARIADB_ONLINE_COPY_SINCE,
            R("COPY", True, "NONE", MDB_ONLINE_COPY, "online copy: the type change runs with LOCK=NONE", scan=True),
        ),
    ),
    "modify_column.varchar_extend": (
        (
            (10, 2, 2),
            R("INPLACE", False, "NONE", MDB_INPLACE, "VARCHAR extended within the same number of length bytes"),
        ),
        (
            (10, 3, 7),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_INSTANT,
                "VARCHAR extended within the same number of length bytes (any extension with ROW_FORMAT=REDUNDANT)",
                verified=V,
            ),
        ),
    ),
    "modify_column.varchar_extend_from_127": (
        (_D0, R("COPY", True, "SHARED", MDB_INPLACE, "the number of length bytes changes: table copy", scan=True)),
        (
            (10, 4, 3),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_INSTANT,
                "from at most 127 bytes to 256+ bytes stays instant (stored lengths fit one byte either way)",
                verified=V,
            ),
        ),
    ),
    "modify_column.varchar_extend_over_255": (
        (
            _D0,
            R(
                "COPY",
                True,
                "SHARED",
                MDB_INPLACE,
                "from 128-255 bytes to 256+ bytes changes the number of length bytes: table copy "
                "(instant with ROW_FORMAT=REDUNDANT from 10.4.3)",
                scan=True,
                verified=V,
            ),
        ),
        (MARIADB_ONLINE_COPY_SINCE, R("COPY", True, "NONE", MDB_ONLINE_COPY, "online copy with LOCK=NONE", scan=True)),
    ),
    "modify_column.not_null": (
        (
            _D0,
            R(
                "INPLACE",
                True,
                "NONE",
                MDB_INPLACE,
                "rebuilds in place; needs strict mode and fails if the column holds NULLs",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "modify_column.null": (
        (
            _D0,
            R(
                "INPLACE",
                True,
                "NONE",
                MDB_INPLACE,
                "rebuilds in place (INSTANT only with ROW_FORMAT=REDUNDANT, 10.4.3+)",
                verified=V,
            ),
        ),
    ),
    "modify_column.enum_append": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "appended members, same storage size: metadata only")),
        ((10, 3, 7), R("INSTANT", False, "NONE", MDB_INSTANT, "appended members, same storage size", verified=V)),
    ),
    "modify_column.charset_utf8mb3_to_utf8mb4": (
        (_D0, R("COPY", True, "SHARED", MDB_INPLACE, "a character set change copies the table", scan=True)),
        (
            (10, 4),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_10_4_BLOG,
                "utf8mb3 to utf8mb4 is instant from 10.4 (an index on the column makes it NOCOPY)",
                verified=V,
            ),
        ),
    ),
    "modify_column.collation": (
        (_D0, R("COPY", True, "SHARED", MDB_INPLACE, "a collation change copies the table", scan=True)),
        (
            (10, 4),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_10_4_BLOG,
                "a collation change of an unindexed column is instant; with an index on it the "
                "index is rebuilt (NOCOPY)",
                verified=V,
            ),
        ),
    ),
    "modify_column.auto_increment": (
        (
            _D0,
            R(
                "COPY",
                True,
                "SHARED",
                MDB_INPLACE,
                "making a column AUTO_INCREMENT copies the table",
                scan=True,
                verified=V,
            ),
        ),
        (
            MARIADB_ONLINE_COPY_SINCE,
            R(
                "COPY",
                True,
                "NONE",
                MDB_ONLINE_COPY,
                "online copy allowed when the column was NOT NULL and a NOT NULL unique key stays unchanged",
                scan=True,
            ),
        ),
    ),
    "alter_column_visibility": (
        (
            (10, 3, 3),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_INSTANT,
                "measured: MODIFY ... INVISIBLE is metadata only; not described on the page",
                verified=V,
            ),
        ),
    ),
    "set_default": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "metadata only")),
        ((10, 3, 7), R("INSTANT", False, "NONE", MDB_INSTANT, "metadata only", verified=V)),
    ),
    "drop_default": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "metadata only")),
        ((10, 3, 7), R("INSTANT", False, "NONE", MDB_INSTANT, "metadata only", verified=V)),
    ),
    "auto_increment": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "no rebuild")),
        ((10, 3, 7), R("INSTANT", False, "NONE", MDB_INSTANT, "metadata only", verified=V)),
    ),
    # ---- indexes
    "add_index": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "builds the index while writes go on", scan=True)),
        (
            (10, 3, 7),
            R("NOCOPY", False, "NONE", MDB_NOCOPY, "builds the index while writes go on", scan=True, verified=V),
        ),
    ),
    "add_unique": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "builds the index while writes go on", scan=True)),
        (
            (10, 3, 7),
            R(
                "NOCOPY",
                False,
                "NONE",
                MDB_NOCOPY,
                "builds the unique index while writes go on; fails on duplicates",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "add_unique.clustered": (
        (
            _D0,
            R(
                "INPLACE",
                True,
                "NONE",
                MDB_INPLACE,
                "measured: on a table without a primary key, a unique key on NOT NULL columns becomes "
                "the clustered index and the table is rebuilt, as for ADD PRIMARY KEY",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "add_index.fulltext_first": (
        (
            _D0,
            R(
                "INPLACE",
                True,
                "SHARED",
                MDB_INPLACE,
                "the first FULLTEXT index rebuilds the table to add a hidden FTS_DOC_ID and blocks writes",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "add_index.fulltext": (
        (
            _D0,
            R(
                "INPLACE",
                False,
                "SHARED",
                MDB_INPLACE,
                "a further FULLTEXT index blocks writes while it is built; one at a time",
                scan=True,
            ),
        ),
        (
            (10, 3, 7),
            R(
                "NOCOPY",
                False,
                "SHARED",
                MDB_NOCOPY,
                "a further FULLTEXT index blocks writes while it is built; one at a time",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "add_index.spatial": (
        (_D0, R("INPLACE", False, "SHARED", MDB_INPLACE, "a SPATIAL index blocks writes while it is built", scan=True)),
        (
            (10, 3, 7),
            R(
                "NOCOPY",
                False,
                "SHARED",
                MDB_NOCOPY,
                "a SPATIAL index blocks writes while it is built",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "drop_index": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "metadata only")),
        (
            (10, 3, 7),
            R(
                "NOCOPY",
                False,
                "NONE",
                MDB_NOCOPY,
                'measured NOCOPY: 10.11 refuses ALGORITHM=INSTANT ("Reason: DROP INDEX") '
                "although the NOCOPY page points to an INSTANT rule",
                verified=V,
            ),
        ),
    ),
    "rename_index": (
        (
            (10, 5, 2),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_INSTANT,
                "measured: RENAME INDEX (10.5.2+) is metadata only; not described on the page",
                verified=V,
            ),
        ),
    ),
    "alter_index_visibility": (
        (
            (10, 6),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_IGNORED_IDX,
                "ALTER INDEX ... [NOT] IGNORED (10.6+) is instant: the page and the server agree",
                verified=V,
            ),
        ),
    ),
    "add_primary_key": (
        (
            _D0,
            R(
                "INPLACE",
                True,
                "NONE",
                MDB_INPLACE,
                "rebuilds the clustered index in place; use strict mode so NULLs fail instead of turning into defaults",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "drop_primary_key": (
        (
            _D0,
            R(
                "COPY",
                True,
                "SHARED",
                MDB_INPLACE,
                "only ALGORITHM=COPY drops a primary key without adding another",
                scan=True,
                verified=V,
            ),
        ),
        (
            MARIADB_ONLINE_COPY_SINCE,
            R(
                "COPY",
                True,
                "NONE",
                MDB_ONLINE_COPY,
                "online copy: a primary key can be dropped with LOCK=NONE",
                scan=True,
            ),
        ),
    ),
    "drop_primary_key+add_primary_key": (
        (
            _D0,
            R(
                "INPLACE",
                True,
                "NONE",
                MDB_INPLACE,
                "replacing the primary key rebuilds in place",
                scan=True,
                verified=V,
            ),
        ),
    ),
    # ---- foreign keys
    "add_foreign_key": (
        (
            _D0,
            R(
                "COPY",
                True,
                "SHARED",
                MDB_INPLACE,
                "with foreign_key_checks=ON only ALGORITHM=COPY adds a foreign key",
                scan=True,
                verified=V,
            ),
        ),
        (
            MARIADB_ONLINE_COPY_SINCE,
            R(
                "COPY",
                True,
                "NONE",
                MDB_ONLINE_COPY,
                "online copy with LOCK=NONE (not for tables with cascading foreign keys)",
                scan=True,
            ),
        ),
    ),
    "add_foreign_key.no_checks": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "foreign_key_checks=OFF: metadata only")),
        (
            (10, 3, 7),
            R(
                "NOCOPY",
                False,
                "NONE",
                MDB_NOCOPY,
                "foreign_key_checks=OFF: metadata only; existing rows are not checked",
                verified=V,
            ),
        ),
    ),
    "drop_foreign_key": (
        (_D0, R("INPLACE", False, "NONE", MDB_INPLACE, "metadata only")),
        ((10, 3, 7), R("INSTANT", False, "NONE", MDB_INSTANT, "metadata only", verified=V)),
    ),
    "add_check": (
        (
            (10, 2, 1),
            R(
                "COPY",
                True,
                "SHARED",
                MDB_ONLINE_COPY,
                "measured: adding a CHECK constraint copies the table to validate every row; "
                "not described on the Online DDL pages",
                scan=True,
                verified=V,
            ),
        ),
        (
            MARIADB_ONLINE_COPY_SINCE,
            R(
                "COPY",
                True,
                "NONE",
                MDB_ONLINE_COPY,
                "online copy: a CHECK constraint can be added with LOCK=NONE",
                scan=True,
            ),
        ),
    ),
    "drop_constraint": (
        ((10, 3, 6), R("INSTANT", False, "NONE", MDB_INSTANT, "dropping a CHECK constraint", verified=V)),
    ),
    # ---- table options
    "row_format": ((_D0, R("INPLACE", True, "NONE", MDB_INPLACE, "rebuilds the table in place", verified=V)),),
    "key_block_size": ((_D0, R("INPLACE", True, "NONE", MDB_INPLACE, "rebuilds the table in place", verified=V)),),
    "table_option": (
        (
            (10, 3, 7),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_INSTANT,
                "measured: statistics options are metadata only; not described on the page",
                verified=V,
            ),
        ),
    ),
    "table_comment": (
        (
            (10, 3, 7),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_INSTANT,
                "measured: a table comment is metadata only; not described on the page",
                verified=V,
            ),
        ),
    ),
    "default_charset": (
        (
            (10, 3, 7),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_INSTANT,
                "measured: the table default charset only affects later columns; not described on the page",
                verified=V,
            ),
        ),
    ),
    "convert_charset": (
        (
            _D0,
            R(
                "COPY",
                True,
                "SHARED",
                MDB_INPLACE,
                "converting string columns to another character set copies the table",
                scan=True,
                verified=V,
            ),
        ),
        (MARIADB_ONLINE_COPY_SINCE, R("COPY", True, "NONE", MDB_ONLINE_COPY, "online copy with LOCK=NONE", scan=True)),
    ),
    "convert_charset.utf8mb3_to_utf8mb4": (
        (_D0, R("COPY", True, "SHARED", MDB_INPLACE, "converting the character set copies the table", scan=True)),
        (
            (10, 4),
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_10_4_BLOG,
                "measured: utf8mb3 to utf8mb4 is instant when no TEXT column must grow to a larger "
                "type (then COPY) and no index covers a converted column (then NOCOPY)",
                verified=V,
            ),
        ),
    ),
    "convert_charset.same": (
        (
            _D0,
            R(
                "INSTANT",
                False,
                "NONE",
                MDB_INSTANT,
                "measured: the table already has that character set; only metadata changes",
                verified=V,
            ),
        ),
    ),
    "engine": (
        (
            _D0,
            R("INPLACE", True, "NONE", MDB_INPLACE, "ENGINE=InnoDB on an InnoDB table: rebuild in place", verified=V),
        ),
    ),
    "engine.change": (
        (
            _D0,
            R(
                "COPY",
                True,
                "SHARED",
                MDB_OVERVIEW,
                "moving to another storage engine copies the table (10.11 accepts ALGORITHM=INSTANT "
                "here and copies anyway: measured)",
                scan=True,
                verified=V,
            ),
        ),
        (MARIADB_ONLINE_COPY_SINCE, R("COPY", True, "NONE", MDB_ONLINE_COPY, "online copy with LOCK=NONE", scan=True)),
    ),
    "force": ((_D0, R("INPLACE", True, "NONE", MDB_INPLACE, "rebuilds the table in place", verified=V)),),
    "order_by": (
        (
            _D0,
            R(
                "COPY",
                True,
                "SHARED",
                MDB_ONLINE_COPY,
                "ORDER BY copies the rows in order; online copy does not support it",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "enable_keys": (
        (
            (10, 3, 7),
            R(
                "INSTANT",
                False,
                "EXCLUSIVE",
                MDB_OVERVIEW,
                "measured: InnoDB ignores ENABLE/DISABLE KEYS, yet 10.11 accepts only "
                "LOCK=EXCLUSIVE for it: a brief full block; not described on the pages",
                verified=V,
            ),
        ),
    ),
    "disable_keys": (
        (
            (10, 3, 7),
            R(
                "INSTANT",
                False,
                "EXCLUSIVE",
                MDB_OVERVIEW,
                "measured: InnoDB ignores ENABLE/DISABLE KEYS, yet 10.11 accepts only "
                "LOCK=EXCLUSIVE for it: a brief full block; not described on the pages",
                verified=V,
            ),
        ),
    ),
    "rename_table": (
        (
            _D0,
            R(
                "INPLACE",
                False,
                "EXCLUSIVE",
                MDB_INPLACE,
                "metadata only, but only the exclusive locking strategy is supported",
            ),
        ),
        (
            (10, 3, 7),
            R(
                "INSTANT",
                False,
                "EXCLUSIVE",
                MDB_INSTANT,
                "instant, but only LOCK=EXCLUSIVE is accepted: readers and writers wait for the (short) rename",
                verified=V,
            ),
        ),
    ),
    # ---- partitions: MariaDB accepts no ALGORITHM/LOCK on partition maintenance
    # ("Partition specific operations do not yet support LOCK/ALGORITHM"); the lock
    # levels follow the MySQL 5.7 table MariaDB's partitioning code shares, and are
    # not measurable through clauses.
    "partition_by": (
        (_D0, R("COPY", True, "SHARED", MDB_INPLACE, "repartitioning copies the table", scan=True, verified=V)),
        (
            MARIADB_ONLINE_COPY_SINCE,
            R(
                "COPY",
                True,
                "NONE",
                MDB_ONLINE_COPY,
                "online copy: a table can be partitioned with LOCK=NONE",
                scan=True,
            ),
        ),
    ),
    "remove_partitioning": (
        (_D0, R("COPY", True, "SHARED", MDB_INPLACE, "removing partitioning copies the table", scan=True, verified=V)),
        (
            MARIADB_ONLINE_COPY_SINCE,
            R(
                "COPY",
                True,
                "NONE",
                MDB_ONLINE_COPY,
                "online copy: partitioning can be removed with LOCK=NONE",
                scan=True,
            ),
        ),
    ),
    "add_partition": (
        (
            _D0,
            R(
                None,
                False,
                "SHARED",
                MDB_PARTITION,
                "RANGE/LIST: a new empty partition, no data copied (measured); writes wait (MySQL 5.7 rule)",
                verified=V,
            ),
        ),
    ),
    "add_partition.hash": (
        (
            _D0,
            R(
                None,
                True,
                "SHARED",
                MDB_PARTITION,
                "HASH/KEY: rows are redistributed (measured: rows copied); writes wait",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "drop_partition": (
        (
            _D0,
            R(
                None,
                False,
                "SHARED",
                MDB_PARTITION,
                "drops the partition and its rows, no copy (measured); writes wait (MySQL 5.7 rule)",
                verified=V,
            ),
        ),
    ),
    "truncate_partition": (
        (_D0, R(None, False, "NONE", MDB_PARTITION, "deletes the partition's rows; no data copied", verified=V)),
    ),
    "coalesce_partition": (
        (
            _D0,
            R(
                None,
                True,
                "SHARED",
                MDB_PARTITION,
                "rows of the merged partitions are copied (measured)",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "reorganize_partition": (
        (
            _D0,
            R(
                None,
                True,
                "SHARED",
                MDB_PARTITION,
                "rows of the reorganized partitions are copied (measured)",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "rebuild_partition": (
        (
            _D0,
            R(
                None,
                True,
                "SHARED",
                MDB_PARTITION,
                "drops and re-inserts the partition's rows (measured)",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "exchange_partition": (
        (
            _D0,
            R(
                None,
                False,
                "NONE",
                MDB_PARTITION,
                "swaps the partition with a table; validation reads the exchanged table",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "optimize_partition": (
        (
            _D0,
            R(
                None,
                True,
                "SHARED",
                MDB_PARTITION,
                "InnoDB rebuilds and analyzes the entire table",
                scan=True,
                verified=V,
            ),
        ),
    ),
    "analyze_partition": (
        (_D0, R(None, False, "NONE", MDB_PARTITION, "reads key distributions", scan=True, verified=V)),
    ),
    "check_partition": ((_D0, R(None, False, "NONE", MDB_PARTITION, "reads the partition", scan=True, verified=V)),),
    "repair_partition": ((_D0, R(None, False, "NONE", MDB_PARTITION, "no-op for InnoDB partitions", verified=V)),),
    "discard_partition_tablespace": (
        (
            _D0,
            R(
                None,
                False,
                "EXCLUSIVE",
                MDB_PARTITION,
                "MariaDB has no per-partition DISCARD TABLESPACE: 10.11 rejects the syntax (measured)",
            ),
        ),
    ),
    "import_partition_tablespace": (
        (
            _D0,
            R(
                None,
                False,
                "EXCLUSIVE",
                MDB_PARTITION,
                "MariaDB has no per-partition IMPORT TABLESPACE: 10.11 rejects the syntax (measured)",
            ),
        ),
    ),
    # ---- other statements
    "statement.optimize_table": (
        (
            _D0,
            R(
                "INPLACE",
                True,
                "NONE",
                MDB_INPLACE,
                "OPTIMIZE TABLE is ALTER TABLE ... FORCE (unless innodb_defragment or "
                "innodb_optimize_fulltext_only is ON); it takes no ALGORITHM/LOCK clause",
                verified=V,
            ),
        ),
    ),
    "statement.truncate": (
        (
            _D0,
            R(
                None,
                True,
                "EXCLUSIVE",
                MDB_TRUNCATE,
                "drops and recreates the table under an exclusive metadata lock",
                verified=V,
            ),
        ),
    ),
    "statement.drop_table": (
        (_D0, R(None, False, "EXCLUSIVE", MDB_DROP, "takes an exclusive metadata lock; the data is gone", verified=V)),
    ),
    # measured: tests/test_locks_mysql.py::test_view_ddl_waits_for_readers_of_the_view
    "statement.drop_view": ((_D0, R(None, False, "EXCLUSIVE", MDB_MDL, _VIEW_MDL)),),
    "statement.replace_view": ((_D0, R(None, False, "EXCLUSIVE", MDB_MDL, _VIEW_MDL)),),
    "statement.rename_table": (
        (
            (10, 3, 7),
            R(
                "INSTANT",
                False,
                "EXCLUSIVE",
                MDB_INSTANT,
                "instant, under an exclusive lock: readers and writers wait for the (short) rename",
                verified=V,
            ),
        ),
    ),
    "statement.lock_table.read": (
        (
            _D0,
            R(
                None,
                False,
                "SHARED",
                MDB_LOCK,
                "LOCK TABLES ... READ blocks writers until UNLOCK TABLES or the session ends",
            ),
        ),
    ),
    "statement.lock_table.write": (
        (
            _D0,
            R(
                None,
                False,
                "EXCLUSIVE",
                MDB_LOCK,
                "LOCK TABLES ... WRITE blocks readers and writers until UNLOCK TABLES or the session ends",
            ),
        ),
    ),
}

# Table facts that change the row (MariaDB), from the INPLACE page's Limitations.
MARIADB_FULLTEXT = {
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

# Cheaper ways to get the same result, by key (shown as LockImpact.alternative).
ALTERNATIVES = {
    "add_foreign_key": (
        "SET SESSION foreign_key_checks = 0 before the ALTER makes it in place and metadata only "
        "(existing rows are then not checked)"
    ),
    "drop_primary_key": ("drop the old and add the new primary key in the same ALTER TABLE: in place, LOCK=NONE"),
    "add_column.position": "add the column last: INSTANT from MySQL 8.0.12 / MariaDB 10.3.2",
    "copy": (
        "an online schema change tool (gh-ost, pt-online-schema-change) keeps the table writable while it is copied"
    ),
}

TABLES = {"mysql": MYSQL, "mariadb": MARIADB}
