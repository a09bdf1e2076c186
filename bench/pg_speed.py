"""How fast PostgreSQL linting is, as a user sees it: whole processes, side by side with squawk.

Prints medians of several runs (a new process each time, the commands of a section taking turns,
no parse cache unless a row says the cache is warm, as on a pre-commit run after the first):
- cold start: one small migration, next to `python -c pass` and to importing only the libraries
  schemacite cannot do without on this path (pluggy and pglast), the floor of any start-up;
- the PostgreSQL sets of the shared corpus (every migration of kratos, mattermost and temporal);
- a 1.6 MB pg_dump-style schema (bench/dump_scaling.py's generator).
Each row names the command; with `--squawk PATH` (e.g. a scratch venv with
`pip install squawk-cli==2.70.0`) squawk lints the same files, and `--baseline PATH` runs another
schemacite install (a `schemacite` executable) for a before/after figure. Run from a regular
install (`pip install .`): an editable install compiles nothing ahead and pays for it at start-up.

    python bench/pg_speed.py --squawk /tmp/sq/bin/squawk --baseline /tmp/old/bin/schemacite
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from dump_scaling import make_dump

# as a user's shell has it: this machine's sessions set PYTHONDONTWRITEBYTECODE, which keeps Python
# from writing the bytecode of what an editable install or a test imports
USERS_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

SETS = ("kratos-postgres", "mattermost-postgres", "temporal-postgres")
SMALL = "ALTER TABLE orders ADD COLUMN note text;\nCREATE INDEX CONCURRENTLY orders_note ON orders (note);\n"


def median_wall(cmd: list[str], runs: int, timeout: float, env: dict[str, str] | None = None) -> float | None:
    """Median wall seconds of `cmd` (None if one run takes longer than `timeout`)."""
    env = {**USERS_ENV, **(env or {})}
    subprocess.run(cmd, capture_output=True, timeout=timeout, env=env)  # warm the file (and parse) cache
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        try:
            subprocess.run(cmd, capture_output=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return None
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def medians_taking_turns(
    cmds: dict[str, list[str]], runs: int, envs: dict[str, dict[str, str]] | None = None, timeout: float | None = None
) -> dict[str, float | None]:
    """Median wall seconds of each command, the commands run in turn (one run of each, then the
    next round): a slow spell of this shared machine then falls on all of them alike, which
    matters for ratios of start-ups tens of milliseconds long and for before/after rows. `envs`:
    variables a command runs with; a command that takes longer than `timeout` is None."""
    envs = envs or {}
    times: dict[str, list[float] | None] = {label: [] for label in cmds}
    for label, cmd in cmds.items():  # warm the file (and parse) cache
        try:
            subprocess.run(cmd, capture_output=True, env={**USERS_ENV, **envs.get(label, {})}, timeout=timeout)
        except subprocess.TimeoutExpired:
            times[label] = None
    for _ in range(runs):
        for label, cmd in cmds.items():
            taken = times[label]
            if taken is None:
                continue
            t = time.perf_counter()
            try:
                subprocess.run(cmd, capture_output=True, env={**USERS_ENV, **envs.get(label, {})}, timeout=timeout)
            except subprocess.TimeoutExpired:
                times[label] = None
                continue
            taken.append(time.perf_counter() - t)
    return {label: statistics.median(v) if v else None for label, v in times.items()}


def row(label: str, seconds: float | None, against: float | None = None, what: str = "") -> None:
    text = "over the time limit" if seconds is None else f"{seconds * 1000:8.1f} ms"
    ratio = f"  ({seconds / against:.1f}x {what})" if seconds and against else ""
    print(f"  {label:<44} {text}{ratio}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpus"))
    ap.add_argument("--squawk", help="a squawk executable to run on the same files")
    ap.add_argument("--baseline", help="another schemacite executable (an earlier release)")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    ours = shutil.which("schemacite") or sys.exit("schemacite is not on PATH")
    python = sys.executable
    lints = [("schemacite", ours)] + ([("baseline schemacite", args.baseline)] if args.baseline else [])

    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp, "000042_orders_note.up.sql")
        small.write_text(SMALL)
        print(f"cold start, one small migration (median of {args.runs}, the commands taking turns):")
        starts = {
            "python -c pass": [python, "-c", "pass"],
            "python -c 'import pluggy, pglast'": [python, "-c", "import pluggy, pglast"],
            **{
                f"{label} lint": [exe, "lint", "--no-cache", "--dialect", "postgres", str(small)]
                for label, exe in lints
            },
        }
        started = medians_taking_turns(starts, args.runs)
        bare = started.pop("python -c pass")
        row("python -c pass", bare)
        for label, seconds in started.items():
            row(label, seconds, bare, "python -c pass")

        corpus = Path(args.corpus)
        folders = [str(corpus / s) for s in SETS if (corpus / s).is_dir()]
        files = sorted(str(p) for f in folders for p in Path(f).rglob("*.sql"))
        size = sum(os.path.getsize(f) for f in files)
        dump = Path(tmp, "pg_dump.sql")
        make_dump(str(dump), 1.6, "postgres")
        for title, paths, listed in (
            (f"PostgreSQL corpus: {len(files)} files, {size / 1000:.0f} kB", folders, files),
            (f"pg_dump-style schema, {dump.stat().st_size / 1e6:.1f} MB", [str(dump)], [str(dump)]),
        ):
            runs = max(3, args.runs // 3)
            print(f"{title} (median of {runs}, the lints taking turns):")
            cmds: dict[str, list[str]] = {}
            envs: dict[str, dict[str, str]] = {}
            for label, exe in lints:
                cmds[f"{label} lint"] = [exe, "lint", "--no-cache", "--dialect", "postgres", *paths]
                # a pre-commit run: the files were read on an earlier run
                cmds[f"{label} lint, parse cache warm"] = [exe, "lint", "--dialect", "postgres", *paths]
                envs[f"{label} lint, parse cache warm"] = {"SCHEMACITE_CACHE_DIR": str(Path(tmp, f"cache-{label}"))}
            got = medians_taking_turns(cmds, runs, envs, args.timeout)
            mine = got["schemacite lint"]
            for label, _ in lints:
                cold = got[f"{label} lint"]
                row(f"{label} lint", cold, mine if label != "schemacite" else None, "schemacite's time")
                row(
                    f"{label} lint, parse cache warm",
                    got[f"{label} lint, parse cache warm"],
                    cold,
                    "its time without the cache",
                )
            if args.squawk:
                theirs = median_wall([args.squawk, *listed], 1 if len(listed) == 1 else runs, args.timeout)
                row("squawk", theirs)
                if mine and theirs:
                    print(f"  {'schemacite / squawk':<44} {mine / theirs:8.2f}x")


if __name__ == "__main__":
    main()
