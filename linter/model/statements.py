"""What the readers hand to replay, lock logic and rules: one `Statement` per SQL statement.

A Statement is the located envelope (file position, dialect, SQL text, suppression comments);
its `op` holds the typed facts of what the statement does, one dataclass per operation. The
readers own all SQL reading: nothing downstream looks at the SQL text, only at these facts.

`Statement.kind` (the op's `kind`) and `Action.op` (one per ALTER TABLE sub-command) are the
keys the lock tables are indexed by.
"""

from __future__ import annotations

from dataclasses import field
from typing import ClassVar

from schemacite.model.dialects import Dialect
from schemacite.model.record import record
from schemacite.model.schema import Check, Column, ForeignKey, Index, Location, Partitioning, Table

# ---------------------------------------------------------------- ALTER TABLE sub-commands


@record
class Action:
    """One ALTER TABLE sub-command. `op` keys the lock tables; ops whose lock depends on nothing
    but the op itself (ENABLE ROW LEVEL SECURITY, FORCE, ...) are plain Actions; the others are
    the subclasses below, carrying the facts their lock and replay need."""

    op: str
    text: str = ""  # as written, for messages
    column: str | None = None


@record
class AddColumn(Action):
    """ADD COLUMN (and MySQL MODIFY/CHANGE, ops modify_column and change_column, where `old_name`
    is the column changed)."""

    definition: Column = field(default_factory=lambda: Column(""))
    references: tuple[str, ...] = ()  # tables an inline REFERENCES names
    check: bool = False  # an inline CHECK
    primary: bool = False
    unique: bool = False
    position: str | None = None  # MySQL: "first" | "after"
    after: str | None = None  # MySQL: the column named by AFTER
    if_not_exists: bool = False
    old_name: str | None = None
    if_exists: bool = False  # MariaDB: MODIFY/CHANGE IF EXISTS, a no-op where the column is missing


@record
class DropColumn(Action):
    """DROP COLUMN."""

    if_exists: bool = False


@record
class AlterColumnType(Action):
    """ALTER COLUMN ... TYPE (MySQL: a MODIFY or CHANGE that changes the type)."""

    type: str = ""
    base_type: str = ""
    type_args: str = ""
    using: str | None = None  # the USING expression as written
    using_only_column: bool = False  # USING names just the column itself: no new values
    collation: str | None = None  # COLLATE as written; None: the new type's default collation


@record
class SetDefault(Action):
    """ALTER COLUMN ... SET DEFAULT."""

    default: str = ""
    default_calls: tuple[str, ...] = ()


@record
class Rename(Action):
    """RENAME COLUMN (`column` -> `new_name`), RENAME TO (op rename_table), RENAME CONSTRAINT,
    MySQL RENAME INDEX (`name` is the constraint or index renamed)."""

    new_name: str = ""
    name: str | None = None


@record
class AddKey(Action):
    """ADD PRIMARY KEY / UNIQUE / EXCLUDE, MySQL ADD INDEX|KEY|FULLTEXT|SPATIAL, and PostgreSQL
    ADD CONSTRAINT ... USING INDEX (`using_index` names the index it takes over)."""

    index: Index = field(default_factory=lambda: Index(None, ()))
    using_index: str | None = None
    if_not_exists: bool = False  # MariaDB ADD INDEX IF NOT EXISTS
    # EXCLUDE: the operator each element is compared WITH, as written (`=`, `&&`; a
    # schema-qualified one as `pg_catalog.&&`), in the order of `index.columns`
    operators: tuple[str, ...] = ()


@record
class AddForeignKey(Action):
    """ADD FOREIGN KEY, or ADD CONSTRAINT ... FOREIGN KEY."""

    key: ForeignKey = field(default_factory=lambda: ForeignKey(None, (), ""))
    not_valid: bool = False


@record
class AddCheck(Action):
    """ADD CHECK, and PostgreSQL 18 ADD CONSTRAINT ... NOT NULL col (op add_not_null)."""

    constraint: Check = field(default_factory=lambda: Check(None))
    not_valid: bool = False
    reads: tuple[str, ...] = ()  # the columns a CHECK expression reads (PostgreSQL names it after a lone one)


