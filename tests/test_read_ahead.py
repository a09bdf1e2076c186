"""Reading ahead (sources.ahead): a run over many files parses them in a forked child; the answers
are those of a run that parses every file itself, whichever process parsed a file, and whatever
becomes of the child."""

from __future__ import annotations

import io
import os
import pickle
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from schemacite.sources.ahead import ReadAhead, _OwnClasses
from schemacite.sources.read import read_sql_file
from schemacite.sources.replay import Replay, read_ahead_pays

ROOT = Path(__file__).resolve().parents[1]

# runs the CLI as a user does (one thread, so it may fork) and says how often it forked
COUNTING = """
import os, sys
forks = []
real = os.fork
def fork():
    forks.append(1)
    return real()
os.fork = fork
from schemacite.cli import main
code = main(sys.argv[1:])
print(f"forks={len(forks)}", file=sys.stderr)
sys.exit(code)
"""


def _migrations(tmp_path: Path, count: int) -> Path:
    """A goose folder whose files build on each other, long enough to be read ahead."""
    folder = tmp_path / "migrations"
    folder.mkdir()
    for n in range(1, count + 1):
        body = [f"CREATE TABLE t{n} (id bigint PRIMARY KEY, note text, made timestamptz DEFAULT now());"]
        if n > 1:
            body.append(f"ALTER TABLE t{n - 1} ADD COLUMN t{n}_id bigint REFERENCES t{n} (id);")
            body.append(f"CREATE INDEX t{n - 1}_t{n} ON t{n - 1} (t{n}_id);")
            body.append(f"ALTER TABLE t{n - 1} ALTER COLUMN note SET NOT NULL;")
        body.append("-- " + "padding " * 400)  # the files must weigh enough to be worth a fork
        (folder / f"{n:05d}_step.up.sql").write_text("-- +goose Up\n" + "\n".join(body) + "\n")
    return folder


def _lint(*args: str, ahead: bool) -> tuple[str, str]:
    argv = ["lint", "--dialect", "postgres", "--output-format", "concise", "--no-cache", *args]
    if ahead:
        done = subprocess.run([sys.executable, "-c", COUNTING, *argv], capture_output=True, text=True)
    else:  # the same run in a process holding a second thread, which is never forked
        script = COUNTING.replace(
            "from schemacite.cli import main",
            "import threading\nthreading.Thread(target=threading.Event().wait, daemon=True).start()\n"
            "from schemacite.cli import main",
        )
        done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout, done.stderr


def test_a_run_read_ahead_finds_what_a_run_reading_alone_finds(tmp_path):
    folder = _migrations(tmp_path, 40)
    ahead_out, ahead_err = _lint(str(folder), ahead=True)
    alone_out, alone_err = _lint(str(folder), ahead=False)
    assert "forks=1" in ahead_err and "forks=0" in alone_err
    assert ahead_out == alone_out and ahead_out.count("\n") > 40  # findings, the same, in the same order


def test_a_benchmark_folder_read_ahead_finds_what_it_finds_alone(tmp_path):
    """bench/vs_squawk.py's 224 goose migrations: GitLab-like tables, indexes, keys, backfills."""
    sys.path.insert(0, str(ROOT / "bench"))
    from vs_squawk import make_goose

    make_goose(tmp_path / "goose", 224)
    ahead_out, ahead_err = _lint(str(tmp_path / "goose"), ahead=True)
    alone_out, _ = _lint(str(tmp_path / "goose"), ahead=False)
    assert "forks=1" in ahead_err
    assert ahead_out == alone_out and ahead_out.count("\n") > 100


def test_a_long_history_before_one_file_is_read_ahead(tmp_path):
    folder = _migrations(tmp_path, 40)
    newest = str(sorted(folder.iterdir())[-1])
    ahead_out, ahead_err = _lint("--history", str(folder), newest, ahead=True)
    alone_out, _ = _lint("--history", str(folder), newest, ahead=False)
    assert "forks=1" in ahead_err
    assert ahead_out == alone_out and "SC" in ahead_out


def test_few_or_small_files_are_parsed_here(tmp_path):
    folder = _migrations(tmp_path, 8)
    assert not read_ahead_pays(sorted(str(p) for p in folder.iterdir()))
    _, err = _lint(str(folder), ahead=True)
    assert "forks=0" in err


def _read(path: str):
    return read_sql_file(path, "postgres")


