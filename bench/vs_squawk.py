"""schemacite and squawk side by side on the same PostgreSQL files, as a user runs them.

Each figure is the median wall time of N whole processes (a new process each run, the tools taking
turns run after run so a slow spell of this shared machine hits both alike). schemacite runs
without its parse cache (`--no-cache`, a first run) and, in a second column, with a warm cache (a
pre-commit run after the first); squawk has no cache. Both write one line a finding (schemacite's
`concise`, squawk's `gcc` reporter: squawk's default report takes seconds on thousands of findings).
Inputs:
- one and five tiny migrations (the pre-commit case: start-up dominates);
- a GitLab-style `structure.sql` pg_dump (tables, sequences, defaults, constraints, indexes,
  foreign keys, trigger functions, triggers, comments), about 400 kB;
- a folder of goose migrations (about 224 files, 680 kB), linted as a folder: schemacite replays
  each file's predecessors as its history;
- the newest of those migrations linted after the others given as `--history` (about 5,400
  statements replayed first; squawk, which keeps no schema, reads the one file);
- the PostgreSQL sets of the shared corpus, each alone and all in one run.
squawk comes from PyPI or npm (`squawk-cli`); install it outside the repository, e.g.
`python -m venv /tmp/sq && /tmp/sq/bin/pip install squawk-cli`.

    python bench/vs_squawk.py --squawk /tmp/sq/bin/squawk [--baseline OLD/bin/schemacite] [--runs 11] [--keep DIR]
    python bench/vs_squawk.py --squawk ... --baseline ... --instructions   # valgrind's count, once each

Wall time on a shared machine moves by 10 % from one run to the next; `--instructions` counts the
instructions each process executes instead (valgrind's callgrind, one run each, about 50 times
slower), the same figure whatever else the machine is doing: the measure for a before/after
comparison of a few per cent.

Run it from a regular install (`pip install .` into a fresh venv): an editable install, or a venv
seeing another editable install through system site-packages, pays an import hook at start-up.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# as a user's shell has it: this machine's sessions set PYTHONDONTWRITEBYTECODE, which keeps Python
# from writing the bytecode of what an editable install or a test imports
USERS_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

SETS = ("kratos-postgres", "mattermost-postgres", "temporal-postgres")
TINY = (
    "ALTER TABLE orders ADD COLUMN note text;\nCREATE INDEX CONCURRENTLY orders_note ON orders (note);\n",
    "CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint NOT NULL, total bigint);\n",
    "ALTER TABLE orders ADD CONSTRAINT orders_total CHECK (total >= 0) NOT VALID;\n",
    "ALTER TABLE orders VALIDATE CONSTRAINT orders_total;\n",
    "CREATE UNIQUE INDEX CONCURRENTLY orders_account ON orders (account_id, id);\n",
)
WORDS = ["project", "merge_request", "issue", "user", "namespace", "pipeline", "build", "note", "deployment", "label"]
COLUMNS = [
    "bigint NOT NULL",
    "integer",
    "text",
    "character varying(255)",
    "timestamp with time zone NOT NULL",
    "timestamp without time zone",
    "boolean DEFAULT false NOT NULL",
    "smallint DEFAULT 0 NOT NULL",
    "jsonb DEFAULT '{}'::jsonb NOT NULL",
    "bytea",
    "text[] DEFAULT '{}'::text[]",
    "numeric(12,2)",
]


# ---------------------------------------------------------------- inputs


def _table(rng: random.Random, n: int) -> tuple[str, list[str]]:
    """A table named after GitLab's and its column names."""
    name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}s_{n}"
    cols = ["id"] + [f"{rng.choice(WORDS)}_{c}" for c in range(rng.randint(5, 14))]
    return name, cols