@record
class ConstraintAction(Action):
    """VALIDATE / DROP / ALTER CONSTRAINT, MySQL DROP FOREIGN KEY and DROP CHECK."""

    name: str | None = None
    if_exists: bool = False
    cascade: bool = False
    enforced: bool | None = None  # ALTER CONSTRAINT ... [NOT] ENFORCED (PostgreSQL 18)


@record
class IndexAction(Action):
    """Sub-commands naming an index: MySQL DROP INDEX and ALTER INDEX ... [IN]VISIBLE, PostgreSQL
    CLUSTER ON and REPLICA IDENTITY USING INDEX."""

    index: str | None = None


@record
class PartitionAction(Action):
    """ATTACH / DETACH PARTITION (PostgreSQL)."""

    partition: str = ""
    bound: str | None = None  # FOR VALUES ... as written, or "DEFAULT"
    concurrently: bool = False
    finalize: bool = False


# MySQL/MariaDB partition maintenance, ALTER TABLE ... ADD PARTITION and the rest: their `Action.op`
# names, each the first word of its clause followed by "_partition" (and "_tablespace" for two)
PARTITION_MAINTENANCE = frozenset(
    {
        "add_partition",
        "drop_partition",
        "truncate_partition",
        "coalesce_partition",
        "reorganize_partition",
        "exchange_partition",
        "rebuild_partition",
        "optimize_partition",
        "analyze_partition",
        "check_partition",
        "repair_partition",
        "discard_partition_tablespace",
        "import_partition_tablespace",
    }
)
# every MySQL/MariaDB ALTER TABLE form that changes or maintains a table's partitioning
PARTITION_OPS = PARTITION_MAINTENANCE | {"partition_by", "remove_partitioning"}


@record
class PartitionBy(Action):
    """MySQL PARTITION BY on an existing table."""

    partitioning: Partitioning = field(default_factory=lambda: Partitioning("", ()))


@record
class Inherit(Action):
    """INHERIT or NO INHERIT a parent table."""

    parent: str = ""


@record
class Option(Action):
    """A table option or setting: MySQL ENGINE, ROW_FORMAT, CHARSET, CONVERT TO CHARACTER SET,
    ALGORITHM and LOCK clauses; PostgreSQL SET SCHEMA, SET TABLESPACE, SET ACCESS METHOD, SET
    (storage parameters) and RESET, whose `params` are the parameter names."""

    option: str = ""
    value: str | None = None
    collation: str | None = None
    params: tuple[str, ...] = ()


# ---------------------------------------------------------------- statements


@record
class Op:
    """What a statement does. Subclasses set `kind`; `table` is the main relation it acts on."""

    kind: ClassVar[str] = "other"

    @property
    def table(self) -> str | None:
        return None

    @property
    def target(self) -> str | None:
        """Another object the statement names (an index, view, trigger, rule)."""
        return None

    def relations(self) -> tuple[str, ...]:
        """Every relation the statement names (its own, and the ones it renames, drops,
        attaches, copies, reads or references)."""
        return tuple(r for r in (self.table,) if r)


@record
class Other(Op):
    """A statement that changes no table: functions, types, extensions, grants, plain queries.
    `what` names it for messages (`CREATE FUNCTION`)."""

    what: str = ""
    calls: tuple[str, ...] = ()  # PostgreSQL SELECT of values: the functions it calls


@record
class DropObjects(Other):
    """DROP of objects other than relations and indexes: a schema, a database, a type, a function.
    `what` names the statement as for `Other`; MySQL's DROP SCHEMA is a DROP DATABASE."""

    object: str = ""  # schema | database | type | function | domain | extension | ...
    names: tuple[str, ...] = ()
    if_exists: bool = False
    cascade: bool = False


@record
class CreateRoutine(Other):
    """CREATE FUNCTION / PROCEDURE; `runs_sql`: its body changes tables or runs SQL it builds.
    `volatility`: a function's, as declared (`volatile` when it says none); "" for a procedure."""

    name: str = ""
    runs_sql: bool = False
    volatility: str = ""
    or_replace: bool = False


@record
class CreateObject(Other):
    """CREATE of an object the release calls by name and the model holds no more of than that
    name: a PostgreSQL extension, a MariaDB sequence. `object` as for `DropObjects`."""

    object: str = ""
    name: str = ""
    or_replace: bool = False


