"""`schemacite server`: a language server (LSP over standard input and output) on the engine
`schemacite lint` runs. `project` judges a document (no protocol there), `protocol` speaks
LSP through pygls, and the other modules turn the engine's answers into the protocol's shapes:
diagnostics, hover, code actions, positions and settings."""
