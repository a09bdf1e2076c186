"""What the SQL front-end hands to replay, rules and lock tables.

A `Statement` is one DDL statement with its location and a small, dialect-neutral
description of what it does. `kind` names the statement; ALTER TABLE carries one
`Action` per sub-command, whose `op` is the key the lock tables are indexed by.

Statement kinds
    create_table, create_table_like, create_table_as, create_partition (PostgreSQL
    PARTITION OF), alter_table, rename_table, drop_table, truncate,
    create_index, drop_index, alter_index, reindex, create_view, drop_view,
    create_matview, refresh_matview, vacuum, analyze, cluster, lock_table,
    create_trigger, drop_trigger, create_rule, drop_rule, create_policy,
    create_statistics, comment, begin, commit, set, other (parsed, no schema effect)

Action ops (ALTER TABLE)
    add_column, drop_column, alter_column_type, set_default, drop_default,
    set_not_null, drop_not_null, set_statistics, set_storage, set_compression,
    add_identity, set_identity, drop_identity, drop_expression, set_expression,
    add_primary_key, add_unique, add_index (MySQL ADD INDEX/KEY/FULLTEXT/SPATIAL),
    add_foreign_key, add_check, add_exclude, add_constraint_using_index,
    validate_constraint, drop_constraint, drop_primary_key, drop_index (MySQL),
    drop_foreign_key (MySQL), rename_table, rename_column, rename_constraint,
    rename_index, set_schema, set_tablespace, set_logged, set_unlogged,
    set_access_method, set_storage_params, reset_storage_params, cluster_on,
    set_without_cluster, enable_trigger, disable_trigger, enable_rule, disable_rule,
    enable_rls, disable_rls, force_rls, no_force_rls, replica_identity, owner_to,
    inherit, no_inherit, of_type, not_of, attach_partition, detach_partition,
    detach_partition_concurrently, detach_partition_finalize,
    partition_by (MySQL), remove_partitioning, add_partition, drop_partition,
    truncate_partition, coalesce_partition, reorganize_partition,
    exchange_partition, rebuild_partition, optimize_partition, analyze_partition,
    check_partition, repair_partition, discard_partition_tablespace,
    import_partition_tablespace, modify_column (MySQL MODIFY), change_column
    (MySQL CHANGE), alter_column_visibility, engine, convert_charset,
    default_charset, row_format, key_block_size, auto_increment, table_comment,
    table_option, force, order_by, enable_keys, disable_keys, alter_index_visibility,
    algorithm, lock (the last two are MySQL clauses, not operations)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from schemacite.model import Location


@dataclass(slots=True)
class Action:
    """One ALTER TABLE sub-command."""

    op: str
    text: str  # the sub-command as written
    column: str | None = None
    new_name: str | None = None
    # free-form facts the op needs: "type", "default", "volatile_default", "not_null",
    # "not_valid", "concurrently", "index" (Index), "references" (table key),
    # "using_index", "stored" (generated column), "partitioning" (Partitioning),
    # "value" (table option), "first_or_after" (MySQL column position) ...
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Statement:
    """One statement of a SQL file, located and described."""

    kind: str
    sql: str
    location: Location
    dialect: str
    table: str | None = None  # folded key of the main relation it acts on
    target: str | None = None  # other object named (index, view, trigger, rule)
    actions: list[Action] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    suppressed: frozenset[str] = frozenset()  # rule names/codes ignored on this statement
    suppressed_at: int = 0  # the line of the comment that ignores them
    annotations: frozenset[str] = frozenset()  # `-- schemacite: insert-heavy` ...
    end_line: int = 0

    @property
    def first_line(self) -> str:
        return self.sql.strip().splitlines()[0] if self.sql.strip() else ""


@dataclass
class ParseError:
    """A statement or file that could not be analysed."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"