@record
class UnreadCreateTable(Other):
    """A CREATE TABLE the reader could not parse, whose head still names the table: the server
    creates it, though what it holds is unknown. It stands in for the statement in the replay
    only; the parse error is what is reported."""

    name: str = ""
    persistence: str = "permanent"
    if_not_exists: bool = False

    @property
    def table(self) -> str | None:
        return self.name or None


@record
class RenameType(Other):
    """ALTER TYPE name RENAME TO new_name: columns of the type keep it under its new name (a type
    created later under the old name is another type)."""

    name: str = ""  # as the columns' types spell it: `st`, `app.st`
    new_name: str = ""


@record
class AlterDomain(Other):
    """ALTER DOMAIN: `action` is "add_constraint" (ADD CONSTRAINT), "set_not_null", "validate" or
    "other"; `name` as the columns' types spell it (`posint`, `app.posint`)."""

    kind: ClassVar[str] = "alter_domain"
    name: str = ""
    action: str = "other"
    constraint: str | None = None  # the constraint's name, as written
    not_valid: bool = False  # ADD CONSTRAINT ... NOT VALID: rows already stored are not checked


@record
class AlterEnum(Other):
    """ALTER TYPE ... ADD VALUE: `name` as the columns' types spell it, `value` the label added."""

    kind: ClassVar[str] = "alter_enum"
    name: str = ""
    value: str = ""
    if_not_exists: bool = False


@record
class RenameEnumValue(Other):
    """ALTER TYPE ... RENAME VALUE: `name` as the columns' types spell it, the label `old` becomes
    `new` in place (rows holding it read the new label at once)."""

    name: str = ""
    old: str = ""
    new: str = ""


@record
class CreateSchema(Other):
    """PostgreSQL CREATE SCHEMA; `name` as the server stores it (the role's name when only
    AUTHORIZATION names it)."""

    name: str = ""


@record
class RenameSchema(Other):
    """PostgreSQL ALTER SCHEMA name RENAME TO new_name: every object in it changes its qualified name."""

    name: str = ""
    new_name: str = ""


@record
class CreateEnum(Other):
    """CREATE TYPE ... AS ENUM; `name` as the columns' types spell it, and its labels in order."""

    name: str = ""
    labels: tuple[str, ...] = ()


@record
class CreateDomain(Other):
    """CREATE DOMAIN; `name` as the columns' types spell it."""

    name: str = ""


@record
class DoBlock(Other):
    """A PostgreSQL DO block building no SQL at run time: the DDL in it is read as statements of
    their own. `writes`: its body may also write rows, which is not read (it names INSERT, UPDATE,
    DELETE, MERGE, COPY or TRUNCATE, or calls what may: PERFORM, CALL)."""

    writes: bool = True


@record
class RunsUnseen(Other):
    """A statement that runs SQL the reader cannot see: a CALL of a procedure whose body it has not
    read, a DO block whose EXECUTE builds its SQL at run time, MySQL EXECUTE of a statement prepared
    from a string it cannot see, PostgreSQL EXECUTE of a prepared statement. What it locks (and,
    unless `ddl` is False, what it changes) is unknown."""

    kind: ClassVar[str] = "runs_unseen"
    ddl: bool = True  # False: it can run only queries and DML (PostgreSQL EXECUTE of a prepared statement)


@record
class Begin(Op):
    """BEGIN or START TRANSACTION."""

    kind: ClassVar[str] = "begin"


@record
class Commit(Op):
    """COMMIT, or ROLLBACK."""

    kind: ClassVar[str] = "commit"
    rollback: bool = False


@record
class SetVariable(Op):
    """SET of a session setting or a variable."""

    kind: ClassVar[str] = "set"
    variable: str = ""
    value: str = ""
    local: bool = False
    reset: bool = False  # SET ... TO DEFAULT, RESET: back to the server's setting
    server: bool = False  # MySQL's SET GLOBAL: the setting sessions opened later take, not this one's


@record
class _Named(Op):
    """A statement on one named relation."""

    name: str = ""

    @property
    def table(self) -> str | None:
        return self.name or None


