"""Which files a change touches, from git: `--since REV`; and which files are committed as they are
(`--fix` leaves those alone: a migration committed may have been deployed).

The change is everything that differs from where the branch left REV (their merge base):
commits since, staged and unstaged edits, and new files git does not ignore. git runs with
external diff drivers, text conversion and the fsmonitor hook off, so no program the
repository's attributes or settings name is started.
"""

from __future__ import annotations

import os
import subprocess

SAFE = ["-c", "core.fsmonitor=false", "-c", "diff.external="]


class GitError(ValueError):
    pass


def _git(root: str, *args: str) -> str:
    try:
        done = subprocess.run(["git", *SAFE, *args], cwd=root, capture_output=True, text=True, timeout=60, check=False)
    except FileNotFoundError:
        raise GitError("--since needs git, which is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took longer than 60 s") from None
    if done.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {done.stderr.strip() or 'failed'}")
    return done.stdout


def _unknown_revision(rev: str) -> str:
    """What to do when git does not know `rev`: in CI, most often a branch the checkout did not fetch."""
    hint = f"git fetch origin {rev.split('/', 1)[1]}" if rev.startswith("origin/") else f"git fetch origin {rev}"
    return (
        f"--since {rev}: git knows no such commit or branch here. A CI checkout often holds only the "
        f"branch it builds: fetch the base first ({hint}, or checkout with fetch-depth: 0), or name a "
        f"revision this clone has"
    )


def changed_since(rev: str, where: str = ".") -> tuple[set[str], str]:
    """(real paths of the files changed since `rev`, the commit they are compared with)."""
    if not rev or rev.startswith("-"):
        raise GitError(f"--since {rev!r}: not a revision")
    folder = where if os.path.isdir(where) else os.path.dirname(os.path.abspath(where)) or "."
    root = _git(folder, "rev-parse", "--show-toplevel").strip()
    try:
        base = _git(root, "merge-base", rev, "HEAD").strip()
    except GitError:
        try:
            base = _git(root, "rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}").strip()
        except GitError:
            raise GitError(_unknown_revision(rev)) from None
    names = _git(root, "diff", "--name-only", "--no-ext-diff", "--no-textconv", "-z", base, "--").split("\0")
    names += _git(root, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
    return {os.path.realpath(os.path.join(root, n)) for n in names if n}, base[:12]


def committed(files: list[str]) -> set[str]:
    """Real paths of those of `files` that git holds as committed and unchanged since (neither
    staged nor edited); none for files in no git work tree, or when git is missing."""
    trees: dict[str, set[str]] = {}  # work tree root -> its committed, unchanged files
    outside: set[str] = set()  # folders in no work tree
    out = set()
    for f in files:
        real = os.path.realpath(f)
        folder = os.path.dirname(real)
        root = max((r for r in trees if real.startswith(r + os.sep)), key=len, default=None)
        if root is None and folder not in outside:
            try:
                root = os.path.realpath(_git(folder, "rev-parse", "--show-toplevel").strip())
            except GitError:
                outside.add(folder)
                continue
            trees[root] = _unchanged(root)
        if root is not None and real in trees[root]:
            out.add(real)
    return out


def _unchanged(root: str) -> set[str]:
    """The files of HEAD's tree that the index and the work tree still hold as they are there."""
    try:
        held = _git(root, "ls-tree", "-r", "-z", "--name-only", "--full-tree", "HEAD").split("\0")
    except GitError:
        return set()  # no commit yet: nothing is committed
    changed = set(_git(root, "diff", "--name-only", "--no-ext-diff", "--no-textconv", "-z", "HEAD", "--").split("\0"))
    return {os.path.realpath(os.path.join(root, n)) for n in held if n and n not in changed}
