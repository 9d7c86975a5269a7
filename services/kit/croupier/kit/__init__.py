"""The service kit shared by every Croupier service: server, settings, logs, metrics, event bus."""
