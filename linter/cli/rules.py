"""`schemacite rules`, `explain` (alias `rule`) and `plugins`."""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap

from schemacite.cli.common import EXIT_CLEAN, plugins, use_color
from schemacite.docs import explanation
from schemacite.errors import UsageError
from schemacite.evidence import load_catalogue
from schemacite.lint.plugins import BUILTIN_PLUGINS, rule_classes


def cmd_rules(args: argparse.Namespace) -> int:
    classes = rule_classes(plugins(args))
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
        print(json.dumps([_rule_json(c) for c in classes], indent=2))
        return EXIT_CLEAN
    width = max(len(c.name) for c in classes)
    for c in classes:
        dialects = "" if c.dialects >= {"mysql", "mariadb", "postgres"} else f" ({', '.join(sorted(c.dialects))} only)"
        status = "" if c.status == "stable" else f" [{c.status}]"
        head = f"{c.code}  {c.name:<{width}}  {str(c.default_severity):<7}  "
        summary = c.doc().splitlines()[0] + status + dialects
        # 80 columns: the summary wraps under itself
        print(textwrap.fill(summary, 80, initial_indent=head, subsequent_indent=" " * len(head)))
    return EXIT_CLEAN


def cmd_plugins(args: argparse.Namespace) -> int:
    """Each plugin loaded, built-in first, with the rules and output formats it adds: where a
    rule or a `--format` comes from, and whether a pack loaded at all."""
    pm = plugins(args)
    rules_of: dict[str, list[str]] = {}
    for impl in pm.hook.schemacite_rules.get_hookimpls():
        rules_of[impl.plugin_name] = sorted(f"{r.code} {r.name}" for r in impl.function())
    formats_of = {impl.plugin_name: list(impl.function()) for impl in pm.hook.schemacite_formats.get_hookimpls()}
    evidence_of = {impl.plugin_name: impl.function() for impl in pm.hook.schemacite_evidence.get_hookimpls()}
    for name, _ in pm.list_name_plugin():
        kind = "built-in" if name in BUILTIN_PLUGINS else "pack"
        print(f"{name} ({kind})")
        if rules_of.get(name):
            print(f"  {len(rules_of[name])} rule(s): {', '.join(rules_of[name])}")
        if formats_of.get(name):
            print(f"  output formats: {', '.join(formats_of[name])}")
        if evidence_of.get(name):
            print(f"  evidence files: {', '.join(str(p) for p in evidence_of[name])}")
    if getattr(args, "no_plugins", False):
        print("(packs not loaded: --no-plugins)")
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
    cls = find_rule(rule_classes(plugins(args)), args.rule)
    if args.format == "json":
        catalogue = load_catalogue()
        doc = _rule_json(cls)
        doc["explanation"] = cls.doc()
        doc["evidence"] = [catalogue[i].as_dict() if i in catalogue else {"id": i} for i in cls.evidence]
        print(json.dumps(doc, indent=2))
        return EXIT_CLEAN
    if use_color("auto", sys.stdout):
        # start-up: rich (tens of ms) loads only when there is something to draw
        from rich.console import Console
        from rich.markdown import Markdown

        # on a terminal, through a pager as git does (less quits when it fits, keeps colour)
        os.environ.setdefault("LESS", "FRX")
        console = Console(highlight=False)
        with console.pager(styles=True):
            console.print(Markdown(explanation(cls)))
        return EXIT_CLEAN
    print(reflowed(explanation(cls), int(os.environ.get("COLUMNS") or 80)))
    return EXIT_CLEAN


def reflowed(markdown: str, width: int) -> str:
    """Markdown as plain text: headings without their marks, prose wrapped to `width`, and
    fenced code (the SQL examples) kept line for line, as written, indented under the prose."""
    out: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            text = " ".join(p.strip() for p in paragraph).replace("**", "")
            bullet = text[:2] if text[:2] in ("- ", "* ") else ""
            out.append(textwrap.fill(text, width, subsequent_indent=" " * len(bullet), break_on_hyphens=False))
            paragraph.clear()

    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            flush()
            fenced = not fenced
        elif fenced:
            out.append("    " + line)
        elif line.startswith("#"):
            flush()
            out.append(textwrap.fill(line.lstrip("#").strip(), width, break_on_hyphens=False))
        elif not line.strip() or line.lstrip().startswith(("- ", "* ")):
            flush()
            if line.strip():
                paragraph.append(line)
            else:
                out.append("")
        else:
            paragraph.append(line)
    flush()
    return "\n".join(line.rstrip() for line in out)
