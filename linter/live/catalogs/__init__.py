"""Read-only readers of live server catalogs, one module per server family."""

from __future__ import annotations


class NothingToRead(Exception):
    """The schemas or database asked for do not exist, or the account cannot see them."""
