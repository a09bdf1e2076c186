"""`manage.py schemacite` against `sqlmigrate` piped into `schemacite lint`, on a real Django project.

Run it in the project's own environment (its requirements and `schemacite[django]` installed, its
settings in DJANGO_SETTINGS_MODULE with "schemacite.django" among INSTALLED_APPS, its database
reachable), from the project's folder:

    python /path/to/bench/django_vs_sqlmigrate.py [--database default]

It lints every migration twice: once with `manage.py schemacite` (one process, the SQL from
Django's schema editor, the others replayed in migrate's order), once the way a user could before
the app existed: `sqlmigrate` for each migration saved as a file named in migrate's order, and
`schemacite lint --framework django` over that folder (each file linted after the ones before it).
It prints the time of each and whether the findings agree, as (migration, code, table).
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import os
import subprocess
import sys
import tempfile
import time

import django


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--database", default="default")
    args = ap.parse_args()
    django.setup()
    from django.core.management import call_command
    from django.db import connections
    from django.db.migrations.loader import MigrationLoader

    from schemacite.django.collect import forwards_plan

    start = time.perf_counter()
    out = io.StringIO()
    call_command("schemacite", "--format", "json", "--exit-zero", "--database", args.database, stdout=out)
    app_time = time.perf_counter() - start
    doc = json.loads(out.getvalue())
    ours = collections.Counter((_migration(f["file"]), f["code"], f["table"]) for f in doc["findings"])

    loader = MigrationLoader(connections[args.database], ignore_no_migrations=True)
    plan = forwards_plan(loader)
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        for n, (app, name) in enumerate(plan, start=1):
            printed = io.StringIO()
            call_command("sqlmigrate", app, name, "--database", args.database, stdout=printed)
            with open(os.path.join(folder, f"{n:05d}_{app}_{name}.sql"), "w", encoding="utf-8") as f:
                f.write(printed.getvalue())
        printing = time.perf_counter() - start
        start = time.perf_counter()
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "schemacite.cli",
                "lint",
                folder,
                "--framework",
                "django",
                "--no-cache",
                "--dialect",
                doc["dialect"]["name"],
                "--target",
                doc["target"]["name"],
                "--format",
                "json",
                "--exit-zero",
            ],
            capture_output=True,
            text=True,
        )
        lint_time = time.perf_counter() - start
    piped = json.loads(run.stdout)
    theirs = collections.Counter((_migration(f["file"]), f["code"], f["table"]) for f in piped["findings"])
    print(f"{len(plan)} migrations; dialect {doc['dialect']['name']}, target {doc['target']['name']}")
    print(f"manage.py schemacite: {app_time:.1f} s, {sum(ours.values())} findings")
    print(
        f"sqlmigrate x{len(plan)}: {printing:.1f} s, then schemacite lint: {lint_time:.1f} s, "
        f"{sum(theirs.values())} findings"
    )
    only_ours, only_theirs = ours - theirs, theirs - ours
    print("same findings (migration, code, table)" if not only_ours and not only_theirs else "findings differ:")
    for key, count in sorted(only_ours.items()):
        print(f"  only manage.py schemacite: {key} x{count}")
    for key, count in sorted(only_theirs.items()):
        print(f"  only sqlmigrate | lint:    {key} x{count}")
    print("by rule:", dict(collections.Counter(code for _, code, _ in ours.elements())))


def _migration(path: str) -> str:
    """`app.name` of a finding's file: a migration's .py file, or a printed file NNNNN_app_name.sql."""
    base = os.path.basename(path)
    if base.endswith(".sql"):
        _, rest = base.split("_", 1)
        return rest[:-4]
    parts = os.path.normpath(path).split(os.sep)
    return f"{parts[-3]}_{base[:-3]}" if len(parts) >= 3 else base


if __name__ == "__main__":
    main()