@record
class CreateTable(Op):
    """CREATE TABLE."""

    kind: ClassVar[str] = "create_table"
    model: Table = field(default_factory=lambda: Table(""))
    if_not_exists: bool = False
    references: tuple[str, ...] = ()  # tables its foreign keys reference
    # PostgreSQL: column names the statement gives twice (declared, or a query's output), refused
    repeated: tuple[str, ...] = ()

    @property
    def table(self) -> str | None:
        return self.model.name

    def relations(self) -> tuple[str, ...]:
        return (self.model.name, *self.references)


@record
class CreateTableAs(CreateTable):
    """CREATE TABLE ... AS SELECT (and SELECT ... INTO)."""

    kind: ClassVar[str] = "create_table_as"
    reads: tuple[str, ...] | None = ()  # None: could not tell
    with_data: bool = True

    def relations(self) -> tuple[str, ...]:
        return (self.model.name, *(self.reads or ()))


@record
class CreatePartition(CreateTable):
    """PostgreSQL CREATE TABLE ... PARTITION OF parent FOR VALUES ... (the bound is on the model)."""

    kind: ClassVar[str] = "create_partition"
    parent: str = ""

    def relations(self) -> tuple[str, ...]:
        return (self.model.name, self.parent, *self.references)


@record
class CreateTableLike(_Named):
    """CREATE TABLE ... (LIKE source)."""

    kind: ClassVar[str] = "create_table_like"
    source: str = ""
    copies_keys: bool = True
    persistence: str = "permanent"

    def relations(self) -> tuple[str, ...]:
        return (self.name, self.source)


@record
class AlterTable(_Named):
    """ALTER TABLE with its sub-commands."""

    kind: ClassVar[str] = "alter_table"
    actions: list[Action] = field(default_factory=list)
    only: bool = False
    if_exists: bool = False

    def relations(self) -> tuple[str, ...]:
        out = [self.name]
        for a in self.actions:
            if isinstance(a, PartitionAction):
                out.append(a.partition)
            elif isinstance(a, AddForeignKey):
                out.append(a.key.references)
            elif isinstance(a, AddColumn):
                out += a.references
            elif isinstance(a, Inherit):
                out.append(a.parent)
            elif isinstance(a, Rename) and a.op == "rename_table":
                out.append(a.new_name)
        return tuple(r for r in out if r)


@record
class RenameTable(Op):
    """RENAME TABLE (MySQL, MariaDB)."""

    kind: ClassVar[str] = "rename_table"
    pairs: tuple[tuple[str, str], ...] = ()

    @property
    def table(self) -> str | None:
        return self.pairs[0][0] if self.pairs else None

    def relations(self) -> tuple[str, ...]:
        return tuple(n for pair in self.pairs for n in pair)


@record
class _Tables(Op):
    """A statement on a list of tables."""

    tables: tuple[str, ...] = ()

    @property
    def table(self) -> str | None:
        return self.tables[0] if self.tables else None

    def relations(self) -> tuple[str, ...]:
        return self.tables


@record
class DropTable(_Tables):
    """DROP TABLE."""

    kind: ClassVar[str] = "drop_table"
    if_exists: bool = False
    cascade: bool = False


@record
class Truncate(_Tables):
    """TRUNCATE."""

    kind: ClassVar[str] = "truncate"
    only: bool = False
    cascade: bool = False


@record
class Vacuum(_Tables):
    """VACUUM."""

    kind: ClassVar[str] = "vacuum"
    full: bool = False


@record
class Analyze(_Tables):
    """ANALYZE."""

    kind: ClassVar[str] = "analyze"


@record
class OptimizeTable(_Tables):
    """OPTIMIZE TABLE (MySQL, MariaDB)."""

    kind: ClassVar[str] = "optimize_table"


@record
class Grant(_Tables):
    """GRANT / REVOKE of privileges on tables, views or sequences named one by one."""

    kind: ClassVar[str] = "grant"


@record
class LockTable(_Tables):
    """LOCK TABLE: PostgreSQL `mode` as written (ACCESS EXCLUSIVE ...); MySQL READ or WRITE per table."""

    kind: ClassVar[str] = "lock_table"
    mode: str = "ACCESS EXCLUSIVE"
    modes: tuple[tuple[str, str], ...] = ()
    only: bool = False


