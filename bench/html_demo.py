"""The README's screenshot: the demo schema audited on a throwaway PostgreSQL, as an HTML page.

    python bench/html_demo.py [--out docs/html-report.png] [--page FILE]

Starts a private PostgreSQL 15 (tests/servers.py), applies the demo migrations that PostgreSQL
accepts (fixtures/demo/postgres/migrations/00000[1-3]_*.up.sql; 000004 is the partitioned table
PostgreSQL refuses), sends it some traffic (page views written far more than read, accounts and
orders read by key), runs `schemacite audit --format html` on it and photographs the top of the
page in headless Chromium (tests/browser.py). The server is stopped and deleted at the end.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import browser  # tests/browser.py: headless Chromium
import servers  # tests/servers.py: the throwaway servers the tests use
from schemacite.cli import main as schemacite

ROOT = Path(__file__).resolve().parents[1]
MIGRATIONS = sorted((ROOT / "fixtures/demo/postgres/migrations").glob("00000[1-3]_*.up.sql"))


def traffic(conn) -> None:
    rng = random.Random(7)
    start = datetime(2026, 11, 1, tzinfo=UTC)
    with conn.cursor() as cur:
        with cur.copy("COPY accounts (email) FROM STDIN") as copy:
            for i in range(20_000):
                copy.write_row((f"user{i}@example.com",))
        with cur.copy("COPY orders (account_id, total_cents) FROM STDIN") as copy:
            for _ in range(150_000):
                copy.write_row((rng.randrange(1, 20_001), rng.randrange(100, 100_000)))
        with cur.copy("COPY page_views (viewed_at, account_id, url, referrer) FROM STDIN") as copy:
            for i in range(400_000):
                copy.write_row((start + timedelta(seconds=i), rng.randrange(1, 20_001), f"/p/{i % 5000}", None))
        for _ in range(300):
            cur.execute("SELECT * FROM accounts WHERE id = %s", (rng.randrange(1, 20_001),)).fetchall()
            cur.execute("SELECT * FROM orders WHERE id = %s", (rng.randrange(1, 150_001),)).fetchall()
    conn.execute("VACUUM ANALYZE")  # rows: the statistics' count (sizes are the files' own)
    conn.execute("SELECT pg_stat_force_next_flush()")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "html-report.png")
    parser.add_argument("--page", type=Path, help="keep the HTML page here too")
    parser.add_argument("--width", type=int, default=1000)
    parser.add_argument("--height", type=int, default=1040)
    args = parser.parse_args()
    with servers.postgres_server() as server:
        db = server.create_database("shop")
        with server.connect(db) as conn:
            for path in MIGRATIONS:
                conn.execute(path.read_text())
            traffic(conn)
        folder = Path(tempfile.mkdtemp())
        os.chdir(folder)  # the page shows the command as a reader would type it: -o report.html
        code = schemacite(["audit", "--format", "html", "-o", "report.html", server.dsn(db)])
        if code not in (0, 1):
            return code
        page = folder / "report.html"
        if args.page:
            shutil.copyfile(page, args.page)
    with browser.chromium(args.width, args.height) as driver:
        driver.get(page.as_uri())
        problems = browser.console(driver)
        args.out.write_bytes(driver.get_screenshot_as_png())
    print(f"wrote {args.out} ({args.out.stat().st_size / 1000:.0f} kB) from {page}")
    for entry in problems:
        print(f"console: {entry}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
