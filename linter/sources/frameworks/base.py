"""What a migration framework decides about the SQL files it runs: the shared shapes.

A framework reads a project's files and says which of them, and which parts of them, run on
deploy, in what order, and which statements share a transaction. Each deploy is a `Unit`: a
migration file, or part of one (a Liquibase changeset, a dbmate up block, an Alembic revision).
A unit's `transaction` says how the runner sends it:

- ``unit``: the runner wraps the unit in one transaction (goose, dbmate, Liquibase, Atlas);
- ``implicit``: the runner sends the unit as one multi-statement query, which PostgreSQL runs
  as one implicit transaction when it holds more than one statement (golang-migrate, Prisma,
  dbmate without a transaction);
- ``script``: the runner adds nothing; only the file's own BEGIN ... COMMIT make transactions
  (plain files, sqitch, Django's and Alembic's printed SQL);
- ``flyway``: one transaction, unless every statement is one PostgreSQL refuses in a
  transaction block (then none), and Flyway refuses a file that mixes both;
- ``run``: one transaction around every pending migration of the run (drizzle-orm's PostgreSQL
  migrator, node-pg-migrate): the change's files share it; each history file had its own.

A framework's `opt_out` is the text that makes the runner leave its transaction out, and
`opt_out_at` where it goes (empty when the runner has none), so a fix can write it;
`opt_out_edit` is that edit, and `opt_out_mode` the unit's mode once it is made (``script``: each
statement commits alone; ``implicit``: the file is still one query). `generated_from` names
the source a framework generates its SQL from (a fix then says what to change there), and
`new_migration` the runner's own command for a new, empty migration (named by a fix that adds one);
`after_failure` what the runner needs before a failed migration runs again (golang-migrate's
dirty version), `after_failure_mysql` the same where only MySQL and MariaDB leave it.

Sections that do not run on deploy (down, rollback, revert, verify) are units with
``deploy=False``: read for syntax, never replayed or linted.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from schemacite.model.fixes import Edit
from schemacite.model.record import record
from schemacite.model.statements import ParseError
from schemacite.sources.files import exists
from schemacite.sources.patterns import Pattern

if TYPE_CHECKING:
    from collections.abc import Callable


@record
class Unit:
    """One deploy, as the framework runs it: lines `first`..`last` of a file (`last` 0: to the end).
    A line belongs to the first of a file's units that holds it, so one deploy may span sections
    that others, listed before it, cut out (sql-migrate's up sections around its down sections)."""

    name: str
    first: int = 1
    last: int = 0
    deploy: bool = True
    transaction: str = "script"  # unit | implicit | script | flyway | run
    why: str = ""  # the runner's rule, for messages: "goose runs each migration in one transaction"

    def holds(self, line: int) -> bool:
        return line >= self.first and (not self.last or line <= self.last)


@record
class Framework:
    """A migration framework: how to recognise it, and what it does with a project's files."""

    name: str
    title: str
    docs: str
    transaction: str = "script"  # the default of its units
    why: str = ""
    marker: Pattern | None = None  # content that names the framework
    sign: str = ""  # that content, in words
    placeholders: bool = False  # ${name} placeholders are replaced before the SQL is run
    opt_out: str = ""  # what leaves the runner's transaction out: "-- +goose NO TRANSACTION"
    opt_out_at: str = ""  # where it goes: "anywhere in the file", "first line", "metadata.toml", ...
    opt_out_mode: str = "script"  # the unit's transaction mode once opted out
    generated_from: str = ""  # the code the SQL is generated from: "the Django migration (Python)"
    new_migration: str = ""  # the runner's command making an empty migration, for a fix that adds one
    # what running a migration again after it failed takes first, where the runner records the
    # failure (on every server, or only on MySQL and MariaDB, whose DDL commits as it goes)
    after_failure: str = ""
    after_failure_mysql: str = ""

    def opt_out_edit(self, path: str, unit: Unit, text: str) -> Edit | None:
        """The edit that leaves the runner's transaction out of `unit` of the file `path` whose
        text is `text`; None when the runner has no way to (or it is not a line of SQL text)."""
        if self.opt_out_at == "first line":
            return Edit.insert(path, 1, 1, self.opt_out + "\n")
        return None

    def own_migration(self) -> str:
        """Where one statement PostgreSQL refuses in a transaction block (CONCURRENTLY) goes when
        it cannot stay where it is, in the runner's words; empty when the runner has no way to
        run a statement outside its transaction."""
        return f"alone in a migration with {self.opt_out} ({self.opt_out_at})" if self.opt_out else ""

    def editable(self, path: str) -> bool:
        """Whether a fix may edit the file (a runner that hashes committed migrations refuses one
        changed after it was committed)."""
        return True

    def sent_together(self, text: Callable[[], str], line: int) -> bool:
        """Whether the statement on `line` goes to the server in one query with others (which
        PostgreSQL then runs as one implicit transaction), whatever the unit's transaction.
        `text` gives the file's text, read again only for a runner that needs it."""
        return False

    def next_migration(self, path: str, title: str) -> str | None:
        """The path of a new migration that runs right after `path`, named as the runner expects,
        with `title` in its name; None when the runner cannot place one there (another migration
        already follows, or its names do not allow one in between)."""
        return None

    def units(self, path: str, text: str) -> list[Unit]:
        """The deploys (and the sections that do not run on deploy) of one file."""
        return [Unit(_stem(path), transaction=self.transaction, why=self.why)]

    def order(self, files: list[str]) -> list[str]:
        """The files in the order the framework runs them."""
        return files

    def prepare(self, path: str, text: str) -> str:
        """The SQL as the runner sends it, same lines and columns: placeholders filled in, the
        framework's own statement ends made `;`."""
        return blank_placeholders(text) if self.placeholders else text

    def unread(self, path: str, text: str, errors: list[ParseError]) -> list[ParseError]:
        """The errors reading the file gave, as reported: a runner whose own syntax in the file the
        readers cannot see through names the file once rather than every statement."""
        return errors

    def deployed(self, path: str) -> bool:
        """Whether the file runs on deploy at all (down files, revert and verify scripts do not)."""
        return not path.lower().endswith(".down.sql")

    def base(self, files: list[str]) -> list[str]:
        """The files among `files` that build the schema the migrations start from but that no
        deploy runs (a base schema the runner loads on reset): replayed first, never linted."""
        return []

    def skipped(self, files: list[str], dialect: str) -> dict[str, str]:
        """The files no part of a run in `dialect` at all, not even read (another database's
        migration, one the runner replaces by another), each with why."""
        return {}


def append_to_line(path: str, text: str, line: int, words: str) -> Edit | None:
    """An edit appending ` words` to line `line` (1-based) of `text`."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    end = len(lines[line - 1].rstrip("\r")) + 1
    return Edit.insert(path, line, end, " " + words)


def side_file_edit(path: str, name: str, line: str) -> Edit | None:
    """A new file `name` beside `path` holding `line`; None when it exists (its settings are read
    as they are, and are not rewritten)."""
    side = os.path.join(os.path.dirname(path), name)
    return None if exists(side) else Edit.new_file(side, line + "\n")


def _stem(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-4] if name.lower().endswith(".sql") else name


# ${name} placeholders (Flyway, Liquibase, goose ENVSUB): replaced before the SQL runs, so the
# reader sees text of the same length that parses. A schema placeholder before a dot (`${schema}.t`)
# is blanked with its dot, leaving the bare table name.
_PLACEHOLDER = Pattern(r"\$\{[^}\n]{1,200}\}(\.)?")


def blank_placeholders(text: str) -> str:
    if "${" not in text:
        return text

    def fill(m: re.Match[str]) -> str:
        if m.group(1):
            return " " * len(m.group(0))
        return "p" + "_" * (len(m.group(0)) - 1)

    return _PLACEHOLDER.sub(fill, text)


def version_key(text: str) -> tuple:
    """Dotted or underscored numeric versions, compared part by part as numbers (`1.10` after `1.9`)."""
    parts = re.split(r"[._]", text)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts)
