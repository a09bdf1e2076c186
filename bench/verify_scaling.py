"""How `schemacite locks --verify` scales with the history it replays.

For each history size (50, 100, 400 tables by default) writes a history of that many tables
(columns, indexes, foreign keys) and a migration of 30 statements touching them, then runs
`schemacite locks --verify DSN --history HISTORY MIGRATION` against a real server and prints the
wall time and how many statements agreed. The scratch database it uses is created and dropped
by schemacite; nothing else on the server is touched. Figures are printed, never asserted.

    python bench/verify_scaling.py                                   # PostgreSQL on 127.0.0.1:5432
    python bench/verify_scaling.py --dsn mysql://root@127.0.0.1:3306/ --dialect mariadb
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def history(n: int, dialect: str) -> str:
    out = []
    for i in range(n):
        ref = f", parent_id bigint REFERENCES t{i - 1} (id)" if i and i % 5 == 0 else ""
        out.append(
            f"CREATE TABLE t{i} (id bigint NOT NULL PRIMARY KEY, name varchar(50), qty int, created_at timestamp{ref});"
        )
        out.append(f"CREATE INDEX t{i}_name ON t{i} (name);")
    return "\n".join(out) + "\n"


def migration(n: int, dialect: str) -> str:
    pick = [n // 30 * k for k in range(30)]
    pg = dialect == "postgres"
    forms = [
        lambda t: f"ALTER TABLE {t} ADD COLUMN note text;",
        lambda t: f"CREATE INDEX {t}_qty ON {t} (qty);",
        lambda t: (
            f"CREATE INDEX CONCURRENTLY {t}_created ON {t} (created_at);"
            if pg
            else f"ALTER TABLE {t} ADD INDEX {t}_created (created_at), ALGORITHM=INPLACE;"
        ),
        lambda t: (
            f"ALTER TABLE {t} ALTER COLUMN name TYPE varchar(100);"
            if pg
            else f"ALTER TABLE {t} MODIFY name varchar(100);"
        ),
        lambda t: (
            f"ALTER TABLE {t} ALTER COLUMN qty SET NOT NULL;" if pg else f"ALTER TABLE {t} MODIFY qty int NOT NULL;"
        ),
        lambda t: f"DROP INDEX {t}_name;" if pg else f"DROP INDEX {t}_name ON {t};",
    ]
    return "\n".join(forms[k % len(forms)](f"t{i}") for k, i in enumerate(pick)) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dsn", default="postgresql://postgres@127.0.0.1:5432/postgres")
    ap.add_argument("--dialect", default="postgres", choices=("postgres", "mysql", "mariadb"))
    ap.add_argument("--tables", type=int, nargs="+", default=[50, 100, 400])
    args = ap.parse_args()
    target = {"postgres": "postgres-15", "mariadb": "mariadb-10.11", "mysql": "mysql-8.0"}[args.dialect]
    print(f"schemacite locks --verify on {args.dsn.split('@')[-1]} ({target}), 30 statements per migration")
    print(f"{'tables':>7} {'history stmts':>13} {'wall s':>8} {'agree':>9}")
    with tempfile.TemporaryDirectory(prefix="schemacite-verify-") as tmp:
        for n in args.tables:
            h, m = os.path.join(tmp, f"history_{n}.sql"), os.path.join(tmp, f"migration_{n}.sql")
            with open(h, "w") as f:
                f.write(history(n, args.dialect))
            with open(m, "w") as f:
                f.write(migration(n, args.dialect))
            cmd = [
                sys.executable,
                "-m",
                "schemacite.cli",
                "locks",
                "--no-cache",
                "--dialect",
                args.dialect,
                "--target",
                target,
                "--history",
                h,
                "--verify",
                args.dsn,
                "--format",
                "json",
                m,
            ]
            start = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True)
            wall = time.perf_counter() - start
            try:
                rows = json.loads(proc.stdout)
                agreed = f"{sum(1 for r in rows if r.get('verified', {}).get('agrees'))}/{len(rows)}"
            except ValueError:
                agreed = f"exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}"
            print(f"{n:7d} {2 * n:13d} {wall:8.1f} {agreed:>9}")


if __name__ == "__main__":
    main()
