"""`schemacite evidence`: the catalogue, and the experiments behind it run on one's own server."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import time
from collections.abc import Callable

from schemacite.cli.common import resolve_project
from schemacite.errors import UsageError
from schemacite.evidence import load_catalogue, nearest
from schemacite.lint.plugins import plugin_manager, rule_classes
from schemacite.model.dialects import Dialect, Target


def cmd_evidence(args: argparse.Namespace) -> int:
    resolve_project(args, [], files=False)  # `evidence = [...]` in the config and the packs add records
    return {"list": _list, "show": _show, "reproduce": _reproduce}[args.action](args)


def _list(args: argparse.Namespace) -> int:
    records = sorted(load_catalogue().values(), key=lambda e: (e.kind, e.id))
    if args.format == "json":
        json.dump([e.as_dict() for e in records], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for e in records:
        where = ", ".join(sorted(e.applies_to))
        # 80 columns: the id and what it is on one line, the title wrapped under it
        head = f"{e.id}  ({e.kind}; {e.source}{' ' + e.year if e.year else ''}; {where})"
        print(textwrap.fill(head, 80, subsequent_indent="    ", break_on_hyphens=False))
        print(textwrap.fill(e.title, 80, initial_indent="    ", subsequent_indent="    "))
    print(f"\n{len(records)} record(s); `schemacite evidence show ID` prints one in full.")
    return 0


def _show(args: argparse.Namespace) -> int:
    catalogue = load_catalogue()
    if args.id not in catalogue:
        close = [i for i in catalogue if args.id.lower() in i]
        hint = f" (did you mean {', '.join(close[:3])}?)" if close else ""
        raise UsageError(f"no evidence record {args.id!r}{hint}")
    e = catalogue[args.id]
    if args.format == "json":
        json.dump(e.as_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(record_text(e))
    return 0


def record_text(e) -> str:
    lines = [f"{e.id}: {e.title}", f"  {e.kind}; {e.source}{', ' + e.published if e.published else ''}"]
    lines.append(
        f"  applies to: {', '.join(sorted(e.applies_to))}" + (f"; backs: {', '.join(e.rules)}" if e.rules else "")
    )
    if e.url:
        lines.append(f"  {e.url}")
    for key, value in e.setup.items():
        lines.append(f"  {key}: {value}")
    for f in e.figures:
        lines.append(f"  - {f['metric']}: {f['value']}" + (f" ({f['note']})" if f.get("note") else ""))
        if f.get("quote"):
            lines.append(f"      source: “{f['quote']}”")
    if e.shows:
        lines.append(f"  shows: {e.shows}")
    for q in e.quotes:
        lines.append(f"      source: “{q}”")
    if e.unquoted:
        lines.append(f"  not quoted: {e.unquoted}")
    if e.limits:
        lines.append(f"  limits: {e.limits}")
    return "\n".join(lines)


def _reproduce(args: argparse.Namespace) -> int:
    # start-up: only `evidence reproduce` needs the plugins and the server code
    from schemacite.live.experiments import ExperimentError, for_rule, run_experiment, toml_record
    from schemacite.live.scratch import signals_stop
    from schemacite.live.servers import AuditError, connect, mask, parse_dsn, server_dialect

    classes = rule_classes(plugin_manager(load_entrypoints=False))
    rule = next((c for c in classes if args.rule.lower() in (c.name, c.code.lower())), None)
    if rule is None:
        raise UsageError(f"unknown rule {args.rule!r} (see `schemacite rules`)")
    try:
        target = parse_dsn(args.dsn)
        probe = connect(target)
        dialect, server_target, version = server_dialect(probe, target.kind)
        probe.close()
    except AuditError as e:
        raise UsageError(str(e)) from None
    experiments = for_rule(rule.name, dialect)
    if not experiments:
        why = rule.why_unmeasured(dialect)
        raise UsageError(f"{rule.code} {rule.name} has no experiment on {dialect}: {why}")
    threads = (args.threads,) if args.threads else ()
    if args.repeat < 1:
        raise UsageError(f"--repeat must be at least 1, not {args.repeat}")
    for e in experiments:
        rows = args.rows or e.default_rows
        print(
            f"schemacite: {e.name} on {target.masked} ({version}) will write, inside a scratch area it drops at the "
            f"end: {e.plan(dialect, rows, threads or e.default_threads)}; {args.repeat} time(s), each in a scratch "
            "area of its own",
            file=sys.stderr,
            flush=True,
        )
    catalogue = load_catalogue()
    records = []
    with signals_stop():
        for e in experiments:
            try:
                outcome = run_experiment(
                    args.dsn,
                    e,
                    args.rows,
                    threads,
                    subscriber=args.subscriber_dsn,
                    command=_command(args, mask),
                    repeat=args.repeat,
                )
            except ExperimentError as err:
                raise UsageError(str(err)) from None
            published = _published(e, dialect, server_target, catalogue)
            _print_side_by_side(outcome, published)
            stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())  # ids stay unique in a file saved to again
            record = outcome.record(f"local:{e.name}-{stamp}", source="schemacite evidence reproduce")
            record["setup"]["server_url"] = target.masked
            records.append(record)
    if args.save:
        text = "\n".join(toml_record(r) for r in records)
        try:
            with open(args.save, "a", encoding="utf-8") as f:
                f.write(("\n" if f.tell() else "") + text)
        except OSError as e:
            raise UsageError(f"cannot write {args.save}: {e.strerror}") from None
        ids = ", ".join(r["id"] for r in records)
        print(
            f'schemacite: saved {ids} to {args.save}; add `evidence = ["{args.save}"]` under [tool.schemacite] '
            "and findings of these rules cite it, and lock estimates use its rates",
            file=sys.stderr,
        )
    return 0


def _command(args: argparse.Namespace, mask: Callable[[str], str]) -> str:
    """The command that reproduces this run, each server's password masked by `mask`."""
    parts = ["schemacite evidence reproduce", args.rule, "--dsn", mask(args.dsn)]
    if args.rows:
        parts += ["--rows", str(args.rows)]
    if args.threads:
        parts += ["--threads", str(args.threads)]
    if args.subscriber_dsn:
        parts += ["--subscriber-dsn", mask(args.subscriber_dsn)]
    parts += ["--repeat", str(args.repeat)]
    return " ".join(parts)


def _published(experiment, dialect: Dialect, target: Target, catalogue):
    """The catalogue's own run of the same experiment nearest the user's server."""
    runs = [
        e
        for e in catalogue.values()
        if ":" not in e.id and e.applies(dialect) and e.setup.get("tool", "").endswith(f" {experiment.name}")
    ]
    return nearest(runs, target) if runs else None


def _print_side_by_side(outcome, published) -> None:
    where = (
        f"published: {published.setup.get('server')}, {published.published} ({published.id})"
        if published
        else ("published: no run of this experiment on this server family")
    )
    print(f"{outcome.experiment.title}\n  here: {outcome.server}, {outcome.date}\n  {where}")
    theirs = {}
    if published is not None:
        for f in published.figures:
            single = " (one run, spread unknown)" if f.get("runs") == "1" else ""
            theirs[f.get("quantity") or f["metric"]] = f["value"] + single
    for f in outcome.figures:
        other = theirs.get(f.quantity or f.metric, "")
        print(f"  - {f.metric}\n      here: {f.text()}" + (f"\n      published: {other}" if other else ""))
    print()
