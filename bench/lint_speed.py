"""How fast linting is, next to sqlglot parsing the same text.

Prints:
- statements per second for the largest corpus file, for schemacite (split, read, replay,
  all rules) and for sqlglot alone parsing the same file, and their ratio;
- the same over the whole corpus;
- the cold-start wall time of `schemacite lint` on one small migration (a new process each
  run, as a pre-commit hook pays it), median of several runs: one migration that creates a
  table (sqlglot is imported to read it) and one that only alters and indexes (it is not).
  Run it from a regular install (`pip install .`): an editable install adds an import hook
  that costs start-up time users do not pay.

    python bench/lint_speed.py [--corpus ../shared/corpus] [--runs 15]
"""

from __future__ import annotations

import argparse
import gc
import logging
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sqlglot
from sqlglot.errors import ErrorLevel

from schemacite.lint.config import load_config
from schemacite.lint.engine import Linter
from schemacite.sources.split import split_sql

DIALECT_OF = {"mysql": "mysql", "postgres": "postgres"}


def best_of_interleaved(fns, runs: int) -> list[float]:
    """Best time of each function, the functions taking turns run after run, so a slow
    spell of this shared machine hits all of them alike; garbage is collected before each."""
    times = [[] for _ in fns]
    for _ in range(runs):
        for fn, record in zip(fns, times):
            gc.collect()
            t = time.perf_counter()
            fn()
            record.append(time.perf_counter() - t)
    return [min(t) for t in times]


def dialect_of(path: Path) -> str:
    return "mysql" if "mysql" in str(path) else "postgres"


def compare(files: list[Path], runs: int) -> tuple[int, float, float, float]:
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

    # the same statements one by one, as sqlglot must take files it cannot split itself
    # (DELIMITER blocks, COPY data, PREPARE strings)
    chunks = [(c.text, d) for _, text, d in texts for c in split_sql(text, d).chunks]

    def theirs_per_statement():
        for text, d in chunks:
            try:
                sqlglot.parse_one(text, read=d, error_level=ErrorLevel.IGNORE)
            except sqlglot.errors.SqlglotError:
                pass

    return statements, *best_of_interleaved([ours, theirs, theirs_per_statement], runs)


SMALL_FILES = {
    "creates a table": "CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint NOT NULL, total bigint);\n"
    "CREATE INDEX orders_account ON orders (account_id);\n",
    "alters and indexes": "ALTER TABLE orders ADD COLUMN note text;\n"
    "CREATE INDEX CONCURRENTLY orders_note ON orders (note);\n",
}


def cold_start(sql: str, runs: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of one `schemacite lint` process.
    The CPU time shows what the run costs when a shared host makes wall times swing."""
    exe = shutil.which("schemacite") or f"{sys.executable} -m schemacite.cli"
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp, "000042_change.up.sql")
        f.write_text(sql)
        cmd = [*exe.split(), "lint", "--dialect", "postgres", "--no-cache", str(f)]  # a new file is never cached
        subprocess.run(cmd, capture_output=True)  # warm the file cache
        wall, cpu = [], []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run(cmd, capture_output=True)
            wall.append(time.perf_counter() - t)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpus"))
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    logging.getLogger("sqlglot").setLevel(logging.ERROR)  # its fallback warnings are not ours to print
    # first, while this process is still small and idle
    print(f"cold start ({shutil.which('schemacite') or 'python -m schemacite.cli'}), median of {args.runs}:")
    for label, sql in SMALL_FILES.items():
        wall, cpu = cold_start(sql, args.runs)
        print(f"  one small file that {label}: {wall * 1000:.0f} ms wall ({cpu * 1000:.0f} ms CPU)")
    corpus = sorted(Path(args.corpus).rglob("*.sql"))
    largest = max(corpus, key=lambda p: p.stat().st_size)
    print(f"largest corpus file: {largest.relative_to(args.corpus)} ({largest.stat().st_size} bytes)")
    for label, files, runs in (("largest file", [largest], args.runs), ("whole corpus", corpus, 7)):
        n, ours, whole, each = compare(files, runs)
        print(
            f"{label}: {n} statements; schemacite (split, read, replay, all rules) {ours * 1000:.1f} ms "
            f"({n / ours:,.0f} stmt/s)"
        )
        print(
            f"    sqlglot alone, whole files: {whole * 1000:.1f} ms, ratio {ours / whole:.2f}x; "
            f"statement by statement: {each * 1000:.1f} ms, ratio {ours / each:.2f}x"
        )


if __name__ == "__main__":
    main()
