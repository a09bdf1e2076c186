"""Two schemacite installs report the same: the check a speed change must pass.

Runs `schemacite lint --output-format json` of each install on the same inputs (the demo
fixtures, every corpus set, bench/vs_squawk.py's generated structure.sql and goose folder) and
compares the reports byte for byte, without the parse cache; then bench/corpus.py's report (its
timings left out) under each install's own Python. Prints one line an input and exits 1 on the first
difference it shows.

    python bench/same_findings.py --before /tmp/before/bin/schemacite --after .venv/bin/schemacite
"""

from __future__ import annotations

import argparse
import difflib
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
    same("bench/corpus.py", corpus_report(args.before, args.corpus), corpus_report(args.after, args.corpus))


if __name__ == "__main__":
    main()
