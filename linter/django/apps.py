from django.apps import AppConfig


class SchemaciteConfig(AppConfig):
    name = "schemacite.django"
    label = "schemacite"
    verbose_name = "schemacite"