@record
class CreateIndex(Op):
    """CREATE INDEX."""

    kind: ClassVar[str] = "create_index"
    on: str = ""
    index: Index = field(default_factory=lambda: Index(None, ()))
    concurrently: bool = False
    only: bool = False
    if_not_exists: bool = False
    algorithm: str | None = None  # MySQL clauses
    lock: str | None = None
    or_replace: bool = False  # MariaDB: CREATE OR REPLACE INDEX drops an index of that name first

    @property
    def table(self) -> str | None:
        return self.on

    @property
    def target(self) -> str | None:
        return self.index.name


@record
class DropIndex(Op):
    """DROP INDEX."""

    kind: ClassVar[str] = "drop_index"
    names: tuple[str, ...] = ()
    on: str | None = None  # MySQL DROP INDEX i ON t
    concurrently: bool = False
    if_exists: bool = False
    cascade: bool = False
    algorithm: str | None = None
    lock: str | None = None

    @property
    def table(self) -> str | None:
        return self.on

    @property
    def target(self) -> str | None:
        return self.names[0] if self.names else None

    def relations(self) -> tuple[str, ...]:
        return tuple(r for r in (self.on, *self.names) if r)


@record
class AlterIndex(Op):
    """ALTER INDEX: `action` is rename | set_tablespace | attach_partition | set_storage_params |
    set_statistics | other."""

    kind: ClassVar[str] = "alter_index"
    name: str = ""
    action: str = "other"
    new_name: str | None = None
    partition: str | None = None  # ATTACH PARTITION: the partition's index
    if_exists: bool = False

    @property
    def target(self) -> str | None:
        return self.name

    def relations(self) -> tuple[str, ...]:
        return tuple(r for r in (self.name, self.partition) if r)


@record
class Reindex(Op):
    """REINDEX."""

    kind: ClassVar[str] = "reindex"
    object: str = "table"  # index | table | schema | database | system
    name: str | None = None
    concurrently: bool = False

    @property
    def table(self) -> str | None:
        return self.name if self.object == "table" else None

    @property
    def target(self) -> str | None:
        return self.name


@record
class CreateView(Op):
    """CREATE [MATERIALIZED] VIEW (kind create_view or create_matview)."""

    kind: ClassVar[str] = "create_view"
    name: str = ""
    materialized: bool = False
    reads: tuple[str, ...] | None = ()  # None: could not tell
    or_replace: bool = False
    with_data: bool = True
    repeated: tuple[str, ...] = ()  # PostgreSQL: output column names given twice (refused)

    @property
    def target(self) -> str | None:
        return self.name

    def relations(self) -> tuple[str, ...]:
        return (self.name, *(self.reads or ()))


@record
class CreateMatview(CreateView):
    """CREATE MATERIALIZED VIEW."""

    kind: ClassVar[str] = "create_matview"
    materialized: bool = True
    if_not_exists: bool = False


@record
class _Drop(Op):
    """DROP of named relations other than tables and indexes."""

    names: tuple[str, ...] = ()
    if_exists: bool = False
    cascade: bool = False

    @property
    def target(self) -> str | None:
        return self.names[0] if self.names else None

    def relations(self) -> tuple[str, ...]:
        return self.names


@record
class DropView(_Drop):
    """DROP VIEW or DROP MATERIALIZED VIEW."""

    kind: ClassVar[str] = "drop_view"
    materialized: bool = False


@record
class RefreshMatview(_Named):
    """REFRESH MATERIALIZED VIEW."""

    kind: ClassVar[str] = "refresh_matview"
    concurrently: bool = False
    with_data: bool = True

    @property
    def target(self) -> str | None:
        return self.name


@record
class Cluster(Op):
    """CLUSTER."""

    kind: ClassVar[str] = "cluster"
    name: str | None = None
    index: str | None = None

    @property
    def table(self) -> str | None:
        return self.name


@record
class _OnTable(Op):
    """A statement on one table about another object (a trigger, rule, policy, statistics)."""

    on: str | None = None
    name: str | None = None

    @property
    def table(self) -> str | None:
        return self.on

    @property
    def target(self) -> str | None:
        return self.name


