"""Where files may come from: a repository's files stay inside it.

A pull request controls every file of its checkout, symbolic links included. A link from
`migrations/x.sql` to `~/.pgpass`, an include of `/etc/...` or a config `history` pointing out of
the tree would make a CI job read, and quote in its error messages, files the pull request
does not own. So inside a git work tree, every file schemacite reads on a repository's behalf
(SQL files, their includes, paths a config file names) must resolve inside that work tree.
Outside any work tree nothing is confined: the user named the files themselves.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path


@functools.lru_cache(maxsize=256)
def _root_of(folder: str) -> str | None:
    for candidate in [folder, *map(str, Path(folder).parents)]:
        if os.path.exists(os.path.join(candidate, ".git")):
            return candidate
    return None


def repository_root(path: str | os.PathLike) -> str | None:
    """The git work tree holding `path` (as written, links not followed), if any."""
    return _root_of(os.path.dirname(os.path.abspath(path)) if not os.path.isdir(path) else os.path.abspath(path))


def escapes(path: str | os.PathLike, root: str | None = None) -> str | None:
    """Why reading `path` would leave the repository it belongs to (or `root`), else None."""
    root = root or repository_root(path)
    if root is None:
        return None
    try:
        real = os.path.realpath(path)
    except (OSError, RuntimeError):
        return None  # a loop: reading it fails with its own error
    real_root = os.path.realpath(root)
    if real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep):
        return None
    return f"resolves to {real}, outside the repository {root}: not read"
