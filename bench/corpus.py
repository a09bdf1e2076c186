"""Run schemacite over the real-world corpus the way a pre-commit hook would see it.

Each migration is linted against the schema its predecessors built (history replay),
so lock findings are judged for tables that already exist. Prints, per set: files,
statements analysed, statements that could not be read, findings per rule, and with
--show N a sample of findings to check by hand.

    python bench/corpus.py [--corpus ../shared/corpus] [--show 5]
"""

from __future__ import annotations

import argparse
import collections
import random
import time
from pathlib import Path

from schemacite.lint.config import load_config
from schemacite.lint.engine import Linter
from schemacite.model import Schema
from schemacite.sources.files import expand
from schemacite.sources.read import read_sql_file
from schemacite.sources.replay import apply

SETS = {
    "kratos-mysql": "mysql",
    "mattermost-mysql": "mysql",
    "temporal-mysql": "mysql",
    "kratos-postgres": "postgres",
    "mattermost-postgres": "postgres",
    "temporal-postgres": "postgres",
}


def run_set(root: Path, dialect: str):
    config = load_config(None, {"dialect": dialect})
    linter = Linter(config)
    files, _ = expand([str(root)])
    schema = Schema(dialect)
    findings, errors, statements = [], [], 0
    for f in files:
        result = linter.lint([f], base=schema)
        findings += result.findings
        errors += result.errors
        statements += result.statements
        for stmt in read_sql_file(f, dialect).statements:
            apply(schema, stmt, new=False)
    return files, statements, findings, errors


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpus"))
    ap.add_argument("--show", type=int, default=0, help="print N random findings per set")
    args = ap.parse_args()
    rng = random.Random(1)
    for name, dialect in SETS.items():
        root = Path(args.corpus) / name
        if not root.exists():
            print(f"{name}: missing")
            continue
        t = time.perf_counter()
        files, statements, findings, errors = run_set(root, dialect)
        dt = time.perf_counter() - t
        per_rule = collections.Counter(f"{f.rule}/{f.severity}" for f in findings)
        print(
            f"{name}: {len(files)} files, {statements} statements, {len(errors)} unreadable, "
            f"{len(findings)} findings in {dt:.1f}s"
        )
        for rule, n in per_rule.most_common():
            print(f"    {n:4d}  {rule}")
        for e in errors[:5]:
            print(f"    error: {e}")
        for f in rng.sample(findings, min(args.show, len(findings))):
            print(f"    sample: {Path(f.location.file).name}:{f.location.line} {f.rule} [{f.severity}] {f.message}")


if __name__ == "__main__":
    main()