@record
class CreateTrigger(_OnTable):
    """CREATE TRIGGER."""

    kind: ClassVar[str] = "create_trigger"


@record
class DropTrigger(_OnTable):
    """DROP TRIGGER."""

    kind: ClassVar[str] = "drop_trigger"
    if_exists: bool = False


@record
class CreateRule(_OnTable):
    """CREATE RULE."""

    kind: ClassVar[str] = "create_rule"


@record
class DropRule(_OnTable):
    """DROP RULE."""

    kind: ClassVar[str] = "drop_rule"
    if_exists: bool = False


@record
class CreatePolicy(_OnTable):
    """CREATE POLICY."""

    kind: ClassVar[str] = "create_policy"


@record
class AlterPolicy(_OnTable):
    """ALTER POLICY."""

    kind: ClassVar[str] = "alter_policy"


@record
class DropPolicy(_OnTable):
    """DROP POLICY."""

    kind: ClassVar[str] = "drop_policy"
    if_exists: bool = False


@record
class CreateStatistics(_OnTable):
    """CREATE STATISTICS."""

    kind: ClassVar[str] = "create_statistics"


@record
class Comment(_OnTable):
    """COMMENT ON."""

    kind: ClassVar[str] = "comment"
    object: str = "table"  # table | column | index | constraint | view | ...


@record
class AlterView(Op):
    """ALTER VIEW / ALTER MATERIALIZED VIEW (kind alter_view): RENAME (`new_name`), SET SCHEMA,
    ALTER COLUMN ... DEFAULT, OWNER TO, SET (...)."""

    kind: ClassVar[str] = "alter_view"
    name: str = ""
    materialized: bool = False
    new_name: str | None = None
    params: tuple[str, ...] = ()  # SET (...) / RESET (...): the storage parameters named

    @property
    def target(self) -> str | None:
        return self.name

    def relations(self) -> tuple[str, ...]:
        return tuple(r for r in (self.name, self.new_name) if r)


@record
class CreateSequence(Op):
    """CREATE SEQUENCE."""

    kind: ClassVar[str] = "create_sequence"
    name: str = ""
    owned_by: str | None = None  # the table of OWNED BY table.column

    @property
    def target(self) -> str | None:
        return self.name

    def relations(self) -> tuple[str, ...]:
        return tuple(r for r in (self.owned_by,) if r)


@record
class DropSequence(_Drop):
    """DROP SEQUENCE."""

    kind: ClassVar[str] = "drop_sequence"


@record
class AlterSequence(CreateSequence):
    """ALTER SEQUENCE."""

    kind: ClassVar[str] = "alter_sequence"
    as_type: str | None = None  # ALTER SEQUENCE ... AS type: its base type (int2, int4, int8)

    def relations(self) -> tuple[str, ...]:
        return tuple(r for r in (self.name, self.owned_by) if r)


@record
class Publication(Op):
    """CREATE PUBLICATION ... FOR TABLE and ALTER PUBLICATION ... ADD/SET/DROP TABLE: `tables` are
    the ones named (FOR ALL TABLES names none)."""

    kind: ClassVar[str] = "publication"
    name: str = ""
    tables: tuple[str, ...] = ()

    @property
    def target(self) -> str | None:
        return self.name

    def relations(self) -> tuple[str, ...]:
        return self.tables


