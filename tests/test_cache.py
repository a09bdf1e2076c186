"""The parse cache: a second run reads unchanged files from it, with the same results; an entry
that is not what schemacite wrote is a miss and runs nothing."""

from __future__ import annotations

import dataclasses
import json
import pickle
from pathlib import Path

import msgspec
import pytest

from schemacite.cli import main
from schemacite.model.codec import Codec, DecodeError
from schemacite.model.record import record
from schemacite.sources.cache import FORMAT, STATE_FORMAT, ParseCache, cache_root
from schemacite.sources.read import read_sql_file

ROOT = Path(__file__).resolve().parents[1]
SQL = b"CREATE TABLE t (id int PRIMARY KEY);\n-- schemacite: insert-heavy\nCREATE TABLE u (v int);\n"


def _entries(cache: ParseCache) -> list[Path]:
    return sorted(cache.dir.rglob("*.json"))


def test_hits_give_the_same_statements_at_the_new_path(tmp_path):
    cache = ParseCache(tmp_path)
    a, b = tmp_path / "a.sql", tmp_path / "b.sql"
    a.write_bytes(SQL)
    b.write_bytes(SQL)
    first = read_sql_file(str(a), "postgres", cache)
    second = read_sql_file(str(b), "postgres", cache)
    assert (cache.misses, cache.hits) == (1, 1)
    assert [s.location.file for s in second.statements] == [str(b), str(b)]
    assert [(s.kind, s.table, s.location.line, s.annotations) for s in second.statements] == [
        (s.kind, s.table, s.location.line, s.annotations) for s in first.statements
    ]
    assert second.statements[0].op == first.statements[0].op  # the whole typed statement survives
    assert second.statements[0].location.seq > first.statements[-1].location.seq  # later in replay order
    assert read_sql_file(str(a), "mysql", cache) is not None and cache.misses == 2  # dialect is in the key


def test_entries_are_plain_json(tmp_path):
    cache = ParseCache(tmp_path)
    f = tmp_path / "a.sql"
    f.write_bytes(SQL)
    read_sql_file(str(f), "postgres", cache)
    (entry,) = _entries(cache)
    doc = json.loads(entry.read_text())
    assert doc["format"] == FORMAT and doc["key"] == entry.stem


@record(frozen=True)
class Place:
    file: str
    line: int = 0
    seq: int = dataclasses.field(default=0, compare=False)


@record
class Holder:
    first: Place
    either: tuple[Place, int] | tuple[Place, str]
    later: Place
    again: list[Place]


def test_a_place_written_again_refers_back_and_reads_back_as_written():
    """A place equal to one written before in the document (its replay order too) is written as a
    reference to it; a failed try of a union counts none of the places it read; a reference to no
    place written before is refused."""
    codec = Codec((Place, Holder), tagged=True, positional=(Place,))
    x, y, z = Place("x", 1, seq=1), Place("y", 2, seq=2), Place("z", 3, seq=3)
    held = Holder(x, (y, "s"), z, [z, y, Place("x", 1, seq=9), x])
    raw = codec.encode(held)
    again = raw["f"]["again"]
    assert again[0] == {"@": "Place", "r": 2} and again[1] == {"@": "Place", "r": 1}
    assert again[2] == {"@": "Place", "v": ["x", 1, 9]} and again[3] == {"@": "Place", "r": 0}
    back = codec.decode(json.loads(json.dumps(raw)), Holder)
    assert back == held and [p.seq for p in back.again] == [3, 2, 9, 1]
    assert back.again[0] is back.later  # one object, as it is immutable
    for wrong in (9, -1, "0"):
        raw["f"]["later"] = {"@": "Place", "r": wrong}
        with pytest.raises(DecodeError, match="a reference to none written before"):
            codec.decode(raw, Holder)


def _poison(cache: ParseCache, payload: bytes) -> None:
    for entry in _entries(cache):
        entry.write_bytes(payload)


class _RunsCode:
    def __reduce__(self):
        return (Path.touch, (Path(__file__).parent / "never",))


def test_a_poisoned_entry_runs_nothing_and_is_a_miss(tmp_path):
    cache = ParseCache(tmp_path)
    f = tmp_path / "a.sql"
    f.write_bytes(SQL)
    read_sql_file(str(f), "postgres", cache)
    marker = tmp_path / "ran"
    key = _entries(cache)[0].stem
    attempts = [
        pickle.dumps(_RunsCode()),  # what the old pickle cache would have executed
        b"not json",
        json.dumps({"format": 1, "key": key, "file": {"@": "Path", "f": {"args": [str(marker)]}}}).encode(),
        json.dumps({"format": 1, "key": key, "file": {"@": "ParsedFile", "f": {"path": 1}}}).encode(),
        json.dumps(
            {
                "format": 1,
                "key": key,
                "file": {
                    "@": "ParsedFile",
                    "f": {
                        "path": "a.sql",
                        "statements": "oops",
                        "errors": [],
                        "ignore_file": {"@": "frozenset", "v": []},
                    },
                },
            }
        ).encode(),
        json.dumps({"format": 1, "key": "0" * 40, "file": None}).encode(),
        json.dumps([1, 2, 3]).encode(),
        b"[" * 100000,
    ]
    for n, payload in enumerate(attempts, start=1):
        _poison(cache, payload)
        again = read_sql_file(str(f), "postgres", cache)
        assert [s.table for s in again.statements] == ["t", "u"]
        assert cache.misses == 1 + n and cache.hits == 0
    assert not marker.exists() and not (Path(__file__).parent / "never").exists()


