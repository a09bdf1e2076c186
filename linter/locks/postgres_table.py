"""PostgreSQL lock table, PostgreSQL 12 to 18: data only, read by `postgres.impacts`.

One entry per operation key. ALTER TABLE sub-commands are keyed
``alter_table.<op>`` (the `Action.op` names of `schemacite.model.statements`);
other statements by their kind, with a suffix for a variant that locks
differently (``create_index.concurrently``, ``vacuum.full``, ...).

Each entry is a tuple of `Row`s (`rows.PostgresRow`, keyword-only) with disjoint version
ranges, oldest first (most have one). A row says:

- ``mode``: the lock taken on the statement's main relation, named as
  ``pg_locks.mode`` names it (None when the statement names no relation of its
  own, or only other relations are locked);
- ``others``: locks on other relations, each with a *role* that `postgres.py`
  resolves from the statement and the schema model (see ``ROLES``);
- ``recurse``: on a partitioned table the same lock (or ``partition_mode``) is
  taken on every partition, down the whole tree (``ALTER TABLE ONLY`` /
  ``LOCK TABLE ONLY`` / ``CREATE INDEX ON ONLY`` stop it); ``partitioned_mode``
  replaces ``mode`` when the main relation is itself partitioned;
- ``rewrite`` / ``scan``: True, False, or None for "it depends", with
  ``rewrite_when`` / ``scan_when`` saying on what. A rewrite writes a new copy of
  the table (and rebuilds its indexes); a scan reads the whole table (or builds
  an index) while the lock is held. ``new_storage`` marks statements that give
  the table a fresh, empty file without copying rows (TRUNCATE);
- ``since`` / ``until``: the majors the row holds for (inclusive), as version tuples: ``(18,)``;
  a key with no row for a major is a form that major does not accept yet;
- ``refused``: the SQLSTATE the server answers instead, for a form a major no longer accepts;
- ``alternative``: the less disruptive way to reach the same end;
- ``source``: the documentation the row rests on. "measured" means the
  documentation is silent or says otherwise and the row follows what the
  servers did under `verify_postgres`;
- ``unmeasured``: why no server case checks the row (empty for every row that
  tests/test_locks_postgres.py checks on each major of MEASURED_ON it holds for).

Locks on objects the statement itself creates (the new index, the new table,
an identity sequence) are left out: no other session can see them yet.
"""

from __future__ import annotations

from schemacite.locks.modes import (
    ACCESS_EXCLUSIVE,
    ACCESS_SHARE,
    EXCLUSIVE,
    ROW_EXCLUSIVE,
    ROW_SHARE,
    SHARE,
    SHARE_ROW_EXCLUSIVE,
    SHARE_UPDATE_EXCLUSIVE,
    SPELLINGS,
)
from schemacite.locks.rows import Other, row_at
from schemacite.locks.rows import PostgresRow as Row
from schemacite.model.statements import PARTITION_OPS

# The servers every row was checked on (tests/test_locks_postgres.py, through `verify_postgres`):
# major -> the release measured
MEASURED_ON = {12: "12.22", 13: "13.23", 14: "14.23", 15: "15.20", 16: "16.14", 17: "17.10", 18: "18.4"}

# Roles of `Other` locks; postgres.ROLES resolves each to relations:
ROLES = {
    "referenced": "table a new, validated, altered or dropped foreign key points at",
    "partition": "partition being attached or detached",
    "partition_children": "the partitions of the partition being attached or detached, all the way down",
    "default_partition": "the parent's DEFAULT partition, if it has one",
    "parent": "partitioned table a new partition is created in",
    "inherit_parent": "parent table named by INHERIT / NO INHERIT",
    "index": "the index the statement names",
    "table_indexes": "every index of the table",
    "index_table": "the table that owns the named index",
    "partition_index": "the partition's index ALTER INDEX ... ATTACH PARTITION names",
    "sources": "tables and views a query reads",
    "replaced_view": "the view CREATE OR REPLACE VIEW replaces",
    "fk_parents": "tables the table's own foreign keys point at, where the statement touches those keys",
    "partition_parent": "the partitioned table a dropped partition belongs to",
    "referencing": "tables whose foreign keys point at this one, where the statement reaches them",
    "owned_table": "the table of a sequence's OWNED BY",
    "published": "tables a publication adds, sets or drops",
}

_ALTER = "ALTER TABLE reference page, Description (lock level of each subform)"
_ALTER_NOTES = "ALTER TABLE reference page, Notes"
_LOCKING = "13.3 Explicit Locking, 13.3.1 Table-Level Locks"
_MEASURED = "measured (tests/test_locks_postgres.py)"
_RELEASE = "release notes of PostgreSQL"
_SKIPPED_QUERY = (
    "IF NOT EXISTS skips the statement after its query is analysed (the tables it reads are locked "
    "ACCESS SHARE), and the query is not run"
)


AE, SUE, SRE = ACCESS_EXCLUSIVE, SHARE_UPDATE_EXCLUSIVE, SHARE_ROW_EXCLUSIVE

# Why ADD COLUMN holds its lock over every row, and the way around each reason: what the column
# is first added without, and what follows (a finding names the ways of the reasons it has)
ADD_COLUMN_WAYS: dict[str, tuple[str, str]] = {
    "rewrite": ("the values it fills in", "SET DEFAULT for new rows, backfill the old ones in batches"),
    "not_null": ("NOT NULL", "SET NOT NULL after a CHECK (col IS NOT NULL) NOT VALID is validated"),
    "unique": ("UNIQUE", "CREATE UNIQUE INDEX CONCURRENTLY, then ADD CONSTRAINT ... UNIQUE USING INDEX"),
    "primary": ("PRIMARY KEY", "CREATE UNIQUE INDEX CONCURRENTLY, then ADD CONSTRAINT ... PRIMARY KEY USING INDEX"),
    "references": ("REFERENCES", "ADD CONSTRAINT ... FOREIGN KEY ... NOT VALID, then VALIDATE CONSTRAINT"),
    "check": ("CHECK", "ADD CONSTRAINT ... CHECK (...) NOT VALID, then VALIDATE CONSTRAINT"),
}
# the ways that build an index CONCURRENTLY, which PostgreSQL refuses in a transaction block
ADD_COLUMN_OUTSIDE = frozenset({"unique", "primary"})

_REFERENCED_SRE = Other(role="referenced", mode=SRE)

