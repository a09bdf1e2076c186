"""The project's own habits, run with the tests so CI keeps them: ruff (lint and format) over the
code, mypy strict on the model, the statement contract and the rule API; CI runs the README's test
command."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = ["linter", "rules", "tests", "bench"]


def _tool(name: str) -> str:
    found = shutil.which(name, path=os.path.dirname(sys.executable)) or shutil.which(name)
    assert found, f"{name} is not installed: pip install -e '.[test]'"
    return found


def test_ruff_finds_nothing():
    run = subprocess.run([_tool("ruff"), "check", *CODE], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_code_is_formatted():
    run = subprocess.run([_tool("ruff"), "format", "--check", *CODE], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy_strict_on_the_model_and_rule_api(tmp_path):
    # the package's import name is not its folder's (linter/ is schemacite): give mypy the name
    (tmp_path / "schemacite").symlink_to(ROOT / "linter")
    env = {**os.environ, "MYPYPATH": str(tmp_path)}
    run = subprocess.run(
        [
            _tool("mypy"),
            "--config-file",
            "pyproject.toml",
            "--cache-dir",
            str(tmp_path / "cache"),
            "-p",
            "schemacite.model",
            "-m",
            "schemacite.lint.rule",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_ci_runs_the_readmes_test_command():
    """.ci/run ends with the README's test command and installs the same system packages first."""
    readme = (ROOT / "README.md").read_text()
    (command,) = [block for block in re.findall(r"```sh\n(.*?)\n```", readme, re.S) if "python -m pytest" in block]
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.rstrip().splitlines()[-1] == command
    packages = re.search(r"apt-get install -y --no-upgrade ([^&]+)&&", command).group(1).split()
    assert re.search(r'pkgs="([^"]+)"', ci).group(1).split() == packages
    assert {"mariadb-server", "postgresql", "chromium", "chromium-driver"} <= set(packages)
