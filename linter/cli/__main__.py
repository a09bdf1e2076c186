from schemacite.cli import run

run()
