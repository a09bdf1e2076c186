"""The terminal's width, for the CLI's help and the text report."""

from __future__ import annotations

import os
import sys


def columns() -> int:
    """The terminal's width as shutil.get_terminal_size finds it ($COLUMNS, else the terminal on
    standard output, else 80). Not shutil's own: importing shutil brings its archive modules
    (bz2, lzma, zlib), 2-3 ms of a pre-commit run's start-up, for this one call."""
    try:
        wanted = int(os.environ["COLUMNS"])
        if wanted > 0:
            return wanted
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80
