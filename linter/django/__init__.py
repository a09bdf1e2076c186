"""schemacite inside a Django project: add "schemacite.django" to INSTALLED_APPS and run
`python manage.py schemacite`. It lints the SQL Django's own schema editor writes for the
migrations (as `sqlmigrate` prints it), each earlier migration replayed as history, findings
pointing at the migration's file and the line of the operation that made the statement.

This runs inside the user's own Django process, started by the user, as `migrate` and
`sqlmigrate` do: it imports the project's settings and migrations. `schemacite lint` never does.
"""