ROWS: dict[str, tuple[Row, ...]] = {
    # ------------------------------------------------------------------ ALTER TABLE: columns
    "alter_table.add_column": (
        Row(
            mode=AE,
            recurse=True,
            others=(Other(role="referenced", mode=SRE, when="the column has REFERENCES"),),
            rewrite=None,
            rewrite_when="a volatile DEFAULT (random(), clock_timestamp(), gen_random_uuid(), nextval()), "
            "a serial type, GENERATED ... AS IDENTITY or GENERATED ALWAYS AS (...) STORED; "
            "a constant or stable default (now()) is stored in the catalog instead (11+)",
            scan=None,
            scan_when="a REFERENCES or CHECK clause is validated against every row, or an inline UNIQUE or "
            "PRIMARY KEY builds its index",
            # the alternative depends on why the rows are read: ADD_COLUMN_WAYS
            source=f"{_ALTER} (ADD COLUMN); {_ALTER_NOTES} (volatile defaults, stored generated columns "
            "and identity columns force a rewrite)",
        ),
    ),
    "alter_table.add_column.exists": (
        Row(
            mode=AE,
            note="the column exists: IF NOT EXISTS skips it (no default, constraint or index is added), but "
            "the table is locked first, until the transaction ends; its partitions are not locked",
            source=f"{_ALTER} (ADD COLUMN IF NOT EXISTS); {_MEASURED}",
        ),
    ),
    "alter_table.add_column.virtual": (
        Row(
            mode=AE,
            recurse=True,
            since=(18,),
            scan=None,
            scan_when="the column is NOT NULL: every row's value is computed and checked",
            note="a virtual generated column stores nothing: no rewrite",
            source=f"{_ALTER} (18: adding a virtual generated column never requires a rewrite); CREATE TABLE "
            "reference page (18: VIRTUAL is the default kind); NOT NULL scan: " + _MEASURED,
        ),
    ),
    "alter_table.drop_column": (
        Row(
            mode=AE,
            recurse=True,
            note="the column is only hidden; its space is reclaimed as rows are rewritten later",
            source=f"{_ALTER} (DROP COLUMN); {_ALTER_NOTES} (DROP COLUMN does not physically remove the column)",
        ),
    ),
    "alter_table.alter_column_type": (
        Row(
            mode=AE,
            recurse=True,
            others=(
                Other(role="referencing", mode=AE, when="other tables' foreign keys point at this column"),
                Other(role="fk_parents", mode=AE, when="the column belongs to a foreign key of this table"),
            ),
            rewrite=None,
            rewrite_when="unless the old type is binary-coercible to the new one and USING does not change "
            "the value: varchar(n)->varchar(m>=n)/varchar/text, text->varchar, numeric(p,s)->numeric(q>=p,s) or "
            "numeric, varbit(n)->varbit(m>=n), cidr->inet, timestamp(p)->timestamp(q>=p); timestamp<->"
            "timestamptz only when the session TimeZone is UTC (12+)",
            scan=None,
            scan_when="a rewrite, or a new collation on an indexed column; indexes on the column are rebuilt",
            alternative="add a new column of the new type, backfill it in batches, swap names in one short transaction",
            source=f"{_ALTER} (SET DATA TYPE); {_ALTER_NOTES} (binary-coercible changes skip the rewrite); "
            f"locks on the other side of a foreign key: {_MEASURED}",
        ),
    ),
    "alter_table.set_default": (
        Row(
            mode=AE,
            recurse=True,
            note="affects only rows inserted later; existing rows are not touched",
            source=f"{_ALTER} (SET/DROP DEFAULT)",
        ),
    ),
    "alter_table.drop_default": (Row(mode=AE, recurse=True, source=f"{_ALTER} (SET/DROP DEFAULT)"),),
    "alter_table.set_not_null": (
        Row(
            mode=AE,
            recurse=True,
            scan=None,
            scan_when="unless a valid CHECK (col IS NOT NULL) constraint already proves no row is NULL (12+)",
            until=(17,),
            alternative="ADD CONSTRAINT ... CHECK (col IS NOT NULL) NOT VALID; VALIDATE CONSTRAINT (SHARE UPDATE "
            "EXCLUSIVE); then SET NOT NULL skips its scan and the CHECK can be dropped",
            source=f"{_ALTER} (SET/DROP NOT NULL: the full-table check and when it is skipped)",
        ),
        Row(
            mode=AE,
            recurse=True,
            scan=None,
            scan_when="unless a valid CHECK (col IS NOT NULL) or NOT NULL constraint already proves no row is NULL",
            since=(18,),
            alternative="ADD CONSTRAINT ... NOT NULL col NOT VALID (no scan), then VALIDATE CONSTRAINT (SHARE UPDATE "
            "EXCLUSIVE, reads and writes go on)",
            source=f"{_ALTER} (SET/DROP NOT NULL; 18: ADD CONSTRAINT ... NOT NULL ... NOT VALID)",
        ),
    ),
    "alter_table.drop_not_null": (Row(mode=AE, recurse=True, source=f"{_ALTER} (SET/DROP NOT NULL)"),),
    "alter_table.set_statistics": (
        Row(
            mode=SUE,
            recurse=True,
            source=f"{_ALTER} (SET STATISTICS: SHARE UPDATE EXCLUSIVE)",
        ),
    ),
    "alter_table.set_storage": (
        Row(
            mode=AE,
            recurse=True,
            note="affects only values stored later",
            source=f"{_ALTER} (SET STORAGE; no lock level given, so ACCESS EXCLUSIVE)",
        ),
    ),
    "alter_table.set_compression": (
        Row(
            mode=AE,
            recurse=True,
            since=(14,),
            note="affects only values compressed later",
            source=f"{_ALTER} (SET COMPRESSION, 14+)",
        ),
    ),
    "alter_table.add_identity": (
        Row(
            mode=AE,
            recurse=True,
            note="existing rows keep their values; the column must already be NOT NULL",
            source=f"{_ALTER} (ADD GENERATED ... AS IDENTITY)",
        ),
    ),
    "alter_table.add_identity.partitioned": (
        Row(
            mode=AE,
            until=(16,),
            note="before 17 the identity is added to the parent alone: its partitions are neither locked nor changed",
            source=f"{_RELEASE} 17 (identity columns on partitioned tables); {_MEASURED}",
        ),
        Row(
            mode=AE,
            recurse=True,
            since=(17,),
            note="existing rows keep their values; the column must already be NOT NULL",
            source=f"{_RELEASE} 17 (identity columns on partitioned tables); {_MEASURED}",
        ),
    ),
    "alter_table.set_identity": (
        Row(
            mode=AE,
            recurse=True,
            note="the identity sequence is also locked (SHARE ROW EXCLUSIVE)",
            source=f"{_ALTER} (SET GENERATED / SET sequence_option)",
        ),
    ),
    "alter_table.drop_identity": (Row(mode=AE, recurse=True, source=f"{_ALTER} (DROP IDENTITY)"),),
    "alter_table.drop_expression": (
        Row(
            mode=AE,
            recurse=True,
            since=(13,),
            source=f"{_ALTER} (DROP EXPRESSION, 13+)",
        ),
    ),
    "alter_table.set_expression": (
        Row(
            mode=AE,
            recurse=True,
            since=(17,),
            rewrite=True,
            scan=True,
            source=f"{_ALTER} (SET EXPRESSION, 17+: rewrites the table)",
        ),
    ),
    "alter_table.set_expression.virtual": (
        Row(
            mode=AE,
            recurse=True,
            since=(18,),
            note="a virtual column's values are computed when read: nothing is rewritten",
            source=f"{_ALTER} (18: only a stored generated column is rewritten by SET EXPRESSION)",
        ),
    ),
    # ------------------------------------------------------------------ ALTER TABLE: constraints
    "alter_table.add_primary_key": (
        Row(
            mode=AE,
            recurse=True,
            scan=None,
            scan_when="always builds the index (reads every row) unless USING INDEX; with USING INDEX, only "
            "when a key column is still nullable (an implicit SET NOT NULL scan)",
            alternative_outside=True,
            alternative="CREATE UNIQUE INDEX CONCURRENTLY, then ADD CONSTRAINT ... PRIMARY KEY USING INDEX "
            "(columns already NOT NULL)",
            source=f"{_ALTER} (ADD table_constraint, ADD table_constraint_using_index); CREATE INDEX reference "
            "page (building an index reads the whole table)",
        ),
    ),
    "alter_table.add_unique": (
        Row(
            mode=AE,
            recurse=True,
            scan=None,
            scan_when="builds the index, unless USING INDEX",
            alternative_outside=True,
            alternative="CREATE UNIQUE INDEX CONCURRENTLY, then ADD CONSTRAINT ... UNIQUE USING INDEX",
            source=f"{_ALTER} (ADD table_constraint, ADD table_constraint_using_index)",
        ),
    ),
    "alter_table.add_unique.partitioned": (
        Row(
            mode=AE,
            recurse=True,
            partition_mode=SHARE,
            until=(17,),
            scan=True,
            note="each partition's index is built under SHARE (writes wait, reads go on)",
            alternative_outside=True,
            alternative="CREATE UNIQUE INDEX ON ONLY the parent, CREATE UNIQUE INDEX CONCURRENTLY on each "
            "partition, ALTER INDEX ... ATTACH PARTITION",
            source=f"{_ALTER} (ADD table_constraint); partitions under SHARE: {_MEASURED}",
        ),
        Row(
            mode=AE,
            recurse=True,
            since=(18,),
            scan=True,
            note="from 18 each partition is locked ACCESS EXCLUSIVE while its index is built",
            alternative_outside=True,
            alternative="CREATE UNIQUE INDEX ON ONLY the parent, CREATE UNIQUE INDEX CONCURRENTLY on each "
            "partition, ALTER INDEX ... ATTACH PARTITION",
            source=f"{_ALTER} (ADD table_constraint); partitions under ACCESS EXCLUSIVE from 18: {_MEASURED} "
            "(no release note says so)",
        ),
    ),
    "alter_table.add_exclude": (
        Row(
            mode=AE,
            recurse=True,
            scan=True,
            since=(12,),
            alternative="none online: the exclusion index cannot be attached with USING INDEX",
            source=f"{_ALTER} (ADD table_constraint)",
        ),
    ),
    "alter_table.add_exclude.partitioned": (
        Row(
            mode=AE,
            recurse=True,
            partition_mode=SHARE,
            since=(17,),
            until=(17,),
            scan=True,
            source=f"{_RELEASE} 17 (exclusion constraints on partitioned tables); partitions under SHARE: " + _MEASURED,
        ),
        Row(
            mode=AE,
            recurse=True,
            since=(18,),
            scan=True,
            source=f"{_RELEASE} 17 (exclusion constraints on partitioned tables); partitions under ACCESS "
            f"EXCLUSIVE from 18: {_MEASURED}",
        ),
    ),
    "alter_table.add_foreign_key": (
        Row(
            mode=SRE,
            recurse=True,
            others=(_REFERENCED_SRE,),
            scan=None,
            scan_when="unless NOT VALID: every row is checked against the referenced table",
            alternative="ADD CONSTRAINT ... FOREIGN KEY ... NOT VALID, then VALIDATE CONSTRAINT in a later "
            "transaction (SHARE UPDATE EXCLUSIVE here, ROW SHARE on the referenced table)",
            source=f"{_ALTER} (ADD table_constraint: SHARE ROW EXCLUSIVE here and on the referenced table); "
            f"{_ALTER_NOTES} (NOT VALID)",
        ),
    ),
    "alter_table.add_foreign_key.not_valid_partitioned": (
        Row(
            mode=SRE,
            recurse=True,
            others=(_REFERENCED_SRE,),
            since=(18,),
            note="NOT VALID: no row is checked until VALIDATE CONSTRAINT",
            source=f"{_RELEASE} 18 (NOT VALID foreign keys on partitioned tables); {_MEASURED}",
        ),
    ),
    "alter_table.add_foreign_key.not_enforced": (
        Row(
            mode=SRE,
            recurse=True,
            others=(_REFERENCED_SRE,),
            since=(18,),
            note="NOT ENFORCED: existing rows are not checked, and neither are later writes",
            source=f"{_RELEASE} 18 (NOT ENFORCED constraints); {_ALTER} (ADD table_constraint); {_MEASURED}",
        ),
    ),
    "alter_table.add_check.not_enforced": (
        Row(
            mode=AE,
            recurse=True,
            since=(18,),
            note="NOT ENFORCED: no row is checked",
            source=f"{_RELEASE} 18 (NOT ENFORCED constraints); {_ALTER} (18: a NOT ENFORCED CHECK is not verified)",
        ),
    ),
    "alter_table.add_not_null": (
        Row(
            mode=AE,
            recurse=True,
            since=(18,),
            scan=None,
            scan_when="unless NOT VALID",
            alternative="ADD CONSTRAINT ... NOT NULL col NOT VALID (no scan), then VALIDATE CONSTRAINT under SHARE "
            "UPDATE EXCLUSIVE",
            source=f"{_ALTER} (18: ADD table_constraint NOT NULL scans the table unless NOT VALID); "
            f"{_RELEASE} 18 (NOT VALID NOT NULL constraints)",
        ),
    ),
    "alter_table.add_check": (
        Row(
            mode=AE,
            recurse=True,
            scan=None,
            scan_when="unless NOT VALID",
            alternative="ADD CONSTRAINT ... CHECK (...) NOT VALID, then VALIDATE CONSTRAINT",
            source=f"{_ALTER} (ADD table_constraint, NOT VALID)",
        ),
    ),
    "alter_table.validate_constraint": (
        Row(
            mode=SUE,
            recurse=True,
            others=(Other(role="referenced", mode=ROW_SHARE, when="the constraint is a foreign key"),),
            scan=True,
            note="the scan runs under SHARE UPDATE EXCLUSIVE: reads and writes go on",
            source=f"{_ALTER} (VALIDATE CONSTRAINT: SHARE UPDATE EXCLUSIVE, ROW SHARE on the referenced table "
            "for a foreign key)",
        ),
    ),
    "alter_table.drop_constraint": (
        Row(
            mode=AE,
            recurse=True,
            others=(Other(role="referenced", mode=AE, when="the constraint is a foreign key"),),
            note="dropping a foreign key also takes ACCESS EXCLUSIVE on the referenced table, which loses "
            "its RI triggers",
            source=f"{_ALTER} (DROP CONSTRAINT); lock on the referenced table: {_MEASURED}",
        ),
    ),
    "alter_table.alter_constraint": (
        Row(
            mode=AE,
            recurse=True,
            note="changes only the constraint's deferrability or inheritance",
            source=f"{_ALTER} (ALTER CONSTRAINT)",
        ),
    ),
    "alter_table.alter_constraint.enforced": (
        Row(
            mode=AE,
            recurse=True,
            others=(Other(role="referenced", mode=SRE),),
            since=(18,),
            scan=True,
            note="making a foreign key ENFORCED checks every row against the referenced table",
            source=f"{_RELEASE} 18 (NOT ENFORCED constraints); {_ALTER} (18: ALTER CONSTRAINT ... ENFORCED, "
            f"foreign keys only); {_MEASURED}",
        ),
    ),
    "alter_table.alter_constraint.not_enforced": (
        Row(
            mode=AE,
            recurse=True,
            others=(Other(role="referenced", mode=AE),),
            since=(18,),
            note="the referenced table loses the constraint's triggers",
            source=f"{_RELEASE} 18 (NOT ENFORCED constraints); {_MEASURED}",
        ),
    ),
    "alter_table.rename_constraint": (
        Row(
            mode=AE,
            recurse=True,
            note="renaming a PRIMARY KEY/UNIQUE constraint also renames its index (SHARE UPDATE EXCLUSIVE)",
            source=f"{_ALTER} (RENAME CONSTRAINT)",
        ),
    ),
    # ------------------------------------------------------------------ ALTER TABLE: table-level
    "alter_table.rename_table": (Row(mode=AE, source=f"{_ALTER} (RENAME)"),),
    "alter_table.rename_column": (Row(mode=AE, recurse=True, source=f"{_ALTER} (RENAME COLUMN)"),),
    "alter_table.set_schema": (Row(mode=AE, source=f"{_ALTER} (SET SCHEMA)"),),
    "alter_table.set_tablespace": (
        Row(
            mode=AE,
            rewrite=True,
            rewrite_when="the data files are copied to the new tablespace, block by block, not read row by row "
            "(no-op when already there; a partitioned table only changes the default for future partitions)",
            alternative="pg_repack --tablespace, or create the table in the right tablespace from the start",
            source=f"{_ALTER} (SET TABLESPACE: the data files are moved)",
        ),
    ),
    "alter_table.set_logged": (
        Row(
            mode=AE,
            rewrite=True,
            scan=True,
            source=f"{_ALTER} (SET LOGGED / UNLOGGED: the table is rewritten)",
        ),
    ),
    "alter_table.set_unlogged": (
        Row(
            mode=AE,
            rewrite=True,
            scan=True,
            source=f"{_ALTER} (SET LOGGED / UNLOGGED: the table is rewritten)",
        ),
    ),
    "alter_table.set_unlogged.partitioned": (
        Row(
            mode=AE,
            until=(17,),
            note="a partitioned table holds no data: before 18 nothing changes",
            source=f"{_ALTER} (SET LOGGED / UNLOGGED); {_MEASURED}",
        ),
        Row(
            mode=AE,
            since=(18,),
            refused="42809",
            note="refused from 18: a partitioned table cannot be unlogged",
            source=f"{_RELEASE} 18 (unlogged partitioned tables disallowed); {_MEASURED}",
            unmeasured="the server refuses it: there is nothing to measure",
        ),
    ),
    "alter_table.set_access_method": (
        Row(
            mode=AE,
            rewrite=True,
            scan=True,
            since=(15,),
            rewrite_when="the table is rewritten into the new access method (no-op when it is already that one)",
            alternative="pg_repack-style copy, or create the table with the right access method",
            source=f"{_ALTER} (SET ACCESS METHOD, 15+: rewrites the table)",
        ),
    ),
    "alter_table.set_access_method.partitioned": (
        Row(
            mode=AE,
            since=(17,),
            note="a partitioned table holds no data: only the access method of partitions created later changes",
            source=f"{_ALTER} (17: SET ACCESS METHOD on a partitioned table); {_RELEASE} 17",
        ),
    ),
    "alter_table.set_storage_params": (
        Row(
            mode=None,  # resolved per parameter from RELOPTION_LOCKS: the strongest one listed wins
            note="lock level depends on the parameters; fillfactor affects only pages written later",
            source=f"{_ALTER} (SET ( storage_parameter ...): SHARE UPDATE EXCLUSIVE for fillfactor, toast and "
            "autovacuum parameters and parallel_workers, else ACCESS EXCLUSIVE)",
        ),
    ),
    "alter_table.reset_storage_params": (
        Row(
            mode=None,
            source=f"{_ALTER} (RESET ( storage_parameter ...): same levels as SET)",
        ),
    ),
    "alter_table.cluster_on": (
        Row(
            mode=SUE,
            others=(Other(role="index", mode=SUE),),
            note="only marks the index; nothing is reordered until CLUSTER runs",
            source=f"{_ALTER} (CLUSTER ON / SET WITHOUT CLUSTER: SHARE UPDATE EXCLUSIVE)",
        ),
    ),
    "alter_table.set_without_cluster": (
        Row(
            mode=SUE,
            source=f"{_ALTER} (CLUSTER ON / SET WITHOUT CLUSTER: SHARE UPDATE EXCLUSIVE)",
        ),
    ),
    "alter_table.enable_trigger": (
        Row(
            mode=SRE,
            recurse=True,
            source=f"{_ALTER} (ENABLE/DISABLE TRIGGER: SHARE ROW EXCLUSIVE)",
        ),
    ),
    "alter_table.disable_trigger": (
        Row(
            mode=SRE,
            recurse=True,
            source=f"{_ALTER} (ENABLE/DISABLE TRIGGER: SHARE ROW EXCLUSIVE)",
        ),
    ),
    "alter_table.enable_rule": (Row(mode=AE, source=f"{_ALTER} (ENABLE/DISABLE RULE)"),),
    "alter_table.disable_rule": (Row(mode=AE, source=f"{_ALTER} (ENABLE/DISABLE RULE)"),),
    "alter_table.enable_rls": (Row(mode=AE, source=f"{_ALTER} (ENABLE/DISABLE ROW LEVEL SECURITY)"),),
    "alter_table.disable_rls": (Row(mode=AE, source=f"{_ALTER} (ENABLE/DISABLE ROW LEVEL SECURITY)"),),
    "alter_table.force_rls": (Row(mode=AE, source=f"{_ALTER} (FORCE/NO FORCE ROW LEVEL SECURITY)"),),
    "alter_table.no_force_rls": (Row(mode=AE, source=f"{_ALTER} (FORCE/NO FORCE ROW LEVEL SECURITY)"),),
    "alter_table.replica_identity": (
        Row(
            mode=AE,
            note="REPLICA IDENTITY USING INDEX also takes SHARE on that index",
            source=f"{_ALTER} (REPLICA IDENTITY)",
        ),
    ),
    "alter_table.owner_to": (
        Row(
            mode=AE,
            note="when the owner really changes, the table's indexes are locked ACCESS EXCLUSIVE too",
            source=f"{_ALTER} (OWNER TO)",
        ),
    ),
    "alter_table.inherit": (
        Row(
            mode=AE,
            others=(Other(role="inherit_parent", mode=SUE),),
            note="the child's columns and constraints are compared with the parent's; no data is read",
            source=f"{_ALTER} (INHERIT); lock on the parent: {_MEASURED}",
        ),
    ),
    "alter_table.no_inherit": (
        Row(
            mode=AE,
            others=(Other(role="inherit_parent", mode=ACCESS_SHARE),),
            source=f"{_ALTER} (NO INHERIT); lock on the parent: {_MEASURED}",
        ),
    ),
    "alter_table.of_type": (Row(mode=AE, source=f"{_ALTER} (OF type_name)"),),
    "alter_table.not_of": (Row(mode=AE, source=f"{_ALTER} (NOT OF)"),),
    # ------------------------------------------------------------------ ALTER TABLE: partitions
    "alter_table.attach_partition": (
        Row(
            mode=SUE,
            others=(
                Other(role="partition", mode=AE, recurse=True),
                Other(
                    role="default_partition",
                    mode=AE,
                    when="the parent has a DEFAULT partition (it is scanned too)",
                    recurse=True,
                ),
            ),
            scan=None,
            scan_when="unless a valid CHECK constraint on the new partition implies its bound; a DEFAULT "
            "partition is scanned unless its constraints exclude the new bound",
            alternative="before attaching, ADD a CHECK constraint matching the bound (NOT VALID + VALIDATE), "
            "and one on the DEFAULT partition excluding it; drop them afterwards",
            source=f"{_ALTER} (ATTACH PARTITION: SHARE UPDATE EXCLUSIVE on the parent, ACCESS EXCLUSIVE on "
            "the partition and the DEFAULT partition, 12+); 5.11 Table Partitioning, Partition Maintenance",
        ),
    ),
    "alter_table.detach_partition": (
        Row(
            mode=AE,
            others=(
                Other(role="partition", mode=SUE),
                Other(role="partition_children", mode=AE, when="the detached partition is itself partitioned"),
                Other(role="default_partition", mode=AE, when="the parent has a DEFAULT partition", recurse=True),
            ),
            until=(13,),
            source=f"{_ALTER} (DETACH PARTITION); the partition under SHARE UPDATE EXCLUSIVE before 14, the "
            f"DEFAULT partition: {_MEASURED}",
        ),
        Row(
            mode=AE,
            others=(
                Other(role="partition", mode=AE, recurse=True),
                Other(role="default_partition", mode=AE, when="the parent has a DEFAULT partition", recurse=True),
            ),
            since=(14,),
            alternative_outside=True,
            alternative="DETACH PARTITION ... CONCURRENTLY (with no DEFAULT partition, not in a transaction block)",
            source=f"{_ALTER} (DETACH PARTITION); the partition under ACCESS EXCLUSIVE from 14, the DEFAULT "
            f"partition: {_MEASURED}",
        ),
    ),
    "alter_table.detach_partition_concurrently": (
        Row(
            mode=SUE,
            since=(14,),
            others=(Other(role="partition", mode=SUE, recurse=True),),
            note="runs as two transactions and waits for every transaction using the parent; refused when "
            "the parent has a DEFAULT partition or inside a transaction block",
            source=f"{_ALTER} (DETACH PARTITION ... CONCURRENTLY, 14+: SHARE UPDATE EXCLUSIVE on both tables)",
        ),
    ),
    "alter_table.detach_partition_finalize": (
        Row(
            mode=SUE,
            since=(14,),
            others=(Other(role="partition", mode=SUE),),
            note="completes a DETACH ... CONCURRENTLY that was cancelled or interrupted",
            source=f"{_ALTER} (DETACH PARTITION ... FINALIZE, 14+)",
            unmeasured="needs a DETACH ... CONCURRENTLY interrupted halfway",
        ),
    ),
    # ------------------------------------------------------------------ other statements
    "create_table": (
        Row(
            mode=None,
            others=(Other(role="referenced", mode=SRE, when="a column or table constraint has REFERENCES"),),
            note="the new table itself is invisible to other sessions until commit",
            source=f"{_LOCKING} (SHARE ROW EXCLUSIVE, taken to add the RI triggers on the referenced table); "
            f"{_MEASURED}",
        ),
    ),
    "create_table.exists": (
        Row(
            mode=None,
            note="the table exists: IF NOT EXISTS skips the statement, and no table it references is locked",
            source=f"CREATE TABLE reference page (IF NOT EXISTS); {_MEASURED}",
        ),
    ),
    "create_table_as.exists": (
        Row(
            mode=None,
            others=(Other(role="sources", mode=ACCESS_SHARE),),
            note="the table exists: " + _SKIPPED_QUERY,
            source=f"CREATE TABLE AS reference page (IF NOT EXISTS); {_MEASURED}",
        ),
    ),
    "create_table_like": (
        Row(
            mode=None,
            others=(Other(role="sources", mode=ACCESS_SHARE),),
            source=f"CREATE TABLE reference page (LIKE); {_MEASURED}",
        ),
    ),
    "create_table_as": (
        Row(
            mode=None,
            others=(Other(role="sources", mode=ACCESS_SHARE),),
            scan=True,
            source="CREATE TABLE AS reference page (runs the query)",
        ),
    ),
    "create_partition": (
        Row(
            mode=None,
            others=(
                Other(role="parent", mode=AE),
                Other(role="referenced", mode=SRE, when="a column or table constraint has REFERENCES"),
                Other(
                    role="default_partition",
                    mode=AE,
                    when="the parent has a DEFAULT partition (it is scanned too)",
                    recurse=True,
                ),
            ),
            scan=None,
            scan_when="the DEFAULT partition is scanned for rows belonging to the new bound",
            alternative="CREATE TABLE ... (LIKE parent INCLUDING ALL), load it, add a CHECK matching the bound, "
            "then ALTER TABLE parent ATTACH PARTITION (SHARE UPDATE EXCLUSIVE on the parent)",
            source="CREATE TABLE reference page (PARTITION OF: ACCESS EXCLUSIVE on the parent); 5.11 Table "
            f"Partitioning; {_MEASURED}",
        ),
    ),
    "create_index": (
        Row(
            mode=SHARE,
            recurse=True,
            scan=True,
            alternative_outside=True,
            alternative="CREATE INDEX CONCURRENTLY (on a partitioned table: CREATE INDEX ON ONLY the parent, "
            "CONCURRENTLY on each partition, then ALTER INDEX ... ATTACH PARTITION)",
            source=f"CREATE INDEX reference page (a normal build locks out writes, not reads); {_LOCKING} (SHARE)",
        ),
    ),
    "create_index.exists": (
        Row(
            mode=SHARE,
            note="a relation of that name (an index, or a table, view or sequence of the schema) exists: IF NOT EXISTS builds nothing, but the table is locked SHARE "
            "first, until the transaction ends",
            source=f"CREATE INDEX reference page (IF NOT EXISTS); {_MEASURED}",
        ),
    ),
    "create_index.concurrently": (
        Row(
            mode=SUE,
            scan=True,
            note="two table scans and waits for older transactions; not in a transaction block; refused on "
            "partitioned tables before 18; a failure leaves an INVALID index to drop",
            source="CREATE INDEX reference page, Building Indexes Concurrently (SHARE UPDATE EXCLUSIVE)",
        ),
    ),
    "drop_index": (
        Row(
            mode=None,
            others=(Other(role="index", mode=AE), Other(role="index_table", mode=AE, recurse=True)),
            note="an ACCESS EXCLUSIVE lock on any index blocks every query that plans against its table",
            alternative_outside=True,
            alternative="DROP INDEX CONCURRENTLY (not for partitioned indexes, not in a transaction block)",
            source=f"DROP INDEX reference page (ACCESS EXCLUSIVE on the table unless CONCURRENTLY); {_LOCKING}",
        ),
    ),
    "drop_index.concurrently": (
        Row(
            mode=None,
            others=(Other(role="index", mode=SUE), Other(role="index_table", mode=SUE)),
            note="waits for every transaction using the table; not in a transaction block",
            source="DROP INDEX reference page (CONCURRENTLY); server: SHARE UPDATE EXCLUSIVE on table and index, "
            + _MEASURED,
        ),
    ),
    "alter_index.rename": (
        Row(
            mode=None,
            others=(Other(role="index", mode=SUE),),
            source="ALTER INDEX reference page (RENAME: SHARE UPDATE EXCLUSIVE, 12+)",
        ),
    ),
    "alter_index.set_tablespace": (
        Row(
            mode=None,
            others=(Other(role="index", mode=AE),),
            note="the index's files (not the table's) are copied; ACCESS EXCLUSIVE on an index blocks every query "
            "that plans against its table",
            until=(13,),
            source="ALTER INDEX reference page (SET TABLESPACE)",
        ),
        Row(
            mode=None,
            others=(Other(role="index", mode=AE),),
            note="the index's files (not the table's) are copied; ACCESS EXCLUSIVE on an index blocks every query "
            "that plans against its table",
            since=(14,),
            alternative_outside=True,
            alternative="REINDEX INDEX CONCURRENTLY ... TABLESPACE",
            source="ALTER INDEX reference page (SET TABLESPACE); REINDEX reference page (TABLESPACE, 14+)",
        ),
    ),
    "alter_index.set_storage_params": (
        Row(
            mode=None,
            others=(Other(role="index", mode=SUE),),
            note="affects only index pages written later",
            source=f"ALTER INDEX reference page (SET/RESET ( storage_parameter )); {_MEASURED}",
        ),
    ),
    "alter_index.set_statistics": (
        Row(
            mode=None,
            others=(Other(role="index", mode=SUE),),
            source=f"ALTER INDEX reference page (ALTER COLUMN ... SET STATISTICS); {_MEASURED}",
        ),
    ),
    "alter_index.attach_partition": (
        Row(
            mode=None,
            others=(
                Other(role="index", mode=SUE),
                Other(role="partition_index", mode=AE),
                Other(role="index_table", mode=ACCESS_SHARE),
            ),
            source=f"ALTER INDEX reference page (ATTACH PARTITION); {_MEASURED}",
        ),
    ),
    "alter_index.other": (
        Row(
            mode=None,
            others=(Other(role="index", mode=AE),),
            note="unrecognised ALTER INDEX form: assumed ACCESS EXCLUSIVE on the index",
            source="ALTER INDEX reference page",
            unmeasured="the fallback for ALTER INDEX forms no row names",
        ),
    ),
    "reindex": (
        Row(
            mode=SHARE,
            others=(Other(role="table_indexes", mode=AE),),
            recurse=True,
            scan=True,
            rewrite=False,
            note="REINDEX TABLE/INDEX: SHARE on the table, ACCESS EXCLUSIVE on each index, which blocks every "
            "query that plans against the table (the planner opens all its indexes), not only those that "
            "would use the index; REINDEX SCHEMA/DATABASE/SYSTEM and partitioned tables (14+) run one "
            "transaction per table and not in a transaction block",
            alternative_outside=True,
            alternative="REINDEX ... CONCURRENTLY",
            source="REINDEX reference page (Description, Notes: locks out writes, ACCESS EXCLUSIVE on the "
            "index); reads blocked: " + _MEASURED,
        ),
    ),
    "reindex.concurrently": (
        Row(
            mode=SUE,
            since=(12,),
            recurse=True,
            partition_mode=SHARE,
            others=(Other(role="table_indexes", mode=SUE),),
            scan=True,
            note="builds a new copy of each index then swaps it in; waits for older transactions; the old copy "
            "is dropped at the end under ACCESS EXCLUSIVE once no query can use it; not in a transaction "
            "block; on a partitioned table (14+) the partitions are first listed under SHARE "
            "(blocks writes until that opening transaction commits)",
            source="REINDEX reference page, Rebuilding Indexes Concurrently (SHARE UPDATE EXCLUSIVE); "
            "partitions under SHARE: " + _MEASURED,
        ),
    ),
    "drop_table": (
        Row(
            mode=AE,
            recurse=True,
            others=(
                Other(
                    role="fk_parents",
                    mode=AE,
                    when="the dropped table has foreign keys (their RI triggers on the referenced tables are dropped)",
                ),
                Other(role="referencing", mode=AE, when="CASCADE drops other tables' foreign keys"),
                Other(role="partition_parent", mode=AE, when="the dropped table is a partition"),
                Other(role="default_partition", mode=AE, when="the dropped partition's parent has a DEFAULT partition"),
            ),
            source=f"DROP TABLE reference page; {_LOCKING} (ACCESS EXCLUSIVE); referenced tables: {_MEASURED}",
        ),
    ),
    "drop_view": (Row(mode=AE, source=f"DROP VIEW reference page; {_LOCKING}"),),
    "drop_sequence": (
        Row(
            mode=AE,
            note="a column DEFAULT nextval() on it makes DROP fail unless CASCADE, which drops the default",
            source=f"DROP SEQUENCE reference page; {_MEASURED}",
        ),
    ),
    "truncate": (
        Row(
            mode=AE,
            recurse=True,
            new_storage=True,
            others=(Other(role="referencing", mode=AE, when="CASCADE (tables referencing it are truncated too)"),),
            note="fast (a new empty file) but ACCESS EXCLUSIVE",
            alternative="DELETE in batches when other sessions must keep reading",
            source=f"TRUNCATE reference page (ACCESS EXCLUSIVE on each table); {_LOCKING}",
        ),
    ),
    "vacuum": (
        Row(
            mode=SUE,
            scan=True,
            recurse=True,
            note="first looks each table up under ACCESS SHARE, then takes SHARE UPDATE EXCLUSIVE on it (and "
            "on each partition of a partitioned table) in turn, one transaction per table; not in a "
            "transaction block",
            source=f"VACUUM reference page; {_LOCKING} (SHARE UPDATE EXCLUSIVE)",
        ),
    ),
    "vacuum.full": (
        Row(
            mode=AE,
            rewrite=True,
            scan=True,
            recurse=True,
            alternative="pg_repack (or pg_squeeze), which copy the table online and hold ACCESS EXCLUSIVE "
            "only briefly at the swap",
            source=f"VACUUM reference page (FULL rewrites the table under ACCESS EXCLUSIVE); {_LOCKING}",
        ),
    ),
    "analyze": (
        Row(
            mode=SUE,
            recurse=True,
            note="reads a sample of the table (300 x the statistics target rows), never the whole of it",
            source=f"ANALYZE reference page; {_LOCKING} (SHARE UPDATE EXCLUSIVE)",
        ),
    ),
    "cluster": (
        Row(
            mode=AE,
            others=(Other(role="table_indexes", mode=AE),),
            rewrite=True,
            scan=True,
            alternative="pg_repack --order-by (online reordering)",
            source=f"CLUSTER reference page (ACCESS EXCLUSIVE while it rewrites the table); {_LOCKING}",
        ),
    ),
    "refresh_matview": (
        Row(
            mode=AE,
            others=(Other(role="sources", mode=ACCESS_SHARE),),
            rewrite=True,
            scan=True,
            alternative="REFRESH MATERIALIZED VIEW CONCURRENTLY (needs a unique index on the view)",
            source=f"REFRESH MATERIALIZED VIEW reference page; {_LOCKING} (ACCESS EXCLUSIVE without CONCURRENTLY)",
        ),
    ),
    "refresh_matview.concurrently": (
        Row(
            mode=EXCLUSIVE,
            others=(Other(role="sources", mode=ACCESS_SHARE),),
            scan=True,
            note="reads of the view go on; it is updated by diff, not swapped",
            source=f"REFRESH MATERIALIZED VIEW reference page (CONCURRENTLY); {_LOCKING} (EXCLUSIVE)",
        ),
    ),
    "create_trigger": (
        Row(
            mode=SRE,
            recurse=True,
            source=f"CREATE TRIGGER reference page; {_LOCKING} (SHARE ROW EXCLUSIVE)",
        ),
    ),
    "drop_trigger": (
        Row(
            mode=AE,
            recurse=True,
            note="a trigger on a partitioned table is dropped from every partition as well",
            source=f"DROP TRIGGER reference page; {_MEASURED}",
        ),
    ),
    "create_rule": (
        Row(
            mode=AE,
            source=f"CREATE RULE reference page; {_MEASURED} (the lock-mode list names SHARE ROW EXCLUSIVE "
            "only for CREATE TRIGGER)",
        ),
    ),
    "drop_rule": (Row(mode=AE, source=f"DROP RULE reference page; {_MEASURED}"),),
    "create_policy": (Row(mode=AE, source=f"CREATE POLICY reference page; {_MEASURED}"),),
    "create_statistics": (
        Row(
            mode=SUE,
            source=f"CREATE STATISTICS reference page; {_LOCKING} (SHARE UPDATE EXCLUSIVE)",
        ),
    ),
    "grant": (
        Row(mode=None, until=(17,), source=f"GRANT reference page; {_MEASURED} (no lock on the relation)"),
        Row(
            mode=ACCESS_SHARE,
            since=(18,),
            note="GRANT and REVOKE on a table, view or sequence lock it ACCESS SHARE from PostgreSQL 18: "
            "they wait behind an ACCESS EXCLUSIVE lock, and block only ACCESS EXCLUSIVE",
            source=f"GRANT and REVOKE reference pages; {_MEASURED} (ACCESS SHARE from 18, none before)",
        ),
    ),
    "comment": (
        Row(
            mode=SUE,
            source=f"COMMENT reference page; {_LOCKING} (SHARE UPDATE EXCLUSIVE, COMMENT ON)",
        ),
    ),
    "create_view": (
        Row(
            mode=None,
            others=(
                Other(role="sources", mode=ACCESS_SHARE),
                Other(role="replaced_view", mode=AE, when="OR REPLACE of an existing view"),
            ),
            source=f"CREATE VIEW reference page; {_MEASURED}",
        ),
    ),
    "alter_view": (
        Row(
            mode=AE,
            note="readers of the view wait; the tables it reads are not locked",
            source=f"ALTER VIEW / ALTER MATERIALIZED VIEW reference pages; {_MEASURED}",
        ),
    ),
    "alter_policy": (Row(mode=AE, source=f"ALTER POLICY reference page; {_MEASURED}"),),
    "drop_policy": (Row(mode=AE, source=f"DROP POLICY reference page; {_MEASURED}"),),
    "create_sequence": (
        Row(
            mode=None,
            others=(Other(role="owned_table", mode=ACCESS_SHARE, when="OWNED BY a table's column"),),
            source=f"CREATE SEQUENCE reference page; {_MEASURED}",
        ),
    ),
    "alter_sequence": (
        Row(
            mode=SRE,
            others=(Other(role="owned_table", mode=ACCESS_SHARE, when="OWNED BY a table's column"),),
            note="nextval() on the sequence waits (a column DEFAULT nextval() makes inserts wait)",
            source=f"ALTER SEQUENCE reference page; {_MEASURED}",
        ),
    ),
    "publication": (
        Row(
            mode=None,
            others=(Other(role="published", mode=SUE),),
            note="tables added to or dropped from a publication; FOR ALL TABLES names none",
            source=f"CREATE PUBLICATION / ALTER PUBLICATION reference pages; {_MEASURED}",
        ),
    ),
    # ------------------------------------------------------------------ data statements a migration runs
    "insert": (
        Row(
            mode=ROW_EXCLUSIVE,
            others=(
                Other(role="sources", mode=ACCESS_SHARE, when="INSERT ... SELECT"),
                Other(
                    role="fk_parents",
                    mode=ROW_SHARE,
                    when="the rows carry foreign-key values (the RI checks lock them)",
                ),
            ),
            scan=None,
            scan_when="INSERT ... SELECT without WHERE reads its source whole",
            note="ROW EXCLUSIVE blocks no reads and no writes, only DDL that needs SHARE or stronger",
            source=f"{_LOCKING} (ROW EXCLUSIVE: INSERT, UPDATE, DELETE, MERGE); {_MEASURED}",
        ),
    ),
    "update": (
        Row(
            mode=ROW_EXCLUSIVE,
            others=(
                Other(role="sources", mode=ACCESS_SHARE, when="UPDATE ... FROM"),
                Other(role="fk_parents", mode=ROW_SHARE, when="a foreign-key column is set"),
                Other(role="referencing", mode=ROW_SHARE, when="a referenced key column is set"),
            ),
            scan=None,
            scan_when="no WHERE: every row is read and rewritten (a backfill); with one, the plan decides",
            alternative="backfill in batches of a few thousand rows, each in its own transaction",
            note="the updated rows stay locked until the transaction ends",
            source=f"{_LOCKING} (ROW EXCLUSIVE); {_MEASURED}",
        ),
    ),
    "delete": (
        Row(
            mode=ROW_EXCLUSIVE,
            others=(
                Other(role="sources", mode=ACCESS_SHARE, when="DELETE ... USING"),
                Other(
                    role="referencing", mode=ROW_SHARE, when="rows other tables reference are deleted (the RI checks)"
                ),
            ),
            scan=None,
            scan_when="no WHERE: every row is read and deleted; with one, the plan decides",
            alternative="delete in batches, each in its own transaction, or TRUNCATE when nobody reads the table",
            source=f"{_LOCKING} (ROW EXCLUSIVE); {_MEASURED}",
        ),
    ),
    "merge": (
        Row(
            mode=ROW_EXCLUSIVE,
            since=(15,),
            others=(Other(role="sources", mode=ACCESS_SHARE),),
            scan=True,
            source=f"MERGE reference page (15+); {_LOCKING} (ROW EXCLUSIVE); {_MEASURED}",
        ),
    ),
    "copy": (
        Row(
            mode=ROW_EXCLUSIVE,
            source=f"COPY reference page; {_LOCKING} (ROW EXCLUSIVE for COPY FROM); {_MEASURED}",
            unmeasured="COPY ... FROM STDIN needs a client feeding rows; the lock is INSERT's",
        ),
    ),
    "select": (
        Row(
            mode=ACCESS_SHARE,
            scan=None,
            scan_when="no WHERE: the whole table is read",
            note="ACCESS SHARE blocks only ACCESS EXCLUSIVE (DDL such as ALTER TABLE, DROP, TRUNCATE)",
            source=f"{_LOCKING} (ACCESS SHARE: SELECT); {_MEASURED}",
        ),
    ),
    "select.for_update": (
        Row(
            mode=ROW_SHARE,
            others=(Other(role="sources", mode=ACCESS_SHARE, when="tables read but not locked (FOR ... OF)"),),
            scan=None,
            scan_when="no WHERE: every row is read and locked",
            note="the rows stay locked until the transaction ends; writers of those rows wait",
            source=f"{_LOCKING} (ROW SHARE: SELECT FOR UPDATE / NO KEY UPDATE / SHARE / KEY SHARE); {_MEASURED}",
        ),
    ),
    "create_matview": (
        Row(
            mode=None,
            others=(Other(role="sources", mode=ACCESS_SHARE),),
            scan=True,
            note="WITH NO DATA skips the query run",
            source=f"CREATE MATERIALIZED VIEW reference page; {_MEASURED}",
        ),
    ),
    "create_matview.exists": (
        Row(
            mode=None,
            others=(Other(role="sources", mode=ACCESS_SHARE),),
            note="the view exists: " + _SKIPPED_QUERY,
            source=f"CREATE MATERIALIZED VIEW reference page (IF NOT EXISTS); {_MEASURED}",
        ),
    ),
    "rename_table": (
        Row(
            mode=AE,
            source=f"{_ALTER} (RENAME)",
            unmeasured="MySQL's RENAME TABLE; PostgreSQL renames through ALTER TABLE, measured there",
        ),
    ),
}

