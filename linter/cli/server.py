"""`schemacite server`: the language server, on standard input and output."""

from __future__ import annotations

import argparse
import logging
import sys

INSTALL = "pip install 'pygls>=2,<3' lsprotocol (in a checkout: pip install '.[lsp]')"


def cmd_server(args: argparse.Namespace) -> int:
    # start-up: only `schemacite server` needs the language server and its packages
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("pygls")
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except (ImportError, PackageNotFoundError):
        print(f"schemacite: error: the language server needs pygls 2 and lsprotocol: {INSTALL}", file=sys.stderr)
        return 2
    if int(found.split(".")[0]) != 2:
        print(f"schemacite: error: the language server needs pygls 2 (found {found}): {INSTALL}", file=sys.stderr)
        return 2

    # the protocol owns standard output: everything else goes to standard error, which editors log
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="schemacite server: %(message)s")
    # start-up: only `schemacite server` needs the language server and its packages
    from schemacite.server.protocol import serve

    serve()
    return 0
