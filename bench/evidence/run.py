"""Run every evidence experiment on throwaway servers and write the catalogue's own measurements.

    python bench/evidence/run.py                      # MariaDB 10.11 and PostgreSQL 12..18
    python bench/evidence/run.py --majors 15 --no-mariadb --only lock-durations --repeat 2 --rows 20000
    python bench/evidence/run.py --out linter/evidence/measured.toml   # the whole set, rewritten

It needs the checkout (it starts its servers with tests/servers.py) and `pip install '.[bench]'`.
Every experiment runs --repeat times (default 5), each run in a scratch area of its own; a
record keeps each figure's median, the lowest and highest run, and for a fitted rate its R².

Each server is started here (tests/servers.py, builds from tests/pg_builds.py) with durable
settings (fsync, full page writes, synchronous commit, doublewrite: the defaults a production
server keeps), so its configuration is known, and stopped afterwards. The logical replication
experiment starts a second server of the same major as the subscriber. Prints each figure as it
is measured; with --out, writes the records (`[[evidence]]`, kind measurement, source
schemacite) that the built-in catalogue loads.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import pg_builds  # noqa: E402
import servers  # noqa: E402
from schemacite.live.experiments import REPEAT, hardware, registry, run_experiment, toml_record  # noqa: E402

DURABLE_PG = {
    "fsync": "on",
    "synchronous_commit": "on",
    "full_page_writes": "on",
    "autovacuum": "on",
    "shared_buffers": "128MB",
    "wal_level": "logical",
    "max_wal_senders": "10",
    "max_replication_slots": "10",
}
DURABLE_MARIADB = {
    "innodb_buffer_pool_size": "128M",
    "innodb_log_file_size": "96M",
    "innodb_flush_log_at_trx_commit": "1",
    "innodb_doublewrite": "1",
    "performance_schema": "OFF",
}
MACHINE = "a small virtual machine: {hw}; client and server on the same machine"


def ident(dialect: str, version: tuple[int, ...], experiment: str, year: int) -> str:
    server = f"pg{version[0]}" if dialect == "postgres" else f"{dialect}{version[0]}{version[1]}"
    return f"schemacite-{year}-{server}-{experiment}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--majors", type=int, nargs="*", default=list(pg_builds.MAJORS))
    ap.add_argument("--no-mariadb", action="store_true")
    ap.add_argument("--only", action="append", default=[], help="run only this experiment (repeatable)")
    ap.add_argument("--rows", type=int, help="rows per experiment (default: each experiment's own)")
    ap.add_argument("--repeat", type=int, default=REPEAT, help=f"runs of each experiment (default: {REPEAT})")
    ap.add_argument("--out", type=Path, help="write the records to this TOML file")
    args = ap.parse_args()
    experiments = registry()
    wanted = [e for e in experiments.values() if not args.only or e.name in args.only]
    machine = MACHINE.format(hw=hardware())
    year = datetime.date.today().year
    records: list[str] = []

    def run(dialect: str, version: tuple[int, ...], dsn: str, subscriber: str | None = None) -> None:
        for e in wanted:
            if dialect not in e.dialects or (e.needs_subscriber and subscriber is None):
                continue
            threads = e.default_threads
            command = f"python bench/evidence/run.py --only {e.name} --repeat {args.repeat}" + (
                f" --majors {version[0]} --no-mariadb" if dialect == "postgres" else " --majors"
            )
            print(f"== {e.name} on {dialect} {'.'.join(map(str, version))}", flush=True)
            started = time.perf_counter()
            outcome = run_experiment(
                dsn,
                e,
                args.rows,
                threads,
                subscriber=subscriber,
                command=command,
                machine=machine,
                repeat=args.repeat,
                progress=lambda n, _: print(f"   run {n} of {args.repeat} done", flush=True),
            )
            for f in outcome.figures:
                print(f"   {f.metric}: {f.text()}", flush=True)
            print(f"   ({time.perf_counter() - started:.0f} s)", flush=True)
            record = outcome.record(ident(dialect, version, e.name, year))
            record["setup"]["settings"] = ", ".join(
                f"{k}={v}" for k, v in (DURABLE_PG if dialect == "postgres" else DURABLE_MARIADB).items()
            )
            records.append(toml_record(record))

    if not args.no_mariadb:
        with servers.mariadb_server(DURABLE_MARIADB) as db:
            run("mariadb", db.version, db.dsn())
    for major in args.majors:
        bin_dir = pg_builds.bin_dir(major)
        with contextlib.ExitStack() as stack:
            pub = stack.enter_context(servers.postgres_server(DURABLE_PG, bin_dir=bin_dir))
            sub = None
            if any(e.needs_subscriber for e in wanted):
                sub = stack.enter_context(servers.postgres_server(DURABLE_PG, bin_dir=bin_dir))
            run("postgres", pub.version, pub.dsn(), sub.dsn() if sub else None)
    if args.out:
        header = (
            "# Measurements of schemacite's own, written by bench/evidence/run.py: every figure is the median of\n"
            f"# {args.repeat} runs, with the lowest and highest run, on\n# {machine}.\n\n"
        )
        args.out.write_text(header + "\n".join(records), encoding="utf-8")
        print(f"wrote {len(records)} record(s) to {args.out}")


if __name__ == "__main__":
    main()