# LOCK TABLE: one row per mode (LOCK reference page; ACCESS EXCLUSIVE when no mode is given).
for _spelling, _mode in SPELLINGS.items():
    ROWS["lock_table." + _spelling.lower().replace(" ", "_")] = (
        Row(
            mode=_mode,
            recurse=True,
            note="held until the transaction ends",
            source="LOCK reference page; " + _LOCKING,
        ),
    )

# Storage parameters of tables (and their TOAST tables) whose change needs only
# SHARE UPDATE EXCLUSIVE; every other one takes ACCESS EXCLUSIVE (ALTER TABLE
# reference page, SET ( storage_parameter ); the per-parameter levels come from
# the server and were checked by tests/test_locks_postgres.py).
RELOPTION_SUE = frozenset(
    {
        "fillfactor",
        "toast_tuple_target",
        "parallel_workers",
        "autovacuum_enabled",
        "autovacuum_vacuum_threshold",
        "autovacuum_vacuum_scale_factor",
        "autovacuum_vacuum_insert_threshold",
        "autovacuum_vacuum_insert_scale_factor",
        "autovacuum_analyze_threshold",
        "autovacuum_analyze_scale_factor",
        "autovacuum_vacuum_cost_delay",
        "autovacuum_vacuum_cost_limit",
        "autovacuum_freeze_min_age",
        "autovacuum_freeze_max_age",
        "autovacuum_freeze_table_age",
        "autovacuum_multixact_freeze_min_age",
        "autovacuum_multixact_freeze_max_age",
        "autovacuum_multixact_freeze_table_age",
        "log_autovacuum_min_duration",
        "vacuum_index_cleanup",
        "vacuum_truncate",
    }
)

# ALTER TABLE forms of MySQL/MariaDB that PostgreSQL has no equivalent for.
NOT_POSTGRES = (
    frozenset(
        {
            "add_index",
            "drop_index",
            "drop_foreign_key",
            "drop_primary_key",
            "rename_index",
            "modify_column",
            "change_column",
            "alter_column_visibility",
            "engine",
            "convert_charset",
            "default_charset",
            "row_format",
            "key_block_size",
            "auto_increment",
            "table_comment",
            "table_option",
            "force",
            "order_by",
            "enable_keys",
            "disable_keys",
            "alter_index_visibility",
            "algorithm",
            "lock",
        }
    )
    | PARTITION_OPS
)


def rows_for(key: str) -> tuple[Row, ...]:
    return ROWS.get(key, ())


def row_for(key: str, version: int) -> Row | None:
    """The row of `key` that holds on major `version`, if any."""
    return row_at(ROWS.get(key, ()), (version,))