def _parses(ahead: ReadAhead, paths: list[str]):
    """What the replay gets for each path: the parse made ahead, else its own."""
    try:
        return [(ahead.take(p) or _read(p)) for p in paths]
    finally:
        ahead.close()


def _seen(parsed) -> list:
    return [(s.location.file, s.location.line, s.kind, s.sql) for p in parsed for s in p.statements]


def test_parses_come_back_in_replay_order_whoever_made_them(tmp_path):
    paths = sorted(str(p) for p in _migrations(tmp_path, 30).iterdir())
    alone = [_read(p) for p in paths]
    # this process checks nothing between files: it parses those the child has not reached
    parsed = _parses(ReadAhead(paths, _read), paths)
    assert _seen(parsed) == _seen(alone)
    order = [s.location.seq for p in parsed for s in p.statements]
    assert order == sorted(order) and len(set(order)) == len(order)  # replay order is the order taken


def test_the_child_parses_first_while_this_process_loads_what_it_needs(tmp_path):
    paths = sorted(str(p) for p in _migrations(tmp_path, 20).iterdir())
    here = os.getpid()

    def read(path: str):
        if os.getpid() != here and path == paths[0]:
            time.sleep(0.3)  # the child loading its parser
        (tmp_path / f"{Path(path).name}.{os.getpid()}").touch()
        return _read(path)

    loaded: list[int] = []
    parsed = _parses(ReadAhead(paths, read, meanwhile=lambda: loaded.append(os.getpid())), paths)
    assert _seen(parsed) == _seen([_read(p) for p in paths])
    assert loaded == [here]
    # this process took no turn before the child's first parse came: it would have loaded the parser too
    made_here = {m.name.rsplit(".", 1)[0] for m in tmp_path.glob(f"*.{here}")}
    assert Path(paths[0]).name not in made_here and Path(paths[1]).name not in made_here


def test_a_file_the_child_cannot_parse_or_send_is_parsed_here(tmp_path):
    paths = sorted(str(p) for p in _migrations(tmp_path, 20).iterdir())
    fails, unsendable = paths[3], paths[7]

    def read(path: str):
        if path == fails:
            raise RuntimeError("a reader's bug")
        parsed = _read(path)
        if path == unsendable:
            parsed.units = [lambda: None]  # pickle refuses a function made here
        return parsed

    ahead = ReadAhead(paths, read)
    try:
        time.sleep(0.5)  # the child gets through every file first
        assert ahead.take(fails) is None and ahead.take(unsendable) is None
        assert ahead.take(paths[0]).statements
    finally:
        ahead.close()


def test_a_child_that_dies_leaves_the_rest_to_this_process(tmp_path):
    paths = sorted(str(p) for p in _migrations(tmp_path, 20).iterdir())
    release = tmp_path / "go"

    def read(path: str):
        while not release.exists():  # the child waits until it is killed
            time.sleep(0.01)
        return _read(path)

    ahead = ReadAhead(paths, read)
    time.sleep(0.2)  # the child has claimed the first file
    os.kill(ahead.pid, signal.SIGKILL)
    release.touch()
    parsed = _parses(ahead, paths)
    assert _seen(parsed) == _seen([_read(p) for p in paths])


def _load(data: bytes):
    return _OwnClasses(io.BytesIO(data)).load()


def test_what_comes_through_the_pipe_builds_our_own_classes_only(tmp_path):
    """A parse round-trips whole; a stream naming any function, or a class of another package,
    is refused, so nothing a pipe carries could run code."""
    path = sorted(str(p) for p in _migrations(tmp_path, 2).iterdir())[-1]
    parsed = _read(path)
    again = _load(pickle.dumps((1, parsed), protocol=pickle.HIGHEST_PROTOCOL))[1]
    assert _seen([again]) == _seen([parsed]) and again.statements[1].op == parsed.statements[1].op

    class Runs:
        def __reduce__(self):
            return (os.system, ("true",))

    runs = pickle.dumps(Runs(), protocol=0)  # protocol 0 names globals as text: `cposix\nsystem\n`
    assert b"cposix\nsystem\n" in runs
    streams = [
        runs,
        pickle.dumps(Counter("ab")),
        runs.replace(b"cposix\nsystem\n", b"cschemacite.sources.read\nnext_seq\n"),  # a function of ours
        runs.replace(b"cposix\nsystem\n", b"cschemacite.lint.config\nPath\n"),  # pathlib's class, imported
    ]
    for stream in streams:
        with pytest.raises(pickle.UnpicklingError):
            _load(stream)


