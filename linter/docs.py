"""Write (or check) the generated documentation: docs/rules/<name>.md from the rules themselves,
docs/locks/<dialect>.md from the lock tables.

    python -m schemacite.docs           # regenerate
    python -m schemacite.docs --check   # exit 1 when a page is missing or stale

A rule's page is its docstring followed by the evidence it cites, exactly what
`schemacite explain NAME` prints; a lock page is the whole table with the versions each row
holds for and was measured on. Documentation cannot drift from the code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pages() -> dict[str, str]:
    """Generated pages by path under docs/: rules/<name>.md and locks/<dialect>.md."""
    # start-up: loaded only when this runs, not by every import of this module
    from schemacite.lint.plugins import plugin_manager, rule_classes
    from schemacite.locks.pages import PAGES

    out = {
        f"rules/{cls.name}.md": explanation(cls) + "\n" for cls in rule_classes(plugin_manager(load_entrypoints=False))
    }
    out.update({f"locks/{name}": render() for name, render in PAGES.items()})
    return out


def stale(folder: Path) -> list[str]:
    """Pages under `folder` (docs/) that are missing, differ, or belong to no rule or lock table."""
    wanted = pages()
    found = {str(p.relative_to(folder)) for sub in ("rules", "locks") for p in (folder / sub).glob("*.md")}
    out = [
        name for name, text in wanted.items() if not (folder / name).is_file() or (folder / name).read_text() != text
    ]
    return out + sorted(found - set(wanted))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m schemacite.docs")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--out", type=Path, default=ROOT / "docs", help="the docs folder (default: the repository's)")
    args = ap.parse_args(argv)
    if args.check:
        bad = stale(args.out)
        for name in bad:
            print(f"{args.out / name}: out of date (run python -m schemacite.docs)", file=sys.stderr)
        return 1 if bad else 0
    for name, text in pages().items():
        (args.out / name).parent.mkdir(parents=True, exist_ok=True)
        (args.out / name).write_text(text)
    for extra in stale(args.out):
        (args.out / extra).unlink()
    return 0


def explanation(cls) -> str:
    """The rule's documentation followed by the full evidence it cites."""
    # start-up: the evidence catalogue loads only when something cites it
    from schemacite.evidence import load_catalogue

    catalogue = load_catalogue()
    lines = [f"# {cls.code} {cls.name}", "", cls.doc(), "", "## Evidence", ""]
    for eid in cls.cited():
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
                f"- {fig.get('metric')}: **{fig.get('value')}**"
                + (f" ({fig['note']})" if fig.get("note") else "")
                + (f"; source: “{fig['quote']}”" if fig.get("quote") else "")
            )
        if e.shows:
            lines.append(f"Shows: {e.shows}" + "".join(f" Source: “{q}”" for q in e.quotes))
        if e.unquoted:
            lines.append(f"Not quoted: {e.unquoted}")
        if e.limits:
            lines.append(f"Limits: {e.limits}")
        lines.append("")
    for dialect, note in cls.unmeasured_notes().items():
        lines.append(f"No measurement on {dialect}: {note}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
