"""A Kafka broker of the run's own (KRaft, one JVM), from the jars `deploy/local/kafka.sh`
fetched: the services' topic names are fixed (`croupier.table.events`, ...), so a run on
the shared broker would mix its events with every other test's; and a broker restart fault
must never stop the broker others use. Its data lives in the run folder; a restart keeps it."""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

from tests.e2e.harness.ports import free_ports
from tests.support.paths import ROOT

_LOCAL = ROOT / "deploy" / "local"
_LIBS = ROOT / ".local" / "kafka" / "libs"
_JAVA = [
    "java",
    "-Xms128m",
    "-Xmx384m",
    "-Djava.awt.headless=true",
    f"-Dlog4j2.configurationFile={_LOCAL / 'kafka' / 'log4j2.properties'}",
]


class OwnBroker:
    """Started by `start()` (formats the storage the first time), stopped by `stop()`;
    `kill()` is the fault: SIGKILL, then `start()` again on the same ports and data."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port, self.controller_port = free_ports(2)
        # What the broker tells clients to connect to: its own port, or a proxy's in front.
        self.advertised_port = self.port
        self._process: subprocess.Popen[bytes] | None = None
        self._formatted = False

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.advertised_port}"

    def _properties(self) -> Path:
        path = self.folder / "server.properties"
        path.write_text(
            "process.roles=broker,controller\nnode.id=1\n"
            f"controller.quorum.bootstrap.servers=127.0.0.1:{self.controller_port}\n"
            f"listeners=PLAINTEXT://127.0.0.1:{self.port},"
            f"CONTROLLER://127.0.0.1:{self.controller_port}\n"
            f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.advertised_port}\n"
            "controller.listener.names=CONTROLLER\ninter.broker.listener.name=PLAINTEXT\n"
            "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT\n"
            f"log.dirs={self.folder / 'data'}\nnum.partitions=3\n"
            "auto.create.topics.enable=true\noffsets.topic.replication.factor=1\n"
            "offsets.topic.num.partitions=3\ntransaction.state.log.replication.factor=1\n"
            "transaction.state.log.min.isr=1\ntransaction.state.log.num.partitions=1\n"
            "share.coordinator.state.topic.replication.factor=1\n"
            "share.coordinator.state.topic.min.isr=1\ngroup.initial.rebalance.delay.ms=0\n"
        )
        return path

    def start(self, timeout: float = 90.0) -> None:
        if not _LIBS.is_dir():  # the suite ran on a broker it did not start: no jars yet
            subprocess.run([str(_LOCAL / "kafka.sh"), "fetch"], check=True)
        self.folder.mkdir(parents=True, exist_ok=True)
        properties = self._properties()
        classpath = ["-cp", f"{_LIBS}/*"]
        log = open(self.folder / "kafka.log", "ab")  # noqa: SIM115 (the broker's own file)
        if not self._formatted:
            cluster = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
            subprocess.run(
                [
                    *_JAVA,
                    "-XX:TieredStopAtLevel=1",
                    *classpath,
                    "kafka.tools.StorageTool",
                    "format",
                    f"--cluster-id={cluster}",
                    "-c",
                    str(properties),
                    "--standalone",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                check=True,
            )
            self._formatted = True
        self._process = subprocess.Popen(
            [
                *_JAVA,
                "-XX:+UseG1GC",
                "-XX:MaxGCPauseMillis=20",
                # Its pauses, to hold against the slow actions of a run.
                f"-Xlog:gc:file={self.folder / 'gc.log'}:uptime",
                *classpath,
                "kafka.Kafka",
                str(properties),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        log.close()
        admin = [sys.executable, str(_LOCAL / "kafka_admin.py")]
        ready = [*admin, "ready", "--bootstrap", self.bootstrap, "--timeout", str(timeout)]
        subprocess.run([*ready, "--pid", str(self._process.pid)], check=True, env=os.environ)
        subprocess.run([*admin, "topics", "--bootstrap", self.bootstrap], check=True)

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def kill(self) -> None:
        if self._process is not None:
            self._process.send_signal(signal.SIGKILL)
            self._process.wait()
            self._process = None

    def stop(self) -> None:
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
        self._process = None
