"""Everything that talks to a server: connections and DSNs (`servers`), the catalog readers
(`catalogs`), scratch areas (`scratch`), `--verify` of the lock tables (`verify`, `verify_postgres`,
`verify_mysql`), the experiments behind the catalogue's own measurements (`experiments`) and the
generator of the volatile-function list (`functions`).

The knowledge these use (the model, lock tables, evidence figures) lives in the layers below and
holds no server code; the import-linter contracts in pyproject.toml keep it so.
"""
