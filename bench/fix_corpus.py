"""`lint --fix --unsafe-fixes` over a copy of the real-world corpus: how many findings had a fix,
how many the fixes removed, and whether every rewritten file still parses with the server's own
parser (PostgreSQL's, through pglast; the corpus's MySQL sets get no fix yet).

Each set is one migration project: its files are linted together, each judged after those before
it (the runner's order), fixed, and linted again.

    python bench/fix_corpus.py [--corpus ../shared/corpus]
"""

from __future__ import annotations

import argparse
import collections
import shutil
import tempfile
import time
from pathlib import Path

import pglast

from schemacite.lint.config import load_config
from schemacite.lint.engine import Linter
from schemacite.lint.fixing import fix_files
from schemacite.sources.files import expand

SETS = {"kratos-postgres": "postgres", "mattermost-postgres": "postgres", "temporal-postgres": "postgres"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpus"))
    args = parser.parse_args()
    print(f"{'set':<22} {'files':>5} {'fixable':>7} {'fixed':>5} {'before':>6} {'after':>5} {'unparsed':>8}  seconds")
    for name, dialect in SETS.items():
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / name
            shutil.copytree(Path(args.corpus) / name, root)
            files, _ = expand([str(root)])
            linter = Linter(load_config(None, {"dialect": dialect}))
            start = time.perf_counter()
            first = linter.lint(files)
            fixable = [f for f in first.findings if f.fix is not None and f.fix.edits]
            targeted = collections.Counter((f.location.file, f.code) for f in fixable)
            fixed, last = fix_files(lambda overlay, lt=linter, fs=files: lt.lint(fs, overlay=overlay), True, write=True)
            left = collections.Counter((f.location.file, f.code) for f in last.findings)
            # a finding a fix was meant to remove, still reported on that file after the fixes
            remaining = sum(min(n, left[key]) for key, n in targeted.items())
            unparsed = []
            for path in fixed.changed():
                if path.endswith(".sql"):
                    try:
                        pglast.parser.parse_sql(Path(path).read_text())
                    except pglast.parser.ParseError as e:
                        unparsed.append(f"{path}: {e}")
            seconds = time.perf_counter() - start
            print(
                f"{name:<22} {len(files):>5} {len(fixable):>7} {fixed.applied:>5} "
                f"{len(targeted):>6} {remaining:>5} {len(unparsed):>8}  {seconds:.1f}"
            )
            kinds = collections.Counter(f"{f.code} {f.fix.applicability}" for f in first.findings if f.fix)
            print("  fixes by rule:", ", ".join(f"{k}: {n}" for k, n in sorted(kinds.items())))
            unfixed = collections.Counter(f.code for f in first.findings if f.fix is None)
            print("  findings with no fix:", ", ".join(f"{k}: {n}" for k, n in sorted(unfixed.items())))
            for line in unparsed:
                print("  unparsed:", line)


if __name__ == "__main__":
    main()
