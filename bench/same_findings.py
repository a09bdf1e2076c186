"""Two schemacite installs report the same: the check a speed change must pass.

Runs `schemacite lint --output-format json` of each install on the same inputs (the demo
fixtures, every corpus set, bench/vs_squawk.py's generated structure.sql and goose folder) and
compares the reports byte for byte, without the parse cache; then bench/corpus.py's report (its
timings left out) under each install's own Python; then, for each folder input, the `--after`
install's report on its newest file with the folder as `--history`, without the cache, with a cold
one (the history's state kept) and with a warm one (the state read back). Prints one line an input
and exits 1 on the first difference it shows.

    python bench/same_findings.py --before /tmp/before/bin/schemacite --after .venv/bin/schemacite
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from vs_squawk import make_goose, make_structure

REPO = Path(__file__).resolve().parents[1]


def report(exe: str, dialect: str, paths: list[str]) -> tuple[int, str]:
    cmd = [exe, "lint", "--no-cache", "--dialect", dialect, "--output-format", "json", *paths]
    done = subprocess.run(cmd, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def history_reports(exe: str, dialect: str, folder: str) -> list[tuple[int, str]]:
    """The newest file of `folder` after the others: without the cache, then twice with one."""
    newest = max(str(p) for p in Path(folder).rglob("*.sql"))
    cmd = [exe, "lint", "--dialect", dialect, "--output-format", "json", "--history", folder, newest]
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "SCHEMACITE_CACHE_DIR": cache}
        runs = [subprocess.run([*cmd, "--no-cache"], capture_output=True, text=True, env=env)]
        runs += [subprocess.run(cmd, capture_output=True, text=True, env=env) for _ in range(2)]
    return [(r.returncode, r.stdout + r.stderr) for r in runs]


def corpus_report(exe: str, corpus: str) -> tuple[int, str]:
    python = str(Path(exe).parent / "python")
    done = subprocess.run(
        [python, str(REPO / "bench/corpus.py"), "--corpus", corpus, "--show", "5"], capture_output=True, text=True
    )
    return done.returncode, re.sub(r" in [0-9.]+s$", "", done.stdout + done.stderr, flags=re.M)


def same(label: str, old: tuple[int, str], new: tuple[int, str]) -> None:
    if old != new:
        print(f"{label}: DIFFERENT (exit {old[0]} before, {new[0]} after)")
        diff = difflib.unified_diff(old[1].splitlines(), new[1].splitlines(), "before", "after", lineterm="")
        print("\n".join(list(diff)[:40]))
        sys.exit(1)
    print(f"{label}: same ({len(old[1])} bytes, exit {old[0]})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="the schemacite executable to compare with")
    ap.add_argument("--after", required=True, help="the schemacite executable under test")
    ap.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpus"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        make_structure(Path(tmp, "structure.sql"), 400)
        make_goose(Path(tmp, "goose"), 224)
        inputs = [
            ("demo postgres", "postgres", [str(REPO / "fixtures/demo/postgres")]),
            ("demo mysql", "mysql", [str(REPO / "fixtures/demo/mysql")]),
            ("structure.sql", "postgres", [str(Path(tmp, "structure.sql"))]),
            ("goose folder", "postgres", [str(Path(tmp, "goose"))]),
        ]
        for s in sorted(Path(args.corpus).iterdir()):
            if s.is_dir():
                inputs.append((s.name, "mysql" if s.name.endswith("mysql") else "postgres", [str(s)]))
        for label, dialect, paths in inputs:
            same(label, report(args.before, dialect, paths), report(args.after, dialect, paths))
        for label, dialect, paths in inputs:
            if Path(paths[0]).is_dir() and not label.startswith("demo"):
                uncached, cold, warm = history_reports(args.after, dialect, paths[0])
                same(f"{label}, newest after the rest: cold cache", uncached, cold)
                same(f"{label}, newest after the rest: warm cache", uncached, warm)
    same("bench/corpus.py", corpus_report(args.before, args.corpus), corpus_report(args.after, args.corpus))


if __name__ == "__main__":
    main()