def make_structure(path: Path, kilobytes: int, seed: int = 20) -> None:
    """A pg_dump-style schema in the order pg_dump writes it: header, functions, tables with their
    sequences, defaults, constraints, indexes, triggers and foreign keys."""
    rng = random.Random(seed)
    head = [
        "SET statement_timeout = 0;\nSET lock_timeout = 0;\nSET client_encoding = 'UTF8';\n"
        "SET standard_conforming_strings = on;\nSELECT pg_catalog.set_config('search_path', '', false);\n"
        "SET check_function_bodies = false;\nSET client_min_messages = warning;\n\n"
        "CREATE SCHEMA gitlab_partitions_dynamic;\n\nCREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public;\n\n"
    ]
    tables, defaults, constraints, indexes, triggers, fks = [], [], [], [], [], []
    size, n, names = 0, 0, []
    while size < kilobytes * 1000:
        name, cols = _table(rng, n)
        body = ",\n".join(f"    {c} {rng.choice(COLUMNS) if c != 'id' else 'bigint NOT NULL'}" for c in cols)
        check = f",\n    CONSTRAINT check_{n:05x} CHECK ((char_length({cols[-1]}) <= 255))" if n % 3 == 0 else ""
        t = f"CREATE TABLE public.{name} (\n{body}{check}\n);\n\n"
        if n % 4 == 0:
            t += f"COMMENT ON TABLE public.{name} IS 'JiHu-specific table: {name}';\n\n"
        t += (
            f"CREATE SEQUENCE public.{name}_id_seq\n    START WITH 1\n    INCREMENT BY 1\n    NO MINVALUE\n"
            f"    NO MAXVALUE\n    CACHE 1;\n\nALTER SEQUENCE public.{name}_id_seq OWNED BY public.{name}.id;\n\n"
        )
        if n % 9 == 0:
            fn = f"trigger_{n:06x}"
            t = (
                f"CREATE FUNCTION public.{fn}() RETURNS trigger\n    LANGUAGE plpgsql\n    AS $$\nBEGIN\n"
                f"  IF NEW.{cols[1]} IS NULL THEN\n    NEW.{cols[1]} := OLD.{cols[1]};\n  END IF;\n"
                "  RETURN NEW;\nEND;\n$$;\n\n" + t
            )
            triggers.append(
                f"CREATE TRIGGER {fn} BEFORE INSERT OR UPDATE ON public.{name} FOR EACH ROW EXECUTE FUNCTION public.{fn}();\n\n"
            )
        tables.append(t)
        defaults.append(
            f"ALTER TABLE ONLY public.{name} ALTER COLUMN id SET DEFAULT nextval('public.{name}_id_seq'::regclass);\n\n"
        )
        constraints.append(f"ALTER TABLE ONLY public.{name}\n    ADD CONSTRAINT {name}_pkey PRIMARY KEY (id);\n\n")
        for k in range(rng.randint(1, 5)):
            unique = "UNIQUE " if k == 0 and n % 5 == 0 else ""
            where = f" WHERE ({cols[-1]} IS NOT NULL)" if k == 2 else ""
            indexes.append(
                f"CREATE {unique}INDEX index_{name}_on_{cols[k % len(cols)]}_{k} ON public.{name} "
                f"USING btree ({cols[k % len(cols)]}, id){where};\n\n"
            )
        if names and n % 2 == 0:
            other = rng.choice(names)
            fks.append(
                f"ALTER TABLE ONLY public.{name}\n    ADD CONSTRAINT fk_rails_{n:010x} FOREIGN KEY ({cols[1]}) "
                f"REFERENCES public.{other}(id) ON DELETE CASCADE;\n\n"
            )
        names.append(name)
        size += sum(len(x[-1]) for x in (tables, defaults, constraints, indexes, fks) if x)
        n += 1
    path.write_text("".join(head + tables + defaults + constraints + indexes + triggers + fks))


