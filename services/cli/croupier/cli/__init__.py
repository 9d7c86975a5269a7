"""The `croupier` console command: one entry point, one module per subcommand."""