def test_the_cache_lives_outside_the_repository(tmp_path, monkeypatch):
    monkeypatch.delenv("SCHEMACITE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "schemacite"
    monkeypatch.setenv("SCHEMACITE_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_root() == tmp_path / "mine"


def test_cli_runs_agree_with_and_without_cache(capsys, tmp_path, monkeypatch):
    from schemacite.sources import cache as cache_module

    monkeypatch.setenv("SCHEMACITE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache_module, "ENTRIES_FROM_FILES", 1)  # the demo's four files' parses are kept
    demo = sorted((ROOT / "fixtures" / "demo" / "postgres" / "migrations").glob("*.up.sql"))
    outs = []
    for extra in ([], [], ["--no-cache"]):
        main(["lint", "--format", "json", *extra, *map(str, demo)])
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1] == outs[2] and outs[0]["findings"]
    assert len(list((tmp_path / "cache" / "parse").rglob("*.json"))) == len(demo)


def test_a_run_of_a_few_small_files_parses_them_and_keeps_no_entry(tmp_path):
    from schemacite.lint.project import Project
    from schemacite.sources.cache import ENTRIES_FROM_BYTES, ENTRIES_FROM_FILES

    small = [tmp_path / f"{n:03}_small.sql" for n in range(ENTRIES_FROM_FILES)]
    for n, f in enumerate(small):
        f.write_text(f"CREATE TABLE t{n} (id int PRIMARY KEY);\nALTER TABLE t0 ADD COLUMN c{n} int;\n")
    big = tmp_path / "big" / "schema.sql"
    big.parent.mkdir()
    big.write_text("".join(f"CREATE TABLE b{n} (id bigint PRIMARY KEY, note text);\n" for n in range(800)))
    assert big.stat().st_size >= ENTRIES_FROM_BYTES

    def run(files):
        cache = ParseCache(tmp_path / "cache")
        project = Project.resolve([str(f) for f in files], overrides={"dialect": "postgres"})
        found = sorted((f.code, f.location.file, f.location.line) for f in project.lint(cache=cache).findings)
        return found, cache.hits + cache.misses, len(_entries(cache))

    few = small[: ENTRIES_FROM_FILES - 1]
    assert run(few)[1:] == (0, 0)  # parsed afresh: no entry read or written
    assert run([*few[1:], big])[1:] == (1, 1)  # but a large file's parse is kept in any run
    many = run(small)
    assert many[1:] == (ENTRIES_FROM_FILES, ENTRIES_FROM_FILES + 1)  # enough files: every parse is kept
    assert run(small) == (many[0], ENTRIES_FROM_FILES, ENTRIES_FROM_FILES + 1)  # and read back, same findings
    assert many[0] == sorted(
        (f.code, f.location.file, f.location.line)
        for f in Project.resolve([str(f) for f in small], overrides={"dialect": "postgres"}).lint(cache=None).findings
    )


def test_every_field_is_checked_against_its_declared_type():
    """The codec's readers, built once per annotation, refuse what the old walk refused."""
    from schemacite.model.codec import DecodeError
    from schemacite.sources.cache import _codec
    from schemacite.sources.read import ParsedFile, parse_text

    codec = _codec()
    good = codec.encode(parse_text(SQL.decode(), "a.sql", "postgres"))
    assert codec.decode(good, ParsedFile) == parse_text(SQL.decode(), "a.sql", "postgres")
    stmt = good["f"]["statements"][0]["f"]

    def damaged(change) -> dict:
        doc = json.loads(json.dumps(good))
        change(doc["f"]["statements"][0]["f"])
        return doc

    location = next(k for k, v in stmt.items() if isinstance(v, dict) and v.get("@") == "Location")
    cases = [
        lambda s: s[location]["v"].__setitem__(1, "1"),  # a string for an int (a place is stored positionally)
        lambda s: s[location]["v"].__setitem__(1, True),  # a bool is not an int
        lambda s: s[location]["v"].append(1),  # a value the class has no field for
        lambda s: s[location].__setitem__("@", "Table"),  # another stored class
        lambda s: s[location].__setitem__("@", "Path"),  # a class that is not stored
        lambda s: s[location].__setitem__("@", ["Location"]),  # a tag that is no name
        lambda s: s.__setitem__("op", {"@": "AddColumn", "f": {"column": 1}}),  # a field of the wrong type
        lambda s: s.__setitem__("annotations", {"@": "tuple", "v": []}),  # a tuple for a frozenset
        lambda s: s.__setitem__("annotations", {"@": "frozenset", "v": [[1]]}),  # unhashable member
    ]
    for change in cases:
        with pytest.raises(DecodeError):
            codec.decode(damaged(change), ParsedFile)


def test_a_corrupt_entry_names_the_bad_value_and_is_parsed_again(tmp_path):
    from schemacite.model.codec import DecodeError
    from schemacite.sources.cache import _codec
    from schemacite.sources.read import ParsedFile

    cache = ParseCache(tmp_path)
    f = tmp_path / "a.sql"
    f.write_bytes(SQL)
    first = read_sql_file(str(f), "postgres", cache)
    (entry,) = _entries(cache)
    doc = json.loads(entry.read_text())
    stmt = doc["file"]["f"]["statements"][1]["f"]
    location = next(k for k, v in stmt.items() if isinstance(v, dict) and v.get("@") == "Location")
    stmt[location]["v"][1] = "three"
    with pytest.raises(DecodeError) as info:
        _codec().decode(doc["file"], ParsedFile)
    assert str(info.value) == f'statements[1].{location}.line: expected a whole number, got "three"'
    entry.write_text(json.dumps(doc))
    again = read_sql_file(str(f), "postgres", cache)
    assert (cache.hits, cache.misses) == (0, 2)  # not trusted: parsed again, and written again
    assert [s.location.line for s in again.statements] == [s.location.line for s in first.statements]
    assert json.loads(entry.read_text())["file"]["f"]["statements"][1]["f"][location]["v"][1] == 3


# --- the state a history's replay leaves -------------------------------------------------------

HISTORY = [
    "CREATE TYPE mood AS ENUM ('sad', 'ok');\nCREATE DOMAIN positive AS int CHECK (VALUE > 0);\n",
    "CREATE TABLE accounts (id bigserial PRIMARY KEY, name text NOT NULL, score positive);\n",
    "CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint REFERENCES accounts, m mood);\n",
    "-- schemacite: ignore-file\nCREATE TABLE logs (v text);\n",
    "CREATE INDEX orders_account ON orders (account_id);\nALTER TABLE orders ADD COLUMN note text;\n",
    "CREATE TABLE broken (id int PRIMARY KEY,);\n",  # an input error of the history's
    "\\ir ../shared/part.sql\n",
    "ALTER TABLE accounts RENAME COLUMN name TO title;\nDROP TABLE logs;\n",
    # an enum label added in a transaction is kept with it (a table keyed by pairs, in the state)
    "BEGIN;\nALTER TYPE mood ADD VALUE 'fine';\nCOMMIT;\n",
]
CHANGE = (
    "ALTER TABLE orders ADD COLUMN total bigint NOT NULL DEFAULT 0;\n"
    "CREATE INDEX orders_total ON orders (total);\n"
    "ALTER TABLE accounts ALTER COLUMN score TYPE bigint;\n"
    "ALTER TYPE mood ADD VALUE 'great';\n"
    "ALTER TABLE events ADD CONSTRAINT events_kind CHECK (kind <> '');\n"
)


def _history_project(root: Path, files: int = 24) -> tuple[Path, Path]:
    folder = root / "migrations"
    folder.mkdir(parents=True)
    (root / "shared").mkdir()
    (root / "shared" / "part.sql").write_text("CREATE TABLE events (id int PRIMARY KEY, kind text);\n")
    for n in range(1, files + 1):
        text = HISTORY[n - 1] if n <= len(HISTORY) else f"CREATE TABLE filler_{n} (id int PRIMARY KEY);\n"
        (folder / f"{n:05d}_step.sql").write_text(text)
    change = root / f"{files + 1:05d}_change.sql"
    change.write_text(CHANGE)
    return folder, change


def _lint_json(capsys, folder: Path, change: Path, *extra: str) -> dict:
    main(["lint", "--dialect", "postgres", "--format", "json", "--history", str(folder), *extra, str(change)])
    return json.loads(capsys.readouterr().out)


def test_a_history_read_back_from_its_state_lints_the_change_as_replaying_it_does(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("SCHEMACITE_CACHE_DIR", str(tmp_path / "cache"))
    folder, change = _history_project(tmp_path)
    cold = _lint_json(capsys, folder, change, "--no-cache")
    first = _lint_json(capsys, folder, change)  # replays the history and keeps its state
    (state,) = (tmp_path / "cache" / "state").rglob("*.msgpack")
    second = _lint_json(capsys, folder, change)  # reads that state back
    assert cold == first == second
    assert {f["code"] for f in cold["findings"]} >= {"SC104", "SC110", "SC112"}  # the change's findings
    assert any("00006_step.sql:1:41: syntax error" in note for note in cold["notes"])  # the history's error too
    kept = msgspec.msgpack.decode(state.read_bytes())  # plain MessagePack: a map of the state's fields
    assert kept["format"] == STATE_FORMAT and {"schema", "errors", "units", "next_seq"} <= kept["state"].keys()
    assert kept["state"]["schema"]["_lookup"] is None  # the index of names is made again when asked


def _lint_with(cache: ParseCache, folder: Path, change: Path):
    from schemacite.lint.project import Project

    project = Project.resolve([str(change)], overrides={"dialect": "postgres"}, history=[str(folder)])
    return project.lint(cache=cache)


def test_the_state_is_read_back_only_for_the_same_history(tmp_path):
    folder, change = _history_project(tmp_path)
    cache = ParseCache(tmp_path / "cache")

    def run():
        before = cache.state_hits
        result = _lint_with(cache, folder, change)
        return cache.state_hits - before, sorted((f.code, f.location.line) for f in result.findings)

    def cold():
        return sorted((f.code, f.location.line, f.message) for f in _lint_with(None, folder, change).findings)

    assert run()[0] == 0 and run() == (1, [(code, line) for code, line, _ in cold()])
    # an included file changed: the state is not used, and the change is judged on the new history
    (tmp_path / "shared" / "part.sql").write_text("CREATE TABLE events (id int PRIMARY KEY, kind int);\n")
    assert run() == (0, [(code, line) for code, line, _ in cold()])
    assert run()[0] == 1
    # a history file changed: replayed again
    (folder / "00003_step.sql").write_text(HISTORY[2].replace("PRIMARY KEY,", "PRIMARY KEY, total bigint,"))
    assert run() == (0, [(code, line) for code, line, _ in cold()])
    assert run()[0] == 1


def test_short_histories_keep_no_state_and_old_states_are_dropped(tmp_path, monkeypatch):
    from schemacite.sources import cache as cache_module

    short, change = _history_project(tmp_path / "short", files=10)
    cache = ParseCache(tmp_path / "cache")
    _lint_with(cache, short, change)
    assert not cache.states.exists()
    monkeypatch.setattr(cache_module, "STATES_KEPT", 2)
    for n in range(4):
        folder, change = _history_project(tmp_path / f"h{n}", files=20 + n)
        _lint_with(cache, folder, change)
    assert len(list(cache.states.glob("*.msgpack"))) == 2


def test_a_poisoned_state_runs_nothing_and_is_replayed(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SCHEMACITE_CACHE_DIR", str(tmp_path / "cache"))
    folder, change = _history_project(tmp_path)
    expected = _lint_json(capsys, folder, change)
    (state,) = (tmp_path / "cache" / "state").rglob("*.msgpack")
    state.write_bytes(pickle.dumps(_RunsCode()))
    assert _lint_json(capsys, folder, change) == expected
    doc = msgspec.msgpack.decode(state.read_bytes())  # written again
    doc["state"]["units"] = "many"  # a value of the wrong type
    state.write_bytes(msgspec.msgpack.encode(doc))
    assert _lint_json(capsys, folder, change) == expected
    doc = msgspec.msgpack.decode(state.read_bytes())  # written again
    doc["state"]["schema"]["tables"]["orders"]["columns"]["note"]["nullable"] = "yes"  # deep inside
    state.write_bytes(msgspec.msgpack.encode(doc))
    assert _lint_json(capsys, folder, change) == expected
    assert (
        msgspec.msgpack.decode(state.read_bytes())["state"]["schema"]["tables"]["orders"]["columns"]["note"]["nullable"]
        is True
    )
    assert not (Path(__file__).parent / "never").exists()


@pytest.mark.parametrize("dialect", ["postgres", "mysql"])
def test_statements_read_after_a_history_read_back_come_later_in_replay_order(dialect):
    """A history state read back from the cache moves replay order on (`seq_from`): the statements
    every reader parses after it must come after the history's, or `latest` takes an old place
    for a new one (the language server and the pytest plugin lint again in one process)."""
    from schemacite.sources import read

    read.parse_text("SELECT 1;\n", "first.sql", dialect)  # the readers loaded, as in a process linting again
    read.seq_from(read.next_seq() + 1_000_000)
    start = read.next_seq()
    parsed = read.parse_text(
        "CREATE TABLE t (id int PRIMARY KEY);\nALTER TABLE t ADD COLUMN c int;\n", "x.sql", dialect
    )
    assert len(parsed.statements) == 2 and all(s.location.seq > start for s in parsed.statements)
