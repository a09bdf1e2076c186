"""The throwaway servers start, answer, and run with the settings the catalog tests rely on."""

from __future__ import annotations


def test_postgres_server_runs_with_counters(pg_server):
    assert pg_server.version[0] >= 14
    assert pg_server.dsn("x").startswith(f"postgresql://postgres@127.0.0.1:{pg_server.port}/x")
    assert pg_server.port != 5432
    pg_server.create_database("servers_check")
    with pg_server.connect("servers_check") as conn:
        settings = dict(
            conn.execute(
                "SELECT name, setting FROM pg_settings"
                " WHERE name IN ('track_counts', 'shared_buffers', 'data_directory', 'port')"
            ).fetchall()
        )
        assert conn.autocommit
    assert settings["track_counts"] == "on"
    assert int(settings["port"]) == pg_server.port
    assert "schemacite-pg-" in settings["data_directory"]  # a private cluster, not the system one
    assert int(settings["shared_buffers"]) * 8 == 32 * 1024  # 8 kB pages


def test_mariadb_server_runs_with_counters(mariadb_server):
    assert mariadb_server.version[:2] >= (10, 4)
    assert mariadb_server.dsn("x") == f"mariadb://root@127.0.0.1:{mariadb_server.port}/x"
    assert mariadb_server.port != 3306
    mariadb_server.create_database("servers_check")
    conn = mariadb_server.connect("servers_check")
    try:
        cur = conn.cursor()
        cur.execute("SELECT @@performance_schema, @@userstat, @@port, @@datadir, @@innodb_buffer_pool_size, DATABASE()")
        performance_schema, userstat, port, datadir, pool, database = cur.fetchone()
    finally:
        conn.close()
    assert performance_schema == 1
    assert userstat == 1
    assert port == mariadb_server.port
    assert "schemacite-mariadb-" in datadir
    assert pool == 64 * 1024 * 1024
    assert database == "servers_check"
