"""`makemigrations` that advises: once Django has written new migrations, schemacite's findings
for them (`--no-schemacite` skips it). The findings are advice: makemigrations still succeeds."""

from __future__ import annotations

from django.core.management.commands.makemigrations import Command as MakeMigrations

from schemacite.django.management.commands.schemacite import Command as Lint


class Command(MakeMigrations):
    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--no-schemacite", action="store_true", help="do not lint the new migrations")

    def handle(self, *app_labels, **options):
        super().handle(*app_labels, **options)
        written = getattr(self, "written_files", [])
        if written and not options["no_schemacite"] and not options.get("dry_run"):
            Lint(stdout=self.stdout, stderr=self.stderr).advise(written)
