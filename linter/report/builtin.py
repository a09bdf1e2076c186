"""The built-in output formats, imported only when asked for (start-up time matters to
pre-commit): one hook implementation names them all and another answers for each, the shape a
third-party format uses too."""

from __future__ import annotations

import importlib

from schemacite import hookimpl

# name -> (the reporter, as "module:class"; what it writes, for --help and the README)
FORMATS = {
    "full": (
        "schemacite.report.text:TextReporter",
        "the default: each finding with its statement and fix, then the evidence per rule and the summary",
    ),
    "text": ("schemacite.report.text:TextReporter", "`full` by the name it had before 0.3, still taken"),
    "concise": (
        "schemacite.report.concise:ConciseReporter",
        "one line per finding, ruff's shape: `migrations/001.sql:3:1: SC101 [warning] Table events has no "
        "primary key` (`SC101 [*]` when its fix applies safely)",
    ),
    "json": (
        "schemacite.report.json:JsonReporter",
        "every finding whole (its fix too), the input errors, each evidence record cited (short, once), and the "
        "framework, dialect and target with what chose each",
    ),
    "sarif": (
        "schemacite.report.sarif:SarifReporter",
        "SARIF 2.1.0 for GitHub code scanning: the rules that produced a result carry their documentation and "
        "the ids of the evidence their results cite, `properties.evidence` holds each of those records once, "
        "short, and each result a line-independent fingerprint",
    ),
    "github": ("schemacite.report.github:GithubReporter", "workflow commands that annotate the pull request diff"),
    "gitlab": ("schemacite.report.gitlab:GitlabReporter", "a GitLab Code Quality report"),
    "junit": (
        "schemacite.report.junit:JunitReporter",
        "JUnit XML, one test case per finding: a failure at warning or error, a passing case carrying the finding "
        "as properties at info",
    ),
    "html": (
        "schemacite.report.html:HtmlReporter",
        "one self-contained page with plots, for people (see Auditing a live server)",
    ),
}


@hookimpl(trylast=True)
def schemacite_formats():
    return {name: what for name, (_, what) in FORMATS.items()}


@hookimpl(trylast=True)
def schemacite_reporter(format):
    spec = FORMATS.get(format)
    if spec is None:
        return None
    module, name = spec[0].split(":")
    return getattr(importlib.import_module(module), name)
