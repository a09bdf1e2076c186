"""Names vulture cannot see in use, each with the reason: tests/test_project.py hands this file to
vulture beside linter/ and rules/. Never imported; a name is 'used' here by being read below."""

from types import SimpleNamespace

_ = SimpleNamespace()

_ = (  # vulture takes `_` for a name meant to go unused
    # the engine calls whichever of these a rule defines, found by name (Rule.defines)
    _.check_table,
    _.check_statement,
    _.check_suppression,
    _.combine,
    # top-level settings a rule's options take by name (Option.setting, read in engine.build_rules)
    _.max_secondary_indexes,
    _.infer_insert_heavy,
    # the subcommands, imported by module and function name when run (cli/__init__.py COMMANDS)
    _.cmd_audit,
    _.cmd_snapshot,
    _.cmd_evidence,
    _.cmd_lint,
    _.cmd_plugins,
    _.cmd_alembic,
    _.cmd_locks,
    _.cmd_rehearse,
    _.cmd_rules,
    _.cmd_server,
    # the language server's handlers, registered with pygls by their @server.feature decorators
    _.initialize,
    _.initialized,
    _.configuration_changed,
    _.did_open,
    _.did_change,
    _.did_save,
    _.did_close,
    _.on_hover,
    _.on_code_action,
    # DETACH PARTITION ... FINALIZE, as the PostgreSQL reader reads it; no lock row or fix reads it yet
    _.finalize,
    _.cmd_explain,
    # the built-in formats, imported by "module:class" when asked for (report/builtin.py FORMATS)
    _.ConciseReporter,
    _.GithubReporter,
    _.GitlabReporter,
    _.JsonReporter,
    _.JunitReporter,
    _.SarifReporter,
    _.HtmlReporter,
    # read by the HTML report's template (report/templates/report.html.j2), which vulture cannot see
    _.no_plot,
    _.known_tables,
    # the Django app: its AppConfig and management command, found by Django by name
    _.SchemaciteConfig,
    _.verbose_name,
    _.Command,
    _.add_arguments,
    _.handle,
    # argparse's own method, overridden by cli.Parser (argparse calls it for every option added)
    _._get_formatter,
    # the chart's id, read by pygal when it renders (report/plots.py)
    _.uuid,
    # MySQL statement handlers, registered by the @handles decorator (sources/mysql/statements.py)
    _._analyze,
    _._optimize,
    _._create_trigger,
    _._drop_trigger,
    _._begin,
    _._commit,
    _._other,
    _._update,
    _._delete_values,
    _._drop_database,
    _._drop_routine,
    # the pytest plugin: hooks pytest calls by name, and pytest.Item's interface
    _.pytest_addoption,
    _.pytest_configure,
    _.pytest_report_header,
    _.pytest_collect_file,
    _.pytest_collection_modifyitems,
    _.funcargs,
    _.runtest,
    _.reportinfo,
    # public API for a rule pack's own tests (schemacite.testing, documented in docs/plugins.md)
    _.load_cases,
    _.assert_case,
    # a configuration key, read by the pytest plugin through setting(section, "pytest_paths")
    _.pytest_paths,
    # read by tests and kept for what they tell: the cache's counters, the verifier's seam
    _.misses,
    _.state_hits,
    _.run_as_written,
    # dataclass fields that complete a record (where an estimate's rate was measured, the kind of a
    # relation seen locked, a framework's documentation) though no code reads them yet
    _.measured_on,
    _.relkind,
    _.docs,
    # the catalogue record's keys for docs/plugins.md, written from the schema (a test keeps them equal)
    _.record_keys,
    # Python reads a class's __hash__ (model/record.py sets it as dataclass(eq=True) would)
    _.__hash__,
    # keys of TypedDicts, read by subscript: postgres_functions.json (locks/functions.py), what a
    # FULLTEXT index changes of the MySQL and MariaDB matrices (locks/rows.py FulltextLimits)
    _.read_from,
    _.not_volatile,
    _.no_instant_columns,
    _.rebuild_lock,
    _.rebuild_copy_ops,
    _.rebuild_copy_if_more_than_one,
    _.rebuild_copy_note,
    # the rule API's Statement: its SQL's first line, for a pack's messages (nothing here reads it)
    _.first_line,
)