# what planning a replay decides, which a child that plans sends back
PLANNED = (
    "order",
    "reported",
    "reported_set",
    "errors",
    "skipped",
    "unlinted",
    "base_set",
    "framework",
    "framework_why",
)


def _steps(run: Replay) -> list:
    return [(s.statement.location.file, s.statement.location.line, s.statement.sql) for s in run.from_change()]


def _alike(run: Replay, alone: Replay) -> None:
    """The replay planned (and parsed) ahead decides and walks as the one made alone."""
    for name in PLANNED:
        assert getattr(run, name) == getattr(alone, name), name
    assert _steps(run) == _steps(alone)


def _planners(tmp_path: Path, monkeypatch, fail_in_child: bool = False) -> None:
    """Each process that plans a replay leaves a file named by its pid."""
    real = Replay._plan
    here = os.getpid()

    def plan(self, *args):
        (tmp_path / f"planned.{os.getpid()}").touch()
        if fail_in_child and os.getpid() != here:
            raise RuntimeError("a planning bug in the child")
        return real(self, *args)

    monkeypatch.setattr(Replay, "_plan", plan)


def test_a_run_over_a_folder_is_planned_by_the_child_while_this_process_loads(tmp_path, monkeypatch):
    folder = str(_migrations(tmp_path, 20))
    alone = Replay("postgres", [folder])
    _planners(tmp_path, monkeypatch)
    loaded: list[int] = []
    run = Replay("postgres", [folder], read_ahead=lambda: loaded.append(os.getpid()))
    try:
        assert loaded == [os.getpid()]
        planners = [int(p.name.split(".")[1]) for p in tmp_path.glob("planned.*")]
        assert planners and os.getpid() not in planners  # the child planned; this process did not
        _alike(run, alone)
    finally:
        run._stop_ahead()


def test_a_plan_that_fails_in_the_child_is_made_here(tmp_path, monkeypatch):
    folder = str(_migrations(tmp_path, 20))
    alone = Replay("postgres", [folder])
    _planners(tmp_path, monkeypatch, fail_in_child=True)
    run = Replay("postgres", [folder], read_ahead=True)
    try:
        assert (tmp_path / f"planned.{os.getpid()}").exists()
        _alike(run, alone)
    finally:
        run._stop_ahead()


def test_many_small_files_are_planned_ahead_but_parsed_here(tmp_path, monkeypatch):
    folder = tmp_path / "small"
    folder.mkdir()
    for n in range(1, 21):
        (folder / f"{n:05d}_t.up.sql").write_text(f"-- +goose Up\nCREATE TABLE t{n} (id bigint PRIMARY KEY);\n")
    alone = Replay("postgres", [str(folder)])
    _planners(tmp_path, monkeypatch)
    run = Replay("postgres", [str(folder)], read_ahead=True)
    assert run._ahead is None  # the child planned, found too little to parse, and is gone
    assert [p for p in tmp_path.glob("planned.*") if p.name != f"planned.{os.getpid()}"]
    _alike(run, alone)


def test_a_plan_comes_back_before_the_parses_it_lists(tmp_path):
    paths = sorted(str(p) for p in _migrations(tmp_path, 20).iterdir())
    ahead = ReadAhead(lambda: ({"listed": len(paths)}, paths), _read)
    try:
        assert ahead.plan() == {"listed": 20} and ahead.paths == paths
        assert _seen([ahead.take(p) for p in paths]) == _seen([_read(p) for p in paths])
    finally:
        ahead.close()
    failing = ReadAhead(lambda: 1 / 0, _read)
    try:
        assert failing.plan() is None and failing.paths == [] and failing.take(paths[0]) is None
    finally:
        failing.close()


def test_a_mistake_in_the_rules_settings_stops_a_run_that_forked(tmp_path):
    folder = _migrations(tmp_path, 20)
    (tmp_path / ".schemacite.toml").write_text('[rules.no-primary-key]\nseverity = "loud"\n')
    argv = ["lint", "--dialect", "postgres", "--no-cache", str(folder)]
    done = subprocess.run([sys.executable, "-c", COUNTING, *argv], capture_output=True, text=True, cwd=tmp_path)
    # the rules are built while the child plans: their mistake is still the usage error it was
    assert done.returncode == 2 and "forks=1" in done.stderr, done.stderr
    assert "rule no-primary-key: unknown severity 'loud'" in done.stderr and not done.stdout