def make_goose(folder: Path, files: int, seed: int = 224) -> None:
    """goose migrations as a project grows them: tables, columns, backfills, indexes built
    concurrently (outside goose's transaction), foreign keys, functions between StatementBegin and
    StatementEnd, each with its Down section."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    tables: list[tuple[str, list[str]]] = []
    for i in range(1, files + 1):
        up: list[str] = []
        down: list[str] = []
        concurrently = False
        for step in range(4):  # a few changes a file, the first ones only creating tables
            n = i * 4 + step
            kind = n % 6 if len(tables) > 2 else 0
            concurrently = concurrently or kind == 2
            _step(rng, kind, n, tables, up, down)
        head = "-- +goose NO TRANSACTION\n" if concurrently else ""
        (folder / f"{i:05d}_step_{i}.sql").write_text(
            f"{head}-- +goose Up\n" + "\n".join(up) + "\n\n-- +goose Down\n" + "\n".join(reversed(down)) + "\n"
        )


def _step(rng: random.Random, kind: int, n: int, tables: list, up: list[str], down: list[str]) -> None:
    """One change of a goose migration: its Up statements and its Down statements."""
    if kind in (0, 3):
        name, cols = _table(rng, n)
        body = ",\n".join(f"    {c} {'bigserial PRIMARY KEY' if c == 'id' else rng.choice(COLUMNS)}" for c in cols)
        up.append(f"CREATE TABLE {name} (\n{body}\n);")
        up += [f"COMMENT ON COLUMN {name}.{c} IS 'the {c.replace('_', ' ')} of a {name}';" for c in cols[1:]]
        up += [f"CREATE INDEX idx_{name}_{c} ON {name} ({c});" for c in cols[1:4]]
        down.append(f"DROP TABLE {name};")
        tables.append((name, cols))
    elif kind == 1:
        name, cols = rng.choice(tables)
        col = f"extra_{n}"
        cols.append(col)
        up += [
            f"ALTER TABLE {name} ADD COLUMN {col} text;",
            f"UPDATE {name} SET {col} = '' WHERE {col} IS NULL;",
            f"ALTER TABLE {name} ALTER COLUMN {col} SET NOT NULL;",
        ]
        down.append(f"ALTER TABLE {name} DROP COLUMN {col};")
    elif kind == 2:
        name, cols = rng.choice(tables)
        up += [f"CREATE INDEX CONCURRENTLY idx_{name}_{c}_{n} ON {name} ({c}, id);" for c in cols[1:3]]
        down += [f"DROP INDEX CONCURRENTLY idx_{name}_{c}_{n};" for c in cols[1:3]]
    elif kind == 4:
        (name, cols), (other, _) = rng.choice(tables), rng.choice(tables)
        up += [
            f"ALTER TABLE {name} ADD CONSTRAINT fk_{name}_{n} FOREIGN KEY ({cols[1]}) REFERENCES {other} (id) NOT VALID;",
            f"ALTER TABLE {name} VALIDATE CONSTRAINT fk_{name}_{n};",
        ]
        down.append(f"ALTER TABLE {name} DROP CONSTRAINT fk_{name}_{n};")
    else:
        name, cols = rng.choice(tables)
        up.append(
            "-- +goose StatementBegin\n"
            f"CREATE OR REPLACE FUNCTION touch_{name}() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n"
            f"    NEW.{cols[1]} := coalesce(NEW.{cols[1]}, OLD.{cols[1]});\n    RETURN NEW;\nEND;\n$$;\n"
            "-- +goose StatementEnd"
        )
        up.append(
            f"CREATE TRIGGER touch_{name}_{n} BEFORE UPDATE ON {name} FOR EACH ROW EXECUTE FUNCTION touch_{name}();"
        )
        down += [f"DROP FUNCTION touch_{name}();", f"DROP TRIGGER touch_{name}_{n} ON {name};"]


# ---------------------------------------------------------------- timing


def medians(cmds: dict[str, list[str]], runs: int, env: dict[str, dict[str, str]]) -> dict[str, tuple[float, float]]:
    """Median wall seconds and median CPU seconds (user + system) of each command, the commands
    taking turns; one untimed run of each first warms the file cache (and a warm-cache command's
    parse cache). The CPU figure holds when other work on a shared machine makes wall times swing."""
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in cmds}
    for k, cmd in cmds.items():
        subprocess.run(cmd, capture_output=True, env={**USERS_ENV, **env.get(k, {})})
    for _ in range(runs):
        for k, cmd in cmds.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run(cmd, capture_output=True, env={**USERS_ENV, **env.get(k, {})})
            wall = time.perf_counter() - t
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            times[k].append((wall, cpu))
    return {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--squawk", required=True, help="a squawk executable")
    ap.add_argument("--schemacite", default=shutil.which("schemacite"), help="a schemacite executable")
    ap.add_argument("--baseline", help="another schemacite executable (before a change), run without the cache")
    ap.add_argument("--corpus", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpus"))
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--keep", help="write the generated inputs here and keep them")
    ap.add_argument("--only", nargs="*", help="only the inputs whose label starts with one of these")
    ap.add_argument("--instructions", action="store_true", help="count instructions (valgrind) instead of timing")
    args = ap.parse_args()
    if not args.schemacite:
        sys.exit("schemacite is not on PATH; give --schemacite")
    root = Path(args.keep or tempfile.mkdtemp(prefix="vs-squawk-"))
    try:
        tiny = root / "tiny"
        tiny.mkdir(parents=True, exist_ok=True)
        for i, sql in enumerate(TINY, 1):
            (tiny / f"{i:06d}_change.up.sql").write_text(sql)
        structure = root / "structure.sql"
        make_structure(structure, 400)
        goose = root / "goose"
        make_goose(goose, 224)
        corpus = Path(args.corpus)
        inputs: list[tuple[str, list[str], list[str]]] = [  # label, schemacite's paths, squawk's files
            ("1 tiny file", [str(tiny / "000001_change.up.sql")], [str(tiny / "000001_change.up.sql")]),
            ("5 tiny files", [str(tiny)], sorted(str(p) for p in tiny.glob("*.sql"))),
            ("structure.sql", [str(structure)], [str(structure)]),
            ("goose folder", [str(goose)], sorted(str(p) for p in goose.glob("*.sql"))),
        ]
        newest = max(str(p) for p in goose.glob("*.sql"))
        inputs.append(("history replay", ["--history", str(goose), newest], [newest]))
        sets = [corpus / s for s in SETS if (corpus / s).is_dir()]
        for folder in sets:
            inputs.append((folder.name, [str(folder)], sorted(str(p) for p in folder.rglob("*.sql"))))
        if len(sets) > 1:  # the whole PostgreSQL corpus in one run, as a CI job over a repository lints it
            every = sorted(str(p) for folder in sets for p in folder.rglob("*.sql"))
            inputs.append(("whole corpus", [str(folder) for folder in sets], every))
        if args.only:
            inputs = [i for i in inputs if i[0].startswith(tuple(args.only))]
        ours = [args.schemacite, "lint", "--dialect", "postgres", "--exit-zero", "--output-format", "concise"]
        base = [args.baseline, *ours[1:]] if args.baseline else None
        if args.instructions:
            counted(inputs, ours, base, args.squawk)
            return
        print(f"median of {args.runs} runs each, tools alternating, a new process each run; wall ms (CPU ms)")
        head = f"{'input':<20} {'files':>5} {'kB':>5} {'schemacite':>14} {'warm cache':>14}"
        print(head + (f" {'baseline':>14}" if base else "") + f" {'squawk':>12} {'ratio':>6}")
        for label, paths, files in inputs:
            kb = sum(os.path.getsize(f) for f in files) / 1000
            cmds = {"cold": [*ours, "--no-cache", *paths], "warm": [*ours, *paths]}
            if base:
                cmds["baseline"] = [*base, "--no-cache", *paths]
            cmds["squawk"] = [args.squawk, "--reporter", "gcc", *files]
            got = medians(cmds, args.runs, {"warm": {"SCHEMACITE_CACHE_DIR": str(root / f"cache-{label}")}})
            cells = " ".join(
                f"{f'{w * 1000:.0f} ({c * 1000:.0f})':>{12 if k == 'squawk' else 14}}" for k, (w, c) in got.items()
            )
            print(f"{label:<20} {len(files):5d} {kb:5.0f} {cells} {got['cold'][0] / got['squawk'][0]:5.1f}x")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def counted(
    inputs: list[tuple[str, list[str], list[str]]], ours: list[str], base: list[str] | None, squawk: str
) -> None:
    """Millions of instructions each tool executes per input (schemacite without its parse cache),
    and schemacite's against the baseline's."""
    print("millions of instructions, one run each under valgrind --tool=callgrind")
    print(f"{'input':<20} {'schemacite':>11}" + (f" {'baseline':>9} {'change':>7}" if base else "") + f" {'squawk':>7}")
    for label, paths, files in inputs:
        mine = instructions([*ours, "--no-cache", *paths])
        row = f"{label:<20} {mine / 1e6:11.0f}"
        if base:
            theirs = instructions([*base, "--no-cache", *paths])
            row += f" {theirs / 1e6:9.0f} {100 * (mine / theirs - 1):+6.1f}%"
        print(row + f" {instructions([squawk, '--reporter', 'gcc', *files]) / 1e6:7.0f}", flush=True)


def instructions(cmd: list[str]) -> int:
    """The instructions the process (and its children) executed, as callgrind counts them."""
    subprocess.run(cmd, capture_output=True)  # the first run writes the evidence memo: not counted
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--trace-children=yes", *cmd],
        capture_output=True,
        text=True,
        env={**USERS_ENV, "PYTHONHASHSEED": "0"},  # the same set and dict orders run after run
    )
    found = [int(line.rsplit(":", 1)[1].replace(",", "")) for line in run.stderr.splitlines() if "Collected :" in line]
    if not found:
        sys.exit(f"valgrind counted nothing for {' '.join(cmd)}:\n{run.stderr[-2000:]}")
    return sum(found)


if __name__ == "__main__":
    main()
