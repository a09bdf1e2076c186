"""Run the command line in-process, as the tests do: (exit code, stdout, stderr)."""

from __future__ import annotations

import io
import sys

from schemacite.cli import main


def run(capsys, *args, stdin: bytes | None = None, monkeypatch=None) -> tuple[int, str, str]:
    """`schemacite ARGS`; with `stdin`, those bytes are standard input (needs `monkeypatch`)."""
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err
