"""What msgspec would buy the model, the parse cache and the evidence catalogue, measured.

schemacite's model is some 170 `@record` classes (msgspec Structs declared as dataclasses are,
model/record.py) read back by a hand-written codec (model/codec.py) from the parse cache, snapshots
and the evidence files. msgspec defines classes and decodes typed data in C. Four figures say what
it buys, each the best of N repeats in one process:

1. defining the classes: the model's record classes made again as `@record` (a Struct, with what
   a record adds to one), as plain `@dataclass` and as a bare `msgspec.Struct` (`defstruct`), same
   names, fields and defaults;
2. reading a parse-cache entry: a whole cached file (the 448 kB structure.sql of
   bench/vs_squawk.py, or any SQL file given) decoded by the codec, against `json.loads` of the
   same text, which is the floor a C decoder of typed JSON can reach (msgspec itself cannot read
   today's entries: their unions of records would need Struct tags, a new entry format);
3. reading a history state (the warm pre-commit run's largest read): the codec's JSON, as the
   cache kept it before, against msgspec's typed MessagePack, as it keeps it now;
4. the evidence catalogue: its records decoded and checked by the codec, against
   `msgspec.convert` into the same `Evidence` record (types only: the catalogue's own checks,
   the words in a quote, dates, figures that go together, are Python either way, and are left out
   of msgspec's figure, which flatters it).

    python bench/msgspec_model.py [--sql FILE] [--repeat 20]
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import msgspec

from schemacite.model.codec import Codec
from schemacite.model.record import MISSING, fields, is_record, record
from schemacite.model.schema import Location

MODEL_MODULES = ("schemacite.model.schema", "schemacite.model.statements", "schemacite.model.results")


def best(fn, repeat: int) -> float:
    """The fastest of `repeat` runs, in ms."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def model_classes() -> list[type]:
    out = []
    for name in MODEL_MODULES:
        module = importlib.import_module(name)
        out += [c for c in vars(module).values() if isinstance(c, type) and is_record(c) and c.__module__ == name]
    return out


def _shape(cls: type) -> list[tuple[str, object]]:
    """(name, default or MISSING) of each field, defaults as given (a factory stays a factory)."""
    out = []
    for f in fields(cls):
        if f.default is not MISSING:
            out.append((f.name, f.default))
        elif f.default_factory is not MISSING:
            out.append((f.name, f.default_factory))
        else:
            out.append((f.name, MISSING))
    # a field with a default cannot come before one without in a plain class body
    return sorted(out, key=lambda nd: nd[1] is not MISSING)


def define(classes: list[type], how: str) -> None:
    for cls in classes:
        shape = _shape(cls)
        if how == "msgspec":
            fields = [
                (n, object) if d is MISSING else (n, object, msgspec.field(default_factory=d) if callable(d) else d)
                for n, d in shape
            ]
            msgspec.defstruct(cls.__name__, fields)
            continue
        body: dict[str, object] = {"__annotations__": {n: "object" for n, _ in shape}}
        for n, d in shape:
            if d is not MISSING:
                body[n] = dataclasses.field(default_factory=d) if callable(d) else d
        made = type(cls.__name__, (), body)
        (record if how == "record" else dataclasses.dataclass)(made)


def cache_figures(sql: Path, repeat: int) -> tuple[float, float, int]:
    """(codec ms, json.loads ms, bytes) for the parse-cache entry `schemacite lint` writes for `sql`."""
    import subprocess

    from schemacite.sources import cache

    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [sys.executable, "-m", "schemacite.cli", "lint", "--dialect", "postgres", "--exit-zero", str(sql)],
            env={**os.environ, "SCHEMACITE_CACHE_DIR": folder},
            capture_output=True,
            check=True,
        )
        entries = sorted((Path(folder) / "parse").rglob("*.json"), key=lambda p: p.stat().st_size)
        if not entries:
            sys.exit(f"the parse cache kept nothing for {sql} (larger than cache.LARGEST?)")
        text = entries[-1].read_text()
    codec_ms = best(lambda: cache._codec().decode(json.loads(text)["file"], cache.ParsedFile), repeat)
    return codec_ms, best(lambda: json.loads(text), repeat), len(text)


