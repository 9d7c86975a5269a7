"""The table host's service layer: the `TableHost` facade (host.py) and the jobs it
delegates to: the command path (commands.py), turn clocks (timeouts.py), partition
ownership (ownership.py), money (money.py), outgoing events (outgoing.py), views
(views.py) and presence (presence.py)."""
