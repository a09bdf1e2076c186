"""The plugin manager: built-in rules and reporters are plugins like any third-party pack."""

from __future__ import annotations

import importlib
import os
import sys
from typing import TYPE_CHECKING

import pluggy

from schemacite.errors import closest
from schemacite.lint import hookspecs
from schemacite.model.record import record

if TYPE_CHECKING:
    from pathlib import Path

    from schemacite.lint.hookspecs import Reporter
    from schemacite.lint.rule import Rule

BUILTIN_PLUGINS = (
    "schemacite.rules.no_primary_key",
    "schemacite.rules.insert_heavy_indexes",
    "schemacite.rules.partition_key_not_in_pk",
    "schemacite.rules.access_exclusive_lock",
    "schemacite.rules.write_blocking_lock",
    "schemacite.rules.concurrently_in_transaction",
    "schemacite.rules.lock_held_during_long_work",
    "schemacite.rules.unused_index",
    "schemacite.rules.unused_ignore",
    "schemacite.rules.lock_timeout_missing",
    "schemacite.rules.prefer_text_over_char",
    "schemacite.rules.prefer_text_over_varchar",
    "schemacite.rules.prefer_timestamptz",
    "schemacite.rules.prefer_identity",
    "schemacite.rules.require_schema_qualified_names",
    "schemacite.rules.prefer_robust_statements",
    "schemacite.rules.prefer_jsonb",
    "schemacite.rules.drop_column",
    "schemacite.rules.drop_table",
    "schemacite.rules.rename_column",
    "schemacite.rules.rename_table",
    "schemacite.rules.drop_not_null",
    "schemacite.rules.type_change_visible_to_clients",
    "schemacite.rules.not_null_without_default",
    "schemacite.rules.constraint_over_existing_rows",
    "schemacite.rules.duplicate_column_assignment",
    "schemacite.rules.domain_constraint_scan",
    "schemacite.rules.enum_add_value",
    "schemacite.rules.identifier_too_long",
    "schemacite.rules.nested_transaction",
    "schemacite.rules.commit_in_runner_transaction",
    "schemacite.rules.transaction_not_committed",
    "schemacite.rules.drop_database_or_schema",
    "schemacite.rules.cascade_drop",
    "schemacite.rules.integer_key_runs_out",
    "schemacite.rules.foreign_key_narrower_than_key",
    "schemacite.rules.insert_needs_new_column",
    "schemacite.rules.rename_enum_value",
    "schemacite.rules.rename_schema",
    "schemacite.rules.drop_object",
    "schemacite.report.builtin",
)


@record(frozen=True)
class EntryPoint:
    """A `schemacite` entry point an installed package declares."""

    name: str
    value: str  # "module:attribute" or "module"

    def load(self) -> object:
        module, _, attr = self.value.partition(":")
        obj: object = importlib.import_module(module.strip())
        for part in filter(None, attr.strip().split(".")):
            obj = getattr(obj, part)
        return obj


def entry_points(group: str) -> list[EntryPoint]:
    """The `group` entry points of the installed distributions.

    Read straight from each distribution's entry_points.txt: importing importlib.metadata
    costs 30-45 ms of a pre-commit run's start-up budget, for a scan that takes 2 ms.
    The current directory is left out even when it is on sys.path (`python -m schemacite`):
    it is usually the repository being linted, and a `*.dist-info` folder committed there
    would otherwise name a module of the repository for us to import.
    """
    found: dict[str, EntryPoint] = {}
    header = f"[{group}]"
    here = os.path.realpath(os.getcwd())
    for folder in sys.path:
        if os.path.realpath(folder or ".") == here:
            continue
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            if header not in text:
                continue
            section = False
            for line in text.splitlines():
                line = line.strip()
                if line.startswith("["):
                    section = line == header
                elif section and "=" in line and not line.startswith(("#", ";")):
                    key, _, value = line.partition("=")
                    value = value.split("[", 1)[0].strip()  # drop extras
                    found.setdefault(key.strip(), EntryPoint(key.strip(), value))
    return list(found.values())


def plugin_manager(
    *, load_entrypoints: bool = True, builtins: tuple[str, ...] = BUILTIN_PLUGINS
) -> pluggy.PluginManager:
    pm = pluggy.PluginManager("schemacite")
    pm.add_hookspecs(hookspecs)
    for name in builtins:
        pm.register(importlib.import_module(name), name=name)
    if load_entrypoints and not os.environ.get("SCHEMACITE_DISABLE_PLUGIN_AUTOLOAD"):
        for ep in entry_points(group="schemacite"):
            if pm.get_plugin(ep.name) is not None or pm.is_blocked(ep.name):
                continue
            try:  # one broken pack must not take the others down
                pm.register(ep.load(), name=ep.name)
            except Exception as e:
                import logging  # only now: importing it costs a pre-commit run 4 ms

                logging.getLogger("schemacite").warning("schemacite: plugin %s could not be loaded: %s", ep.name, e)
    pm.check_pending()
    return pm


def rule_classes(pm: pluggy.PluginManager) -> list[type[Rule]]:
    classes: list[type[Rule]] = [cls for batch in pm.hook.schemacite_rules() for cls in batch]
    return sorted(classes, key=lambda c: c.code)


def evidence_paths(pm: pluggy.PluginManager) -> list[Path]:
    return [p for batch in pm.hook.schemacite_evidence() for p in batch]


def output_formats(pm: pluggy.PluginManager) -> dict[str, str]:
    """The output formats, each with what it writes: the one registry `--format`, its `--help` and
    the README's table are made from. The built-ins come first (their hook runs last), then each
    pack's in the order the packs loaded."""
    formats: dict[str, str] = {}
    for batch in reversed(pm.hook.schemacite_formats()):
        for name, what in batch.items():
            formats.setdefault(name, what)
    return formats


def reporter_class(pm: pluggy.PluginManager, name: str) -> type[Reporter]:
    """The reporter class for the output format `name`; a ValueError naming the formats there are
    when no plugin answers for it. A pack that answers `schemacite_reporter` without listing its
    format in `schemacite_formats` is still taken: the registry lists, the hook decides."""
    cls: type[Reporter] | None = pm.hook.schemacite_reporter(format=name)
    if cls is None:
        raise ValueError(unknown_format(pm, name))
    return cls


def unknown_format(pm: pluggy.PluginManager, name: str) -> str:
    known = list(output_formats(pm))
    close = closest(name, known)
    return f"unknown output format {name!r} (choose from {', '.join(known)})" + (
        f"; did you mean {close}?" if close else ""
    )