@record
class _Dml(Op):
    """Data statements a migration runs. `into` is the table written ("" for SELECT); `reads` the
    other relations read; `every_row` that no WHERE limits the rows touched (a backfill)."""

    into: str = ""
    reads: tuple[str, ...] | None = ()  # None: could not tell
    every_row: bool = False
    # UPDATE and DELETE: the columns of `into` the WHERE clause may use (qualified by its name or
    # alias, or not qualified); whether an index can find the rows depends on them
    filtered_on: tuple[str, ...] = ()
    # of those, the ones the WHERE clause uses only in `col IS NULL` tests (an index finds such
    # rows only if its access method searches for NULLs)
    null_tested: tuple[str, ...] = ()
    # PostgreSQL: the columns every row holding NULL in which the WHERE matches (`c IS NULL`, or an
    # OR with it): an UPDATE setting the column reaches each such row, a DELETE takes them all away
    nulls_matched: tuple[str, ...] = ()
    # PostgreSQL UPDATE and DELETE: a column, then the constants no row holds there after it
    # (`SET status = 'paused' WHERE status = 'scheduled'`, `DELETE ... WHERE status = 'scheduled'`)
    clears: tuple[str, ...] = ()
    # PostgreSQL DELETE, and UPDATE setting the column to NULL: (column, relation, its column) when
    # the WHERE is only `NOT EXISTS (SELECT ... FROM relation WHERE relation.its_column =
    # row.column)`: after it every value left in the column is one the relation holds (orphans
    # removed before a foreign key is added)
    unorphaned: tuple[str, ...] = ()

    @property
    def table(self) -> str | None:
        return self.into or None

    def relations(self) -> tuple[str, ...]:
        return tuple(r for r in (self.into, *(self.reads or ())) if r)


@record
class Insert(_Dml):
    """INSERT."""

    kind: ClassVar[str] = "insert"
    columns: tuple[str, ...] = ()  # the columns given values (empty: all of them)
    repeated: tuple[str, ...] = ()  # PostgreSQL: columns given a value twice, once whole (refused)


@record
class Update(_Dml):
    """UPDATE."""

    kind: ClassVar[str] = "update"
    columns: tuple[str, ...] = ()  # the columns SET
    repeated: tuple[str, ...] = ()  # PostgreSQL: columns SET twice, once whole (refused)
    # PostgreSQL: the columns SET to a column of another relation, as (column, relation, its column):
    # `SET account_id = posts.account_id ... FROM posts`, or a scalar subquery of one relation's column
    sources: tuple[tuple[str, str, str], ...] = ()
    # the WHERE, when it only joins the row to a relation of FROM by equalities: (column, relation,
    # its column) for each `posts.id = comments.post_id`; () for any other WHERE
    joins: tuple[tuple[str, str, str], ...] = ()
    # PostgreSQL: a query of its FROM reads every row of the table it updates (a SELECT of it with no
    # WHERE): values derived from the whole table, a backfill's self-join
    reads_itself: bool = False
    # PostgreSQL: the SET columns given another column of the same row, as (column, its source):
    # `SET slug = id`, `SET id_text = id::text` (a cast to text or varchar keeps distinct values
    # distinct); only with no FROM, where the source can be no other relation's
    copies: tuple[tuple[str, str], ...] = ()
    # the SET columns given a constant, as (column, its text): what such a column can hold again
    set_to: tuple[tuple[str, str], ...] = ()
    nulled: tuple[str, ...] = ()  # the SET columns given NULL: no backfill of them
    # PostgreSQL: the SET columns whose value is NULL on some row whatever it holds (NULL, a CASE
    # with no ELSE, NULLIF), and those NULL just where a column of the row is, as (column, the
    # row's columns its value reads): no backfill either, unless those columns are NOT NULL
    may_be_null: tuple[str, ...] = ()
    null_with: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # PostgreSQL: SET columns given a scalar subquery that finds its row by `= column` of the row
    # updated, as (column, that name, the subquery's relations): NULL where the row's column is,
    # when none of those relations has a column of the name (which the name would mean instead)
    null_with_subquery: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    # PostgreSQL: the SET columns given a value of each row's own (a random UUID, a sequence's next)
    distinct_set: tuple[str, ...] = ()


@record
class Delete(_Dml):
    """DELETE."""

    kind: ClassVar[str] = "delete"


@record
class Merge(_Dml):
    """MERGE."""

    kind: ClassVar[str] = "merge"
    repeated: tuple[str, ...] = ()  # PostgreSQL: columns one WHEN clause sets or lists twice (refused)


@record
class CopyFrom(_Dml):
    """COPY table FROM ... (rows loaded into `into`)."""

    kind: ClassVar[str] = "copy"


@record
class Select(_Dml):
    """A query run for its rows, or, with `row_lock`, to lock them (FOR UPDATE / NO KEY UPDATE /
    SHARE / KEY SHARE) in the tables of `locked`."""

    kind: ClassVar[str] = "select"
    row_lock: str | None = None
    locked: tuple[str, ...] = ()


