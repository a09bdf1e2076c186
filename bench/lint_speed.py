"""How fast linting is, next to sqlglot parsing the same text.

Prints:
- statements per second for the largest corpus file, for schemacite (split, read, replay,
  all rules) and for sqlglot alone parsing the same file, and their ratio;
- the same over the whole corpus;
- the cold-start wall time of `schemacite lint` on one small migration (a new process each
  run, as a pre-commit hook pays it), median of several runs.

    python bench/lint_speed.py [--corpus ../shared/corpus] [--runs 15]
"""
from __future__ import annotations

import argparse
import logging
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sqlglot
from sqlglot.errors import ErrorLevel

from schemacite.config import load_config
from schemacite.engine import Linter

DIALECT_OF = {"mysql": "mysql", "postgres": "postgres"}


def best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def dialect_of(path: Path) -> str:
    return "mysql" if "mysql" in str(path) else "postgres"


def compare(files: list[Path], runs: int) -> tuple[int, float, float]:
    linters = {d: Linter(load_config(None, {"dialect": d})) for d in ("mysql", "postgres")}
    texts = [(f, f.read_text(), dialect_of(f)) for f in files]
    by_dialect = {d: [str(f) for f, _, fd in texts if fd == d] for d in linters}

    def ours() -> int:  # one run per dialect, as `schemacite lint DIR` does
        return sum(linters[d].lint(paths).statements for d, paths in by_dialect.items() if paths)

    statements = ours()

    def theirs():
        for _, text, d in texts:
            try:  # sqlglot gives up on some whole files (MySQL PREPARE, DELIMITER, COPY data)
                sqlglot.parse(text, read=d, error_level=ErrorLevel.IGNORE)
            except sqlglot.errors.SqlglotError:
                pass

    return statements, best(ours, runs), best(theirs, runs)


def cold_start(runs: int) -> float:
    exe = shutil.which("schemacite") or f"{sys.executable} -m schemacite.cli"
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp, "000042_add_orders.up.sql")
        f.write_text(
            "CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint NOT NULL, total bigint);\n"
            "CREATE INDEX orders_account ON orders (account_id);\n"
        )
        cmd = [*exe.split(), "lint", "--dialect", "postgres", str(f)]
        subprocess.run(cmd, capture_output=True)  # warm the file cache
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run(cmd, capture_output=True)
            times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpus"))
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    logging.getLogger("sqlglot").setLevel(logging.ERROR)  # its fallback warnings are not ours to print
    corpus = sorted(Path(args.corpus).rglob("*.sql"))
    largest = max(corpus, key=lambda p: p.stat().st_size)
    print(f"largest corpus file: {largest.relative_to(args.corpus)} ({largest.stat().st_size} bytes)")
    for label, files, runs in (("largest file", [largest], args.runs), ("whole corpus", corpus, 3)):
        n, ours, theirs = compare(files, runs)
        print(f"{label}: {n} statements; schemacite {ours * 1000:.1f} ms ({n / ours:,.0f} stmt/s), "
              f"sqlglot parse alone {theirs * 1000:.1f} ms ({n / theirs:,.0f} stmt/s); ratio {ours / theirs:.2f}x")
    print(f"cold start, one small file: {cold_start(args.runs) * 1000:.0f} ms (median of {args.runs})")


if __name__ == "__main__":
    main()
