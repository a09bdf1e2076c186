"""`schemacite rehearse`: run the change at several table sizes on a scratch server, with traffic
beside it, and say what it measured.

The data flow, one module a step:

- `plan`: the replay lint uses gives the history's statements (run first, as they are) and the
  change's, each with the transaction its runner runs it in, and the tables the change touches;
- `cluster`: a throwaway server from the binaries on PATH, when no `--dsn` names a scratch one;
- `postgres`, `mariadb`: what differs by server (scratch databases, synthetic rows, locks seen,
  rewrites and scans, the probe's statements);
- `probe`: sessions reading and writing every touched table at a steady rate, and the one that
  holds a transaction open (`--hold-transaction`);
- `run`: one scratch database per size: history, rows, probe, the change, observed;
- `fit`: a line through the sizes, and the production size's time with its range;
- `report`: text, JSON (version 1) and HTML.

Nothing here reads a row of a production server: sizes come from a snapshot file or `--rows`.
"""
