"""How `schemacite lint` scales with the size of a schema dump: time and peak memory.

Generates mysqldump-style (`--no-data`-like, with DROP TABLE IF EXISTS before each table) and
pg_dump-style (`--clean --if-exists`) dumps of about 2, 5, 10 and 20 MB, with the number of tables
growing with the size (about 13,000 tables at 20 MB), and lints each in a fresh process, without
the parse cache. Prints one row per size: tables, statements, wall seconds, CPU seconds, peak
resident memory, and seconds per MB (flat when the cost is linear). Figures are printed, never
asserted.

    python bench/dump_scaling.py                 # MySQL dumps 2, 5, 10, 20 MB
    python bench/dump_scaling.py --dialect postgres --sizes 2 20
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

TYPES_MYSQL = [
    "int NOT NULL",
    "bigint DEFAULT NULL",
    "varchar(255) NOT NULL DEFAULT ''",
    "datetime DEFAULT NULL",
    "decimal(12,2) NOT NULL DEFAULT '0.00'",
    "text",
    "tinyint(1) NOT NULL DEFAULT '0'",
    "json DEFAULT NULL",
]
TYPES_PG = [
    "integer NOT NULL",
    "bigint",
    "character varying(255) DEFAULT ''::character varying NOT NULL",
    "timestamp with time zone",
    "numeric(12,2) DEFAULT 0 NOT NULL",
    "text",
    "boolean DEFAULT false NOT NULL",
    "jsonb",
]


def mysql_table(rng: random.Random, n: int) -> str:
    name = f"t{n:05d}_" + rng.choice(["orders", "events", "users", "audit_log", "items", "sessions"])
    cols = ["  `id` bigint NOT NULL AUTO_INCREMENT"]
    ncols = rng.randint(6, 16)
    for c in range(ncols):
        cols.append(f"  `col_{c}` {rng.choice(TYPES_MYSQL)} COMMENT 'column {c} of {name}'")
    keys = [] if n % 11 == 0 else ["  PRIMARY KEY (`id`)"]
    for k in range(rng.randint(0, 4)):
        keys.append(f"  KEY `idx_{name}_{k}` (`col_{k}`,`col_{k + 1}`)")
    if n % 7 == 0:
        keys.append(f"  UNIQUE KEY `uq_{name}` (`col_0`)")
    body = ",\n".join(cols + keys)
    part = ""
    if n % 97 == 0:
        part = "\n/*!50100 PARTITION BY HASH (`id`)\nPARTITIONS 4 */"
    return (
        f"--\n-- Table structure for table `{name}`\n--\n\n"
        f"DROP TABLE IF EXISTS `{name}`;\n"
        "/*!40101 SET @saved_cs_client     = @@character_set_client */;\n"
        "/*!40101 SET character_set_client = utf8 */;\n"
        f"CREATE TABLE `{name}` (\n{body}\n) ENGINE=InnoDB AUTO_INCREMENT={rng.randint(1, 99999)} "
        f"DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='{name} rows'{part};\n"
        "/*!40101 SET character_set_client = @saved_cs_client */;\n\n"
    )


def pg_table(rng: random.Random, n: int) -> tuple[str, str]:
    name = f"t{n:05d}_" + rng.choice(["orders", "events", "users", "audit_log", "items", "sessions"])
    cols = ["    id bigint NOT NULL"]
    for c in range(rng.randint(6, 16)):
        cols.append(f"    col_{c} {rng.choice(TYPES_PG)}")
    create = (
        f"DROP TABLE IF EXISTS public.{name};\n"
        f"CREATE TABLE public.{name} (\n" + ",\n".join(cols) + "\n);\n\n"
        f"ALTER TABLE public.{name} OWNER TO app;\n"
        f"COMMENT ON TABLE public.{name} IS '{name} rows';\n\n"
    )
    later = ""
    if n % 11:
        later += f"ALTER TABLE ONLY public.{name}\n    ADD CONSTRAINT {name}_pkey PRIMARY KEY (id);\n\n"
    for k in range(rng.randint(0, 4)):
        later += (
            f"DROP INDEX IF EXISTS public.idx_{name}_{k};\n"
            f"CREATE INDEX idx_{name}_{k} ON public.{name} USING btree (col_{k}, col_{k + 1});\n\n"
        )
    return create, later


def make_dump(path: str, megabytes: float, dialect: str, seed: int = 7) -> int:
    rng = random.Random(seed)
    limit = int(megabytes * 1_000_000)
    size, n = 0, 0
    with open(path, "w", encoding="utf-8") as f:
        if dialect == "postgres":
            f.write(
                "--\n-- PostgreSQL database dump\n--\n\nSET statement_timeout = 0;\nSET client_encoding = 'UTF8';\n\n"
            )
            tail = []
            while size < limit * 0.8:
                create, later = pg_table(rng, n)
                f.write(create)
                tail.append(later)
                size += len(create) + len(later)
                n += 1
            f.write("".join(tail))
        else:
            f.write(
                "-- MySQL dump 10.13  Distrib 8.0.36\n/*!40101 SET NAMES utf8mb4 */;\n"
                "/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;\n\n"
            )
            while size < limit:
                text = mysql_table(rng, n)
                f.write(text)
                size += len(text)
                n += 1
    return n


def _pss_kb(pid: int) -> int:
    """Memory of `pid` and any child processes together, in KB: the proportional set size, which
    counts pages a fork shares once, not once per process."""
    total = 0
    pids = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                pids += [int(p) for p in f.read().split()]
    except OSError:
        pass
    for p in pids:
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                total += next((int(line.split()[1]) for line in f if line.startswith("Pss:")), 0)
        except OSError:
            pass
    return total


def run_once(path: str, dialect: str) -> tuple[float, float, int, int, str]:
    """(wall s, cpu s, peak RSS KB of the main process, peak RSS KB of all its processes together,
    summary line) of one lint in a fresh process."""
    cmd = [sys.executable, "-m", "schemacite.cli", "lint", "--no-cache", "--dialect", dialect, "--format", "text", path]
    env = dict(os.environ, NO_COLOR="1")
    peak_sum = 0
    done = threading.Event()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)

    def sample() -> None:
        nonlocal peak_sum
        while not done.is_set():
            peak_sum = max(peak_sum, _pss_kb(proc.pid))
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    lines = [ln for ln in out.splitlines() if ln.strip()]
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, peak_sum, lines[-1] if lines else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dialect", choices=("mysql", "postgres"), default="mysql")
    ap.add_argument("--sizes", type=float, nargs="+", default=[2, 5, 10, 20], help="dump sizes in MB")
    ap.add_argument("--keep", help="keep the generated dumps in this folder")
    args = ap.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="schemacite-dumps-")
    os.makedirs(folder, exist_ok=True)
    print(f"schemacite lint on {args.dialect} dumps (no cache), one fresh process each")
    print(
        "cpu s: both cores together; peak MB: the largest process (max RSS); all MB: every process at once "
        "(proportional set size, sampled every 20 ms)"
    )
    print(
        f"{'MB':>6} {'tables':>7} {'statements':>10} {'wall s':>8} {'cpu s':>7} {'peak MB':>8} {'all MB':>7} {'s/MB':>6}"
    )
    try:
        for mb in args.sizes:
            path = os.path.join(folder, f"dump-{args.dialect}-{mb:g}MB.sql")
            tables = make_dump(path, mb, args.dialect)
            real_mb = os.path.getsize(path) / 1_000_000
            wall, cpu, rss_kb, all_kb, summary = run_once(path, args.dialect)
            stmts = summary.split(" file(s), ")[-1].split(" statement")[0] if "statement" in summary else "?"
            print(
                f"{real_mb:6.1f} {tables:7d} {stmts:>10} {wall:8.2f} {cpu:7.2f} {rss_kb / 1024:8.0f} "
                f"{all_kb / 1024:7.0f} {wall / real_mb:6.2f}"
            )
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
