"""Write (or check) docs/rules/<name>.md from the rules themselves.

    python -m schemacite.docs           # regenerate
    python -m schemacite.docs --check   # exit 1 when a page is missing or stale

Each page is the rule's docstring followed by the evidence it cites, exactly what
`schemacite explain NAME` prints, so documentation cannot drift from the code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pages() -> dict[str, str]:
    from schemacite.lint.plugins import plugin_manager, rule_classes

    return {f"{cls.name}.md": explanation(cls) + "\n" for cls in rule_classes(plugin_manager(load_entrypoints=False))}


def stale(folder: Path) -> list[str]:
    """Pages that are missing, differ, or belong to no rule."""
    wanted = pages()
    found = {p.name for p in folder.glob("*.md")} if folder.is_dir() else set()
    out = [
        name for name, text in wanted.items() if not (folder / name).is_file() or (folder / name).read_text() != text
    ]
    return out + sorted(found - set(wanted))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m schemacite.docs")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "rules")
    args = ap.parse_args(argv)
    if args.check:
        bad = stale(args.out)
        for name in bad:
            print(f"{args.out / name}: out of date (run python -m schemacite.docs)", file=sys.stderr)
        return 1 if bad else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in pages().items():
        (args.out / name).write_text(text)
    for extra in stale(args.out):
        (args.out / extra).unlink()
    return 0


def explanation(cls) -> str:
    """The rule's documentation followed by the full evidence it cites."""
    from schemacite.evidence import load_catalogue

    catalogue = load_catalogue()
    lines = [f"# {cls.code} {cls.name}", "", cls.doc(), "", "## Evidence", ""]
    if not cls.evidence:
        lines.append(cls.evidence_note or "No measurement supports this rule.")
    for eid in cls.evidence:
        e = catalogue.get(eid)
        if e is None:
            lines.append(f"- `{eid}` (missing from the catalogue)")
            continue
        lines.append(f"### {e.title} (`{e.id}`)")
        lines.append(
            f"{e.kind}; {e.source}{', ' + e.published if e.published else ''}; applies to {', '.join(sorted(e.applies_to))}"
        )
        if e.url:
            lines.append(f"<{e.url}>")
        if e.setup:
            lines.append("Setup: " + "; ".join(f"{k}: {v}" for k, v in e.setup.items()))
        for fig in e.figures:
            lines.append(
                f"- {fig.get('metric')}: **{fig.get('value')}**" + (f" ({fig['note']})" if fig.get("note") else "")
            )
        if e.shows:
            lines.append(f"Shows: {e.shows}")
        if e.limits:
            lines.append(f"Limits: {e.limits}")
        lines.append("")
    if cls.evidence_note and cls.evidence:
        lines.append(f"Note: {cls.evidence_note}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
