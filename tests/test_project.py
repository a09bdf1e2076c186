"""The project's own habits, run with the tests so CI keeps them: ruff (lint and format) over the
code, mypy strict on the model, lint/ and locks/, no dead code (vulture, and the module-private
names it does not look at), imports that keep to the layers (import-linter), no function-local
import without a comment saying why, classes made with `@record`; CI runs the README's test command."""

from __future__ import annotations

import ast
import io
import os
import re
import shutil
import subprocess
import sys
import tokenize
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


def test_mypy_strict_on_the_model_lint_and_locks(tmp_path):
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
            "-p",
            "schemacite.lint",
            "-p",
            "schemacite.locks",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_no_dead_code(tmp_path):
    # names used only by name (hooks, handlers, plugin methods) are listed, each with its reason, in the
    # allow-list; the built-in rule classes are named by rules/index.py's strings, read here
    from schemacite.rules.index import RULES

    named = tmp_path / "indexed_rules.py"
    named.write_text("_ = ...\n" + "".join(f"_.{target.split(':')[1]}\n" for *_, target in RULES))
    run = subprocess.run(
        [_tool("vulture"), "linter", "rules", "tests/vulture_allowlist.py", str(named), "--min-confidence", "60"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, (
        "unused code (remove it, or list it with its reason in tests/vulture_allowlist.py):\n"
        + (run.stdout + run.stderr)
    )


def _unread_private_names(source: str) -> list[tuple[int, str]]:
    """Module-level `_names` assigned and never read in their module, the one place a private
    name is read: vulture takes any name that starts with one underscore for one meant to go
    unused, and never reports them."""
    tree = ast.parse(source)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    read |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    found = []
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        found += [
            (node.lineno, t.id)
            for t in targets
            if isinstance(t, ast.Name) and t.id.startswith("_") and not t.id.startswith("__") and t.id not in read
        ]
    return found


def test_no_unread_private_names():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for folder in ("linter", "rules")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, name in _unread_private_names(path.read_text(encoding="utf-8"))
    ]
    assert not found, "module-level private names nothing reads (vulture does not see them):\n" + "\n".join(found)


def test_the_private_name_check_reads_loads_not_stores():
    source = "_A = 1\n_B: int = 2\n_C = _B\n__all__ = []\nx._D = 3\n\n\ndef f():\n    _E = 4\n    return _C\n"
    assert _unread_private_names(source) == [(1, "_A")]


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
    assert "0 broken" in run.stdout and "3 kept" in run.stdout, run.stdout


def _unexplained_local_imports(source: str) -> list[int]:
    """Lines of imports inside a function with no comment saying why: a comment on the import's own
    lines or on the line above, or above the run of imports it belongs to."""
    comments = {
        t.start[0] for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT
    }
    lines = source.splitlines()
    imports = {
        node.lineno: node
        for fn in ast.walk(ast.parse(source))
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(fn)
        if isinstance(node, (ast.Import, ast.ImportFrom))
    }
    ends = {node.end_lineno: node.lineno for node in imports.values()}

    def explained(line: int) -> bool:
        node = imports[line]
        if any(n in comments for n in range(node.lineno, node.end_lineno + 1)):
            return True
        above = line - 1
        if above in comments and lines[above - 1].lstrip().startswith("#"):
            return True
        return above in ends and explained(ends[above])  # one comment over a run of imports

    return sorted(line for line in imports if not explained(line))


def test_function_local_imports_say_why():
    """An import inside a function hides a dependency from the reader and from the layer contract's
    eye at the top of the file: each says why it is not at the top (start-up cost, a cycle, an
    optional dependency)."""
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for folder in ("linter", "rules")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line in _unexplained_local_imports(path.read_text(encoding="utf-8"))
    ]
    assert not found, "function-local imports without a comment saying why:\n" + "\n".join(found)


def test_classes_are_records():
    """`@record` makes a class as `@dataclass` does at a fraction of the start-up cost; only a module
    that must stay light (pytest loads the plugin in every session) or defines it may use dataclass."""
    allowed = {ROOT / "linter" / "model" / "record.py", ROOT / "linter" / "pytest_plugin.py"}
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for folder in ("linter", "rules")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path not in allowed
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
        for d in node.decorator_list
        if "dataclass" in ast.unparse(d)
    ]
    assert not found, "classes made with @dataclass (use schemacite.model.record.record):\n" + "\n".join(found)


def test_the_local_import_check_reads_comments_not_code():
    source = (
        "def f():\n"
        "    import json\n"  # no comment: found
        "    s = '# not a comment'\n"
        "    import re\n"  # the line above holds a string, not a comment: found
        "    # start-up: only here\n"
        "    from a import (\n"
        "        b,\n"
        "    )\n"
        "    import c\n"  # in the run the comment above covers
        "    import d  # optional dependency\n"
    )
    assert _unexplained_local_imports(source) == [2, 4]


def test_ci_runs_the_readmes_test_command():
    """.ci/run ends with the README's test command and installs the same system packages first."""
    readme = (ROOT / "README.md").read_text()
    (command,) = [block for block in re.findall(r"```sh\n(.*?)\n```", readme, re.S) if "python -m pytest" in block]
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.rstrip().splitlines()[-1] == command
    packages = re.search(r"apt-get install -y --no-upgrade ([^&]+)&&", command).group(1).split()
    assert re.search(r'pkgs="([^"]+)"', ci).group(1).split() == packages
    assert {"mariadb-server", "postgresql", "chromium", "chromium-driver"} <= set(packages)


def test_the_readme_pins_only_what_the_repository_holds():
    """Every `rev:` and `@ref` of schemacite the README shows names a commit or tag this clone has:
    tags do not travel with a copy of the repository, so a pinned release tag would fail to check out."""
    readme = (ROOT / "README.md").read_text()
    pins = set(re.findall(r"\brev: (\S+)", readme)) | set(re.findall(r"schemacite/schemacite@([\w.-]+)", readme))
    assert pins, "the README shows no pinned schemacite"
    for ref in sorted(pins):
        found = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], cwd=ROOT, capture_output=True
        )
        assert found.returncode == 0, f"the README pins {ref}, which this repository does not hold"
