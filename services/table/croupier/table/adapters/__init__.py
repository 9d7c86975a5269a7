"""The table host's adapters: the command logs and their codec, the wallets, the outgoing
messages and the metrics."""
