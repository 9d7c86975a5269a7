"""The gateway's use cases over its ports (the table host, the wallet, the director)."""
