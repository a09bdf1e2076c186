"""The plugin manager: built-in rules and reporters are plugins like any third-party pack."""

from __future__ import annotations

import importlib
import os
import sys
from typing import TYPE_CHECKING

import pluggy

from schemacite.errors import closest
from schemacite.lint import hookspecs
from schemacite.lint.rule import LazyRule
from schemacite.model.record import record

if TYPE_CHECKING:
    from pathlib import Path

    from schemacite.lint.hookspecs import Reporter
    from schemacite.lint.rule import Rule

# the built-in rules are one plugin (their package lists them, each imported when a run chooses
# it); the built-in output formats another
BUILTIN_PLUGINS = ("schemacite.rules", "schemacite.report.builtin")


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


def rule_entries(pm: pluggy.PluginManager) -> list[type[Rule] | LazyRule]:
    """Every rule the plugins list, by code, as they list it: a class, or a LazyRule not yet
    imported. Choosing rules reads only their metadata, which both carry."""
    entries: list[type[Rule] | LazyRule] = [entry for batch in pm.hook.schemacite_rules() for entry in batch]
    return sorted(entries, key=lambda c: c.code)


def loaded(entry: type[Rule] | LazyRule) -> type[Rule]:
    return entry.load() if isinstance(entry, LazyRule) else entry


def rule_classes(pm: pluggy.PluginManager) -> list[type[Rule]]:
    """Every rule class, each imported (the docs, `rules` and `explain` describe them all)."""
    return [loaded(entry) for entry in rule_entries(pm)]


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
