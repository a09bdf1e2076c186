"""schemacite: an evidence-backed schema linter for MySQL, MariaDB and PostgreSQL."""

from __future__ import annotations

import pluggy

__version__ = "0.2.0"

hookimpl = pluggy.HookimplMarker("schemacite")


def lint_paths(paths, **options):
    """Lint SQL files (paths: files, folders or globs) and return a LintResult."""
    from schemacite.lint.engine import lint_paths as _lint_paths

    return _lint_paths(paths, **options)
