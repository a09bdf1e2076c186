"""Does a rehearsal's extrapolation hold? Predict from sizes up to N rows, then measure at 4N.

For each server (PostgreSQL 12..18 builds from tests/pg_builds.py, MariaDB 10.11), each repeat
rehearses one change at N/4, N/2, N and 4N rows (`rehearse(levels=...)`: each size in a scratch
database of its own, the probe running), fits each statement's line through the first three sizes
only (`fit.fit`, as `schemacite rehearse` does) and asks whether the time measured at 4N lies in
the range that line gives for 4N's bytes. The statements: CREATE INDEX, ADD COLUMN with a volatile
default (a rewrite: md5(random()), which PostgreSQL 12 has), SET NOT NULL (a scan), VALIDATE CONSTRAINT, a column type change; on MariaDB
ALGORITHM=COPY and an in-place index build. Servers keep their durable defaults (tests/servers.py's
settings with fsync and synchronous commit on, as bench/evidence/run.py starts them).

    python bench/rehearse_extrapolation.py --majors 15 --repeat 10 --rows 50000
    python bench/rehearse_extrapolation.py --speed           # the five-statement change up to 1,000,000 rows
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import pg_builds  # noqa: E402
import servers  # noqa: E402
from schemacite.live.rehearse import mariadb, postgres  # noqa: E402
from schemacite.live.rehearse.fit import fit  # noqa: E402
from schemacite.live.rehearse.plan import make_plan  # noqa: E402
from schemacite.live.rehearse.run import rehearse  # noqa: E402
from schemacite.model.dialects import Dialect  # noqa: E402

DURABLE_PG = {"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on", "shared_buffers": "128MB"}
DURABLE_MARIADB = {"innodb_buffer_pool_size": "128M", "innodb_flush_log_at_trx_commit": "1", "innodb_doublewrite": "1"}

PG_HISTORY = """\
CREATE TABLE accounts (id bigserial PRIMARY KEY, email text NOT NULL);
CREATE TABLE orders (id bigserial PRIMARY KEY, account_id bigint NOT NULL REFERENCES accounts (id),
    total_cents integer NOT NULL, note text, status text, created_at timestamptz NOT NULL DEFAULT now());
ALTER TABLE orders ADD CONSTRAINT orders_total_positive CHECK (total_cents >= 0) NOT VALID;
"""
PG_CHANGE = """\
CREATE INDEX orders_created ON orders (created_at);
ALTER TABLE orders ADD COLUMN token text DEFAULT md5(random()::text);
ALTER TABLE orders ALTER COLUMN status SET NOT NULL;
ALTER TABLE orders VALIDATE CONSTRAINT orders_total_positive;
ALTER TABLE orders ALTER COLUMN total_cents TYPE bigint;
"""
MARIA_HISTORY = """\
CREATE TABLE orders (id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, total_cents int NOT NULL,
    note varchar(100), created_at datetime NOT NULL) ENGINE=InnoDB;