def state_figures(repeat: int) -> tuple[float, float, int, int]:
    """(codec ms from JSON, msgspec ms from MessagePack, JSON bytes, MessagePack bytes) for the
    history state of bench/vs_squawk.py's 223 goose migrations, the warm pre-commit run's largest
    read: the same state stored both ways."""
    import subprocess

    from schemacite.sources import cache

    sys.path.insert(0, str(Path(__file__).parent))
    from vs_squawk import make_goose

    with tempfile.TemporaryDirectory() as folder:
        goose = Path(folder) / "goose"
        make_goose(goose, 224)
        newest = max(str(p) for p in goose.glob("*.sql"))
        subprocess.run(
            [sys.executable, "-m", "schemacite.cli", "lint", "--dialect", "postgres", "--exit-zero"]
            + ["--history", str(goose), newest],
            env={**os.environ, "SCHEMACITE_CACHE_DIR": str(Path(folder) / "cache")},
            capture_output=True,
            check=True,
        )
        (entry,) = (Path(folder) / "cache" / "state").rglob("*.msgpack")
        blob = entry.read_bytes()
    state = cache._state_decoder().decode(blob).state
    # the parse cache's codec, with the state's own class, as the cache kept states before
    codec = Codec(
        (cache.HistoryState, *cache._codec().classes.values()),
        tagged=True,
        skip=("_lookup",),
        positional=(Location,),
    )
    text = json.dumps(codec.encode(state), separators=(",", ":"))
    codec_ms = best(lambda: codec.decode(json.loads(text), cache.HistoryState), repeat)
    msgspec_ms = best(lambda: cache._state_decoder().decode(blob), repeat)
    return codec_ms, msgspec_ms, len(text), len(blob)


def evidence_figures(repeat: int) -> tuple[float, float, int]:
    from schemacite import evidence

    raws = []
    for name in evidence.BUILTIN_FILES:
        path = Path(evidence.__file__).with_name(name)
        raws += evidence._jsonable(evidence._toml(path.read_bytes(), name)).get("evidence", [])
    codec = evidence._codec()
    codec_ms = best(lambda: [codec.decode(r, evidence._RECORD) for r in raws], repeat)
    # msgspec reads the field by its own name, and a quote given alone as a one-item list
    plain = [
        {
            **{k: v for k, v in r.items() if k != "quote"},
            "quotes": [r["quote"]] if isinstance(r.get("quote"), str) else r.get("quote", []),
        }
        for r in raws
    ]
    msgspec_ms = best(lambda: [msgspec.convert(r, evidence.Evidence) for r in plain], repeat)
    return codec_ms, msgspec_ms, len(raws)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sql", type=Path, help="a SQL file to cache (default: bench/vs_squawk.py's structure.sql)")
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    classes = model_classes()
    print(f"msgspec {msgspec.__version__}; best of {args.repeat}, ms")
    print(f"1. define the model's {len(classes)} classes:")
    for how in ("record", "dataclass", "msgspec"):
        print(f"   {how:<10} {best(lambda how=how: define(classes, how), args.repeat):8.2f}")
    sql = args.sql
    if sql is None:
        sys.path.insert(0, str(Path(__file__).parent))
        from vs_squawk import make_structure

        sql = Path(tempfile.mkdtemp()) / "structure.sql"
        make_structure(sql, 400)
    codec_ms, json_ms, size = cache_figures(sql, args.repeat)
    print(f"2. read one parse-cache entry ({size / 1000:.0f} kB of JSON, {sql.name}):")
    print(f"   codec      {codec_ms:8.2f}\n   json.loads {json_ms:8.2f}  (the floor for any decoder of the text)")
    codec_ms, msgspec_ms, size, packed = state_figures(args.repeat)
    print("3. read one history state (223 goose migrations), as the cache keeps it since msgspec:")
    print(f"   codec      {codec_ms:8.2f}  (JSON, {size / 1000:.0f} kB: what the cache kept before)")
    print(f"   msgspec    {msgspec_ms:8.2f}  (MessagePack, {packed / 1000:.0f} kB, typed)")
    codec_ms, msgspec_ms, n = evidence_figures(args.repeat)
    print(f"4. decode the evidence catalogue's {n} records:")
    print(f"   codec      {codec_ms:8.2f}  (types and the catalogue's own checks)")
    print(f"   msgspec    {msgspec_ms:8.2f}  (types only)")


if __name__ == "__main__":
    main()