# ---------------------------------------------------------------- the envelope


@record
class Statement:
    """One statement of a SQL file, located, with the typed facts of what it does."""

    sql: str
    location: Location
    dialect: Dialect
    op: Op = field(default_factory=Other)
    end_line: int = 0
    suppressed: frozenset[str] = frozenset()  # rule names/codes ignored on this statement
    suppressed_at: int = 0  # the line of the comment that ignores them
    annotations: frozenset[str] = frozenset()  # `-- schemacite: insert-heavy` ...
    embedded: bool = False  # DDL found inside another statement (a procedure CALLed, a DO block)
    foreign_key_checks: bool = True  # MySQL: off after SET foreign_key_checks = 0
    sql_mode: str | None = None  # MySQL: the sql_mode an earlier SET of the session chose (None: the server's)
    transaction: int | None = None  # the transaction it runs in (shared ids: one transaction); None: alone
    time_zone: str | None = None  # PostgreSQL: the TimeZone an earlier SET in the file chose ("" = default)
    unqualified: frozenset[str] = frozenset()  # PostgreSQL: keys of relations named without a schema
    # PostgreSQL: the names it writes longer than the server keeps, as (the name kept, as written)
    long_names: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        return self.op.kind

    @property
    def table(self) -> str | None:
        return self.op.table

    @property
    def target(self) -> str | None:
        return self.op.target

    @property
    def actions(self) -> list[Action]:
        return self.op.actions if isinstance(self.op, AlterTable) else []

    @property
    def if_exists(self) -> bool:
        return bool(getattr(self.op, "if_exists", False))

    @property
    def first_line(self) -> str:
        return self.sql.strip().splitlines()[0] if self.sql.strip() else ""

    def position(self, offset: int) -> tuple[int, int]:
        """The file's (line, column) of `sql[offset]`: the readers keep `sql` the file's own text
        from the statement's first character, with comments blanked and newlines kept."""
        before = self.sql[:offset]
        newlines = before.count("\n")
        if not newlines:
            return self.location.line, self.location.column + offset
        return self.location.line + newlines, offset - before.rfind("\n")


# PostgreSQL statements that cannot run inside a transaction block (named by Other.what)
_OWN_TRANSACTION_OTHERS = {
    "CREATEDB": "CREATE DATABASE",
    "DROPDB": "DROP DATABASE",
    "CREATE TABLE SPACE": "CREATE TABLESPACE",
    "DROP TABLE SPACE": "DROP TABLESPACE",
    "ALTER SYSTEM": "ALTER SYSTEM",
}


def needs_own_transaction(op: Op) -> str | None:
    """What the statement is, when PostgreSQL refuses it inside a transaction block (`CREATE INDEX
    CONCURRENTLY`); None when it may run in one."""
    if isinstance(op, Vacuum):
        return "VACUUM"
    if isinstance(op, CreateIndex) and op.concurrently:
        return "CREATE INDEX CONCURRENTLY"
    if isinstance(op, DropIndex) and op.concurrently:
        return "DROP INDEX CONCURRENTLY"
    if isinstance(op, Reindex) and (op.concurrently or op.object in ("schema", "database", "system")):
        return "REINDEX CONCURRENTLY" if op.concurrently else f"REINDEX {op.object.upper()}"
    if isinstance(op, AlterTable) and any(a.op == "detach_partition_concurrently" for a in op.actions):
        return "DETACH PARTITION CONCURRENTLY"
    if isinstance(op, Other):
        return _OWN_TRANSACTION_OTHERS.get(op.what)
    return None


@record
class ParseError:
    """A statement or file that could not be analysed."""

    file: str
    line: int
    message: str
    column: int = 0

    def __str__(self) -> str:
        where = f"{self.line}:{self.column}" if self.column else str(self.line)
        return f"{self.file}:{where}: {self.message}"


# every class a parse-cache entry may hold (sources.cache rebuilds only these): the operations and
# ALTER TABLE sub-commands defined here, and the envelope
STORED: tuple[type, ...] = (
    *(c for c in list(globals().values()) if isinstance(c, type) and issubclass(c, (Op, Action))),
    Statement,
    ParseError,
)
