"""The end-to-end harness (issue #23): every service as its own process on a broker of the
run's own and the real PostgreSQL, client bots playing only through the gateway, faults from
a seed, a recorded history checked after the run, and a Markdown report."""
