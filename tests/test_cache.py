"""The parse cache: a second run reads unchanged files from it, with the same results."""
from __future__ import annotations

import json
from pathlib import Path

from schemacite.cache import ParseCache
from schemacite.cli import main
from schemacite.sql.parse import read_sql_file

ROOT = Path(__file__).resolve().parents[1]


def test_hits_give_the_same_statements_at_the_new_path(tmp_path):
    cache = ParseCache(tmp_path)
    sql = b"CREATE TABLE t (id int PRIMARY KEY);\n-- schemacite: insert-heavy\nCREATE TABLE u (v int);\n"
    a, b = tmp_path / "a.sql", tmp_path / "b.sql"
    a.write_bytes(sql)
    b.write_bytes(sql)
    first = read_sql_file(str(a), "postgres", cache)
    second = read_sql_file(str(b), "postgres", cache)
    assert (cache.misses, cache.hits) == (1, 1)
    assert [s.location.file for s in second.statements] == [str(b), str(b)]
    assert [(s.kind, s.table, s.location.line, s.annotations) for s in second.statements] == [
        (s.kind, s.table, s.location.line, s.annotations) for s in first.statements]
    assert second.statements[0].location.seq > first.statements[-1].location.seq  # later in replay order
    assert read_sql_file(str(a), "mysql", cache) is not None and cache.misses == 2  # dialect is in the key


def test_a_broken_entry_is_ignored_and_rewritten(tmp_path):
    cache = ParseCache(tmp_path)
    f = tmp_path / "a.sql"
    f.write_text("CREATE TABLE t (v int);\n")
    read_sql_file(str(f), "postgres", cache)
    for entry in cache.dir.glob("*.pickle"):
        entry.write_bytes(b"not a pickle")
    again = read_sql_file(str(f), "postgres", cache)
    assert again.statements[0].table == "t" and cache.misses == 2


def test_cli_runs_agree_with_and_without_cache(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("SCHEMACITE_CACHE_DIR", str(tmp_path / "cache"))
    demo = sorted((ROOT / "fixtures" / "demo" / "postgres" / "migrations").glob("*.up.sql"))
    outs = []
    for extra in ([], [], ["--no-cache"]):
        main(["lint", "--format", "json", *extra, *map(str, demo)])
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1] == outs[2] and outs[0]["findings"]
    assert list((tmp_path / "cache").rglob("*.pickle"))
