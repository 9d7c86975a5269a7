"""A degraded network between the services and the broker: Toxiproxy (Go module
github.com/Shopify/toxiproxy/v2, pinned in gotools), run on free ports. The run's broker
advertises the proxy's port, so every connection to Kafka, bootstrap and after, passes
through it; a fault adds a toxic for a few seconds and removes it."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.request
from pathlib import Path

from tests.e2e.harness.gotools import TOXIPROXY
from tests.e2e.harness.ports import free_ports

# The network faults: toxic type, attributes, seconds it lasts. Latency and bandwidth
# slow the broker's answers; reset_peer cuts every connection at once (TCP RST);
# timeout holds the data and closes the connection when the time is up.
TOXICS: dict[str, tuple[dict[str, int], float]] = {
    "latency": ({"latency": 300, "jitter": 100}, 6.0),
    "bandwidth": ({"rate": 20}, 6.0),  # KB/s
    "reset_peer": ({"timeout": 0}, 1.0),
    "timeout": ({"timeout": 2000}, 3.0),
}


class Toxiproxy:
    """One proxy, `kafka`, from `listen_port` to the broker's real port."""

    def __init__(self, folder: Path, upstream_port: int) -> None:
        self.api_port, self.listen_port = free_ports(2)
        self._upstream = upstream_port
        self._folder = folder
        self._process: subprocess.Popen[bytes] | None = None

    def _api(self, method: str, path: str, body: object | None = None) -> None:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.api_port}{path}",
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5):
            pass

    def start(self) -> None:
        with open(self._folder / "toxiproxy.log", "ab") as log:
            self._process = subprocess.Popen(
                [str(TOXIPROXY.ensure_built()), "-host", "127.0.0.1", "-port", str(self.api_port)],
                stdout=log,
                stderr=log,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + 20
        while True:
            try:
                self._api(
                    "POST",
                    "/proxies",
                    {
                        "name": "kafka",
                        "listen": f"127.0.0.1:{self.listen_port}",
                        "upstream": f"127.0.0.1:{self._upstream}",
                    },
                )
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def degrade(self, kind: str) -> float:
        """The toxic `kind` on both directions for its time, then removed; its seconds."""
        attributes, seconds = TOXICS[kind]
        for stream in ("upstream", "downstream"):
            self._api(
                "POST",
                "/proxies/kafka/toxics",
                {
                    "name": f"{kind}_{stream}",
                    "type": kind,
                    "stream": stream,
                    "attributes": attributes,
                },
            )
        time.sleep(seconds)
        for stream in ("upstream", "downstream"):
            self._api("DELETE", f"/proxies/kafka/toxics/{kind}_{stream}")
        return seconds

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None
