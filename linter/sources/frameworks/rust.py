"""Rust migration runners: Diesel (diesel_migrations) and sqlx (sqlx-core's migrate)."""

from __future__ import annotations

import os
import re

from schemacite.model.fixes import Edit
from schemacite.sources.files import nearest, side_file
from schemacite.sources.frameworks.base import Framework, Unit, _stem, side_file_edit
from schemacite.sources.patterns import Pattern

# ---------------------------------------------------------------- Diesel

DIESEL_FOLDER = Pattern(r"^(\d[\d-]*)_[^/\\]+$")


def _folder(path: str) -> str:
    return os.path.basename(os.path.dirname(os.path.abspath(path)))


class Diesel(Framework):
    """`migrations/<version>_<name>/up.sql` runs, `down.sql` does not. Versions are the folder
    name before its first `_`, dashes removed, compared as text: `2019-05-01-000000_x` runs after
    `20190401000000_y`. Each migration runs in one transaction unless the folder's
    `metadata.toml` says `run_in_transaction = false`; the file is then sent as one query."""

    def deployed(self, path: str) -> bool:
        return os.path.basename(path) == "up.sql" and bool(DIESEL_FOLDER.match(_folder(path)))

    def order(self, files: list[str]) -> list[str]:
        def key(f: str) -> tuple:
            folder = _folder(f)
            if not DIESEL_FOLDER.match(folder):
                return (1, "", f)
            return (0, folder.split("_", 1)[0].replace("-", ""), f)

        return sorted(files, key=key)

    def opt_out_edit(self, path: str, unit: Unit, text: str) -> Edit | None:
        return side_file_edit(path, "metadata.toml", self.opt_out)

    def units(self, path: str, text: str) -> list[Unit]:
        name = _folder(path)
        if not self.deployed(path):
            return [Unit(f"{name}/{os.path.basename(path)}", deploy=False)]
        metadata = side_file(os.path.join(os.path.dirname(path), "metadata.toml"))
        import tomllib  # here, not at the top: only Diesel folders need it, and every run imports this module

        try:
            settings = tomllib.loads(metadata) if metadata else {}
        except tomllib.TOMLDecodeError:
            settings = {}  # Diesel reads a metadata.toml it cannot parse as the default
        if settings.get("run_in_transaction") is False:
            why = "Diesel sends up.sql as one query (metadata.toml: run_in_transaction = false)"
            return [Unit(name, transaction="implicit", why=why)]
        return [Unit(name, transaction="unit", why=self.why)]


# ---------------------------------------------------------------- sqlx

SQLX_NAME = Pattern(r"^(\d+)_.+?(\.up|\.down)?\.sql$", re.I)
SQLX_NO_TRANSACTION = "-- no-transaction"
_CARGO_SQLX = Pattern(r"^\s*(?:sqlx|sqlx-cli)\s*(?:=|\.)|^\s*\[(?:\w+-)?dependencies\.sqlx\]", re.M)


class Sqlx(Framework):
    """`<version>_<name>.sql`, or `.up.sql` with a `.down.sql` that does not run, in the order of
    the integer versions. Each migration runs in one transaction unless the file starts with
    `-- no-transaction`; it is then sent as one query."""

    def deployed(self, path: str) -> bool:
        m = SQLX_NAME.match(os.path.basename(path))
        return bool(m) and (m.group(2) or "").lower() != ".down"

    def order(self, files: list[str]) -> list[str]:
        def key(f: str) -> tuple:
            m = SQLX_NAME.match(os.path.basename(f))
            return (0, int(m.group(1)), f) if m else (1, 0, f)

        return sorted(files, key=key)

    def units(self, path: str, text: str) -> list[Unit]:
        name = _stem(path)
        if not self.deployed(path):
            return [Unit(name, deploy=False)]
        if text.startswith(SQLX_NO_TRANSACTION):
            return [Unit(name, transaction="implicit", why="sqlx sends a -- no-transaction migration as one query")]
        return [Unit(name, transaction="unit", why=self.why)]


def cargo_using_sqlx(path: str) -> str | None:
    """The nearest Cargo.toml above `path` when it depends on sqlx."""
    found = nearest(path, "Cargo.toml")
    text = side_file(found) if found else None
    return found if text and _CARGO_SQLX.search(text) else None


DIESEL = Diesel(
    "diesel",
    "Diesel",
    "https://github.com/diesel-rs/diesel/blob/master/diesel_migrations/src/file_based_migrations.rs",
    "unit",
    "Diesel runs each migration in one transaction",
    opt_out="run_in_transaction = false",
    opt_out_at="metadata.toml beside up.sql",
    opt_out_mode="implicit",
)
SQLX = Sqlx(
    "sqlx",
    "sqlx",
    "https://github.com/launchbadge/sqlx/blob/main/sqlx-core/src/migrate/source.rs",
    "unit",
    "sqlx runs each migration in one transaction",
    opt_out=SQLX_NO_TRANSACTION,
    opt_out_at="first line",
    opt_out_mode="implicit",
    after_failure_mysql="its row deleted from _sqlx_migrations first (sqlx records it as partially applied)",
)
