"""PostgreSQL's parser (pglast's `parser` module) without the two pglast modules the reader never
uses, loaded only if something asks for them.

The reader takes PostgreSQL's parse trees as JSON (`parse_sql_json`) and scans with `split` and
`scan`; none of these touches `pglast.ast` (a Python class per parse node) or `pglast.enums`
(a Python IntEnum per PostgreSQL enumeration), yet the extension imports both when it loads, and
building those classes took 22 ms of a 150 ms cold start (measured: `from pglast import parser`,
34 ms with them, 11.5 ms without). Each is put in `sys.modules` as an empty module of its own
name and spec that runs its real code on the first attribute asked of it, so any caller that does
use them (`pglast.parse_sql`, `pglast.enums.X`) gets the real modules, only later.
"""

from __future__ import annotations

import sys
import types
from importlib.machinery import ModuleSpec, PathFinder, SourceFileLoader
from pathlib import Path

_DEFERRED = (("ast", "ast.py"), ("enums", "enums/__init__.py"))


class _LoadsOnFirstUse(types.ModuleType):
    def __getattr__(self, name: str) -> object:
        # only names the module does not hold yet come here: its own code has not run
        self.__class__ = types.ModuleType
        self.__spec__.loader.exec_module(self)  # type: ignore[union-attr]
        return getattr(self, name)


def _defer(package: Path) -> None:
    for name, file in _DEFERRED:
        full = f"pglast.{name}"
        path = package / file
        if full in sys.modules or not path.is_file():
            continue  # already loaded, or a pglast laid out otherwise: imported as pglast does
        spec = ModuleSpec(full, SourceFileLoader(full, str(path)), origin=str(path))
        attributes = {"__spec__": spec, "__loader__": spec.loader, "__file__": str(path), "__package__": "pglast"}
        if path.name == "__init__.py":
            spec.submodule_search_locations = [str(path.parent)]
            attributes.update(__path__=spec.submodule_search_locations, __package__=full)
        module = _LoadsOnFirstUse(full)
        for key, value in attributes.items():
            setattr(module, key, value)
        sys.modules[full] = module


if "pglast" not in sys.modules:
    _found = PathFinder.find_spec("pglast")
    if _found is not None and _found.origin:
        _defer(Path(_found.origin).parent)

import pglast  # noqa: E402  (after the deferral, which must come first)
from pglast import parser as pg  # noqa: E402
from pglast.keywords import RESERVED_KEYWORDS, TYPE_FUNC_NAME_KEYWORDS  # noqa: E402

for _name, _ in _DEFERRED:  # as an import would have bound them on the package
    setattr(pglast, _name, sys.modules[f"pglast.{_name}"])

# the words PostgreSQL takes as a table, column or constraint name only when quoted
RESERVED_WORDS = frozenset(RESERVED_KEYWORDS | TYPE_FUNC_NAME_KEYWORDS)
ParseError = pg.ParseError
parse_sql_json = pg.parse_sql_json
scan = pg.scan
split = pg.split
