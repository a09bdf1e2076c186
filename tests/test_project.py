"""The project's own habits, run with the tests so CI keeps them: ruff (lint and format) over the
code, mypy strict on the model, the statement contract and the rule API, no dead code (vulture),
imports that keep to the layers (import-linter); CI runs the README's test command."""

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


def test_no_dead_code():
    # names used only by name (hooks, handlers, plugin methods) are listed, each with its reason, in the allow-list
    run = subprocess.run(
        [_tool("vulture"), "linter", "rules", "tests/vulture_allowlist.py", "--min-confidence", "60"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, (
        "unused code (remove it, or list it with its reason in tests/vulture_allowlist.py):\n"
        + (run.stdout + run.stderr)
    )


def test_imports_keep_to_the_layers(tmp_path):
    # import-linter reads the package from disk under its import name: lay out a copy as installed
    # (linter/ is schemacite, rules/ is schemacite.rules); the contracts are in pyproject.toml
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "linter", tmp_path / "schemacite", ignore=skip)
    shutil.copytree(ROOT / "rules", tmp_path / "schemacite" / "rules", ignore=skip)
    run = subprocess.run(
        [_tool("lint-imports"), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout and "2 kept" in run.stdout, run.stdout


def test_ci_runs_the_readmes_test_command():
    """.ci/run ends with the README's test command and installs the same system packages first."""
    readme = (ROOT / "README.md").read_text()
    (command,) = [block for block in re.findall(r"```sh\n(.*?)\n```", readme, re.S) if "python -m pytest" in block]
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.rstrip().splitlines()[-1] == command
    packages = re.search(r"apt-get install -y --no-upgrade ([^&]+)&&", command).group(1).split()
    assert re.search(r'pkgs="([^"]+)"', ci).group(1).split() == packages
    assert {"mariadb-server", "postgresql", "chromium", "chromium-driver"} <= set(packages)
