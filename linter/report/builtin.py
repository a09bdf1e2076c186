"""The built-in output formats, imported only when asked for (start-up time matters to
pre-commit): one hook implementation answers for all of them, the shape a third-party format
would use."""

from __future__ import annotations

import importlib

from schemacite import hookimpl

FORMATS = {
    "full": "schemacite.report.text:TextReporter",
    "text": "schemacite.report.text:TextReporter",  # the name before 0.3
    "concise": "schemacite.report.concise:ConciseReporter",
    "json": "schemacite.report.json:JsonReporter",
    "sarif": "schemacite.report.sarif:SarifReporter",
    "github": "schemacite.report.github:GithubReporter",
    "gitlab": "schemacite.report.gitlab:GitlabReporter",
    "junit": "schemacite.report.junit:JunitReporter",
    "html": "schemacite.report.html:HtmlReporter",
}


@hookimpl(trylast=True)
def schemacite_reporter(format):
    spec = FORMATS.get(format)
    if spec is None:
        return None
    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)