"""
MARIA_CHANGE = """\
ALTER TABLE orders ADD INDEX orders_created (created_at), ALGORITHM=INPLACE, LOCK=NONE;
ALTER TABLE orders MODIFY total_cents bigint NOT NULL, ALGORITHM=COPY;
"""
MARIA_SPEED_CHANGE = """\
ALTER TABLE orders ADD INDEX orders_created (created_at), ALGORITHM=INPLACE, LOCK=NONE;
ALTER TABLE orders MODIFY total_cents bigint NOT NULL, ALGORITHM=COPY;
ALTER TABLE orders ADD COLUMN flag tinyint, ALGORITHM=INSTANT;
ALTER TABLE orders ADD INDEX orders_note (note), ALGORITHM=INPLACE, LOCK=NONE;
ALTER TABLE orders DROP INDEX orders_created;
"""


def _plan(folder: Path, dialect: Dialect, history: str, change: str):
    (folder / "001_history.sql").write_text(history)
    (folder / "002_change.sql").write_text(change)
    return make_plan(dialect, [str(folder / "002_change.sql")], [str(folder / "001_history.sql")])


def check(side, plan, rows: int, repeat: int, label: str) -> tuple[int, int]:
    """(inside the range, tried) over every statement and repeat; prints each statement's tally."""
    inside: dict[str, list[bool]] = {}
    for _ in range(repeat):
        done = rehearse(side, plan, max_rows=rows, production={}, levels=[rows // 4, rows // 2, rows, 4 * rows])
        for r in done.results:
            if len(r.sizes) < 4 or any(s.error for s in r.sizes):
                print(f"  {label} {r.statement.sql}: refused: {[s.error for s in r.sizes if s.error]}")
                continue
            small, big = r.sizes[:3], r.sizes[3]
            line = fit([(s.bytes, s.held_seconds) for s in small])
            key = " ".join(r.statement.sql.split())[:60]
            if line is None:
                continue
            low, expected, high = line.at(big.bytes)
            ok = low <= big.held_seconds <= high
            inside.setdefault(key, []).append(ok)
            print(
                f"  {label} {key:<60} predicted {low:.3f}-{high:.3f} s (expected {expected:.3f}), "
                f"measured {big.held_seconds:.3f} s {'inside' if ok else 'OUTSIDE'}",
                flush=True,
            )
    total = sum(len(v) for v in inside.values())
    hits = sum(sum(v) for v in inside.values())
    for key, v in inside.items():
        print(f"{label} {key:<60} {sum(v)}/{len(v)} inside")
    return hits, total


def speed(side, plan) -> None:
    """The five-statement change rehearsed up to 1,000,000 rows: the time of each size."""
    started = time.perf_counter()
    done = rehearse(side, plan, max_rows=1_000_000, production={"orders": (10_000_000, None)}, progress=print)
    for level, seconds in zip(done.levels, done.seconds):
        print(f"  {level:>9,} rows: {seconds:6.1f} s")
    print(f"  in all: {time.perf_counter() - started:.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--majors", default="12,13,14,15,16,17,18")
    ap.add_argument("--no-mariadb", action="store_true")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--rows", type=int, default=50_000, help="N: the largest size the line is fitted on")
    ap.add_argument("--speed", action="store_true", help="time the five-statement change up to 1,000,000 rows")
    args = ap.parse_args()
    totals = [0, 0]
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        folder = Path(tmp)
        majors = [int(m) for m in args.majors.split(",") if m] if not args.speed else [15]
        for major in majors:
            server = stack.enter_context(servers.postgres_server(DURABLE_PG, bin_dir=pg_builds.bin_dir(major)))
            side = postgres.Side(server.dsn(server.create_database("rehearsal")))
            plan = _plan(folder, Dialect.POSTGRES, PG_HISTORY, PG_CHANGE)
            if args.speed:
                print(f"PostgreSQL {major}: the five-statement change")
                speed(side, plan)
                continue
            hits, total = check(side, plan, args.rows, args.repeat, f"pg{major}")
            print(f"PostgreSQL {major}: {hits}/{total} inside")
            totals[0] += hits
            totals[1] += total
        if not args.no_mariadb:
            server = stack.enter_context(servers.mariadb_server(DURABLE_MARIADB))
            side = mariadb.Side(server.dsn(server.create_database("rehearsal")))
            if args.speed:
                print("MariaDB: the five-statement change")
                speed(side, _plan(folder, Dialect.MARIADB, MARIA_HISTORY, MARIA_SPEED_CHANGE))
                return
            plan = _plan(folder, Dialect.MARIADB, MARIA_HISTORY, MARIA_CHANGE)
            hits, total = check(side, plan, args.rows, args.repeat, "mariadb")
            print(f"MariaDB: {hits}/{total} inside")
            totals[0] += hits
            totals[1] += total
    print(f"all: {totals[0]}/{totals[1]} inside the predicted range")


if __name__ == "__main__":
    main()
