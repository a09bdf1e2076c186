"""schemacite: an evidence-backed schema linter for MySQL, MariaDB and PostgreSQL."""

from __future__ import annotations

import gc

# loading makes many objects and no cycle worth collecting: the collector waits until the package
# is loaded (a millisecond of a command's start), then runs as the importing program had it
_threshold = gc.get_threshold()
gc.set_threshold(50_000, 20, 100)

import pluggy  # noqa: E402 (after the collector's setting)

gc.set_threshold(*_threshold)

__version__ = "0.2.0"

hookimpl = pluggy.HookimplMarker("schemacite")


def lint_paths(paths, **options):
    """Lint SQL files (paths: files, folders or globs) and return a LintResult: the project they
    belong to is resolved as every door resolves it (`schemacite.lint.project`)."""
    # not at the top: the engine imports this package (__version__, hookimpl), and `import schemacite` stays cheap
    from schemacite.lint.project import lint_paths as _lint_paths

    return _lint_paths(paths, **options)
