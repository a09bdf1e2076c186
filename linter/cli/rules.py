"""`schemacite rules`, `explain` (alias `rule`) and `plugins`."""

from __future__ import annotations

import argparse
import os
import sys

from schemacite.cli.common import EXIT_CLEAN, _plugin_manager, use_color
from schemacite.docs import explanation
from schemacite.errors import UsageError


def cmd_rules(args: argparse.Namespace) -> int:
    from schemacite.lint.plugins import rule_classes

    classes = rule_classes(_plugin_manager(args))
    if args.selectors:
        chosen = []
        for typed in args.selectors:
            key = typed.lower()
            hits = [c for c in classes if key in (c.name, c.code.lower()) or c.code.lower().startswith(key)]
            if not hits:
                raise UsageError(f"unknown rule {typed!r} (see `schemacite rules`)")
            chosen += [c for c in hits if c not in chosen]
        classes = chosen
    if args.format == "json":
        import json

        print(json.dumps([_rule_json(c) for c in classes], indent=2))
        return EXIT_CLEAN
    width = max(len(c.name) for c in classes)
    for c in classes:
        dialects = ",".join(sorted(c.dialects))
        print(
            f"{c.code}  {c.name:<{width}}  {str(c.default_severity):<7}  {c.status:<7}  {dialects:<22}  {c.doc().splitlines()[0]}"
        )
    return EXIT_CLEAN


def _rule_json(cls) -> dict:
    return {
        "code": cls.code,
        "name": cls.name,
        "summary": cls.doc().splitlines()[0],
        "severity": str(cls.default_severity),
        "status": cls.status,
        "dialects": sorted(cls.dialects),
        "options": {k: {"default": o.default, "help": o.help} for k, o in cls.options.items()},
        "evidence": list(cls.cited()),
        "evidence_note": cls.unmeasured_notes() or None,
        "url": cls.url(),
    }


def find_rule(classes, typed: str):
    key = typed.lower()
    for c in classes:
        if key in (c.name, c.code.lower()):
            return c
    raise UsageError(f"unknown rule {typed!r} (see `schemacite rules`)")


def cmd_explain(args: argparse.Namespace) -> int:
    from schemacite.lint.plugins import rule_classes

    cls = find_rule(rule_classes(_plugin_manager(args)), args.rule)
    if args.format == "json":
        import json

        from schemacite.evidence import load_catalogue

        catalogue = load_catalogue()
        doc = _rule_json(cls)
        doc["explanation"] = cls.doc()
        doc["evidence"] = [catalogue[i].as_dict() if i in catalogue else {"id": i} for i in cls.evidence]
        print(json.dumps(doc, indent=2))
        return EXIT_CLEAN
    from rich.console import Console
    from rich.markdown import Markdown

    # Markdown rendered to the terminal's width (80 columns, without colour, when piped)
    color = use_color("auto", sys.stdout)
    if color:
        Console(highlight=False).print(Markdown(explanation(cls)))
        return EXIT_CLEAN
    console = Console(highlight=False, no_color=True, width=int(os.environ.get("COLUMNS") or 80))
    with console.capture() as captured:
        console.print(Markdown(explanation(cls)))
    print("\n".join(line.rstrip() for line in captured.get().splitlines()))
    return EXIT_CLEAN


def cmd_plugins(args: argparse.Namespace) -> int:
    pm = _plugin_manager(args)
    for name, plugin in pm.list_name_plugin():
        hooks = sorted(h.name for h in pm.get_hookcallers(plugin) or [])
        print(f"{name}  {', '.join(hooks)}")
    return EXIT_CLEAN
