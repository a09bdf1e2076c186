"""How long the language server takes from an edit to its diagnostics.

Generates a project into a temporary folder: a config naming `migrations/*.sql` as history,
HISTORY migrations (CREATE TABLE with identity keys, defaults and foreign keys, ADD COLUMN,
CREATE INDEX [CONCURRENTLY], SET DEFAULT) and a LINES-line migration after them (ADD COLUMN,
CREATE INDEX, CHECK constraints, UPDATE backfills and new tables referencing old ones). Starts
`schemacite server` as an editor does, with an empty parse cache, and times, from the moment the
client sends the notification to the moment the diagnostics for that version arrive:

- cold: didOpen of the migration (the server replays the history for the first time);
- warm: didChange, one character typed into the migration, the median (and spread) of --changes
  edits (the history's schema is kept, only the buffer is linted again);
- history changed: didChange after one history file was touched on disk (the history is
  replayed again, its files now in the parse cache).

The server's debounce is set to --debounce-ms (default 0, so the figures are the server's own
time; an editor adds the debounce, 200 ms by default, on top of the warm figure).

    python bench/lsp_latency.py [--history 300] [--lines 500] [--changes 20] [--debounce-ms 0]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

COLUMN_TYPES = [
    "text",
    "integer",
    "timestamptz NOT NULL DEFAULT now()",
    "numeric(12,2)",
    "boolean DEFAULT false",
    "jsonb",
]


def make_project(root: Path, history: int, lines: int, seed: int = 19) -> Path:
    """Write the project; return the path of the migration under edit (the last one)."""
    rnd = random.Random(seed)
    folder = root / "migrations"
    folder.mkdir(parents=True)
    (root / ".schemacite.toml").write_text(
        'dialect = "postgres"\ntarget = "postgres-15"\nhistory = ["migrations/*.sql"]\n'
    )
    tables: list[str] = []
    for n in range(1, history + 1):
        out = []
        if n <= 3 or rnd.random() < 0.45:
            name = f"t{n:04d}"
            columns = ["    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY"]
            columns += [f"    c{c} {rnd.choice(COLUMN_TYPES)}" for c in range(rnd.randint(3, 8))]
            if tables and rnd.random() < 0.5:
                parent = rnd.choice(tables)
                columns.append(f"    {parent}_id bigint REFERENCES {parent} (id)")
            out.append(f"CREATE TABLE {name} (\n" + ",\n".join(columns) + "\n);")
            out.append(f"CREATE INDEX {name}_c0 ON {name} (c0);")
            tables.append(name)
        else:
            table = rnd.choice(tables)
            out.append(f"ALTER TABLE {table} ADD COLUMN extra_{n} text;")
            if rnd.random() < 0.5:
                out.append(f"CREATE INDEX CONCURRENTLY {table}_extra_{n} ON {table} (extra_{n});")
            else:
                out.append(f"ALTER TABLE {table} ALTER COLUMN extra_{n} SET DEFAULT 'x';")
        (folder / f"{n:06d}_step.sql").write_text("\n".join(out) + "\n")
    body: list[str] = []
    written = k = 0
    while written < lines:
        k += 1
        table = rnd.choice(tables)
        pick = rnd.random()
        if pick < 0.3:
            statement = f"ALTER TABLE {table} ADD COLUMN new_{k} integer;"
        elif pick < 0.5:
            statement = f"CREATE INDEX {table}_new_{k} ON {table} (c0);"
        elif pick < 0.6:
            statement = f"ALTER TABLE {table} ADD CONSTRAINT {table}_check_{k} CHECK (id > 0);"
        elif pick < 0.7:
            statement = f"UPDATE {table} SET c0 = c0 WHERE id < {k};"
        else:
            statement = (
                f"CREATE TABLE n{k:04d} (\n    id bigint PRIMARY KEY,\n    ref bigint REFERENCES {table} (id),\n"
                "    note text\n);"
            )
        body.append(f"-- step {k}\n{statement}")
        written += 2 + statement.count("\n")
    path = folder / f"{history + 1:06d}_next.sql"
    path.write_text("\n".join(body) + "\n")
    return path


class Timer:
    """The client side: sends notifications and notes when the diagnostics of each version arrive."""

    def __init__(self) -> None:
        self.client = LanguageClient("lsp-latency", "1")
        self.arrived: dict[int, float] = {}
        self.found: dict[int, int] = {}
        self.event = asyncio.Event()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            if params.version is not None:
                self.arrived[params.version] = time.perf_counter()
                self.found[params.version] = len(params.diagnostics)
                self.event.set()

    async def wait(self, version: int, sent: float, timeout: float = 60) -> float:
        deadline = time.perf_counter() + timeout
        while version not in self.arrived:
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), max(deadline - time.perf_counter(), 0.001))
        return self.arrived[version] - sent


async def measure(root: Path, path: Path, changes: int, debounce_ms: int) -> dict[str, object]:
    timer = Timer()
    client = timer.client
    env = {**os.environ, "SCHEMACITE_CACHE_DIR": str(root / "cache")}
    await client.start_io(sys.executable, "-m", "schemacite.cli", "server", env=env)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=root.as_uri(),
            initialization_options={"debounceMs": debounce_ms},
        )
    )
    client.initialized(types.InitializedParams())
    uri = path.as_uri()
    text = path.read_text()
    sent = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "sql", 1, text)))
    cold = await timer.wait(1, sent)
    warm = []
    for version in range(2, changes + 2):
        # type one character at the end of the first line (a comment), as an editor sends it
        at = types.Position(0, len("-- step 1") + version - 2)
        edit = types.TextDocumentContentChangePartial(range=types.Range(at, at), text="x")
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(version=version, uri=uri), [edit])
        )
        warm.append(await timer.wait(version, sent))
    touched = root / "migrations" / "000002_step.sql"
    touched.write_text(touched.read_text() + "-- touched\n")
    version = changes + 2
    at = types.Position(0, len("-- step 1") + changes)
    sent = time.perf_counter()
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=uri),
            [types.TextDocumentContentChangePartial(range=types.Range(at, at), text="x")],
        )
    )
    replayed = await timer.wait(version, sent)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"cold": cold, "warm": warm, "replayed": replayed, "diagnostics": timer.found[1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--history", type=int, default=300, help="history migrations (default 300)")
    parser.add_argument("--lines", type=int, default=500, help="lines of the migration under edit (default 500)")
    parser.add_argument("--changes", type=int, default=20, help="edits timed warm (default 20)")
    parser.add_argument("--debounce-ms", type=int, default=0, help="the server's debounce setting (default 0)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="schemacite-lsp-") as tmp:
        root = Path(tmp)
        path = make_project(root, args.history, args.lines)
        statements = path.read_text().count(";")
        figures = asyncio.run(measure(root, path, args.changes, args.debounce_ms))
    warm = sorted(figures["warm"])  # type: ignore[arg-type]
    ms = 1000
    print(
        f"{args.history} history migrations, a {args.lines}-line migration ({statements} statements, "
        f"{figures['diagnostics']} diagnostics), debounce {args.debounce_ms} ms"
    )
    print(f"cold (didOpen, history replayed, empty parse cache): {figures['cold'] * ms:.0f} ms")  # type: ignore[operator]
    print(
        f"warm (didChange, median of {len(warm)}): {statistics.median(warm) * ms:.0f} ms "
        f"(fastest {warm[0] * ms:.0f}, slowest {warm[-1] * ms:.0f})"
    )
    print(f"after a history file changed (replayed again, parse cache warm): {figures['replayed'] * ms:.0f} ms")  # type: ignore[operator]


if __name__ == "__main__":
    main()
