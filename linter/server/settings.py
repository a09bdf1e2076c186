"""The server's settings, as an editor sends them: `initializationOptions` at start, then the
`schemacite` section of `workspace/configuration` (pulled at start and on every
`workspace/didChangeConfiguration`), each on top of the one before.

Keys are taken in any of the spellings editors use (`debounceMs`, `debounce_ms`, `debounce-ms`);
what the project's config file says stays in force unless a setting names it.
"""

from __future__ import annotations

import re
from dataclasses import field
from typing import Any

from schemacite.model.record import record, replace

DEBOUNCE_MS = 200  # after the last keystroke: long enough to skip the ones in between, short enough to feel live
SECTION = "schemacite"


@record(frozen=True)
class Settings:
    config: str | None = None  # pyproject.toml or .schemacite.toml (default: the nearest one to each file)
    dialect: str | None = None
    target: str | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    debounce_ms: int = DEBOUNCE_MS
    problems: tuple[str, ...] = field(default=(), compare=False)  # what was not understood, for the log

    def overrides(self) -> dict[str, Any]:
        """The config-file keys these settings replace, as `load_config` takes them."""
        return {
            "dialect": self.dialect,
            "target": self.target,
            "select": list(self.select),
            "disable": list(self.ignore),
        }

    def merged(self, raw: Any) -> Settings:
        """These settings with `raw` (a client's JSON object) on top."""
        if raw is None:
            return self
        if not isinstance(raw, dict):
            return replace(self, problems=(f"settings must be an object, not {type(raw).__name__}",))
        raw = raw.get(SECTION, raw) if isinstance(raw.get(SECTION), dict) else raw
        changes: dict[str, Any] = {}
        problems = []
        for key, value in raw.items():
            name = ALIASES.get(re.sub(r"[-_]", "", str(key)).lower())
            if name is None:
                problems.append(f"unknown setting {key!r} (known: {', '.join(KNOWN)})")
                continue
            try:
                changes[name] = PARSE[name](value)
            except ValueError as e:
                problems.append(f"setting {key!r}: {e}")
        return replace(self, **changes, problems=tuple(problems))


def _text(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError("must be a string")
    return value


def _rules(value: Any) -> tuple[str, ...]:
    """A list of rule names, codes or prefixes, or one comma-separated string."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("must be a list of rule names or codes, or a comma-separated string")
    return tuple(v.strip() for v in value if v.strip())


def _milliseconds(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError("must be a number of milliseconds >= 0")
    return int(value)


PARSE = {
    "config": _text,
    "dialect": _text,
    "target": _text,
    "select": _rules,
    "ignore": _rules,
    "debounce_ms": _milliseconds,
}
KNOWN = ("config", "dialect", "target", "select", "ignore", "debounceMs")
ALIASES = {
    "config": "config",
    "configpath": "config",
    "configfile": "config",
    "dialect": "dialect",
    "target": "target",
    "select": "select",
    "ignore": "ignore",
    "disable": "ignore",
    "debouncems": "debounce_ms",
    "debounce": "debounce_ms",
}
