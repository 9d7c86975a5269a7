"""The harness's Go tools, built from the Go module proxy at pinned versions into
.local/tools/<name>-<version>/ the first time a run needs one (as deploy/local/tools.sh
builds the deployment checks' tools; not there, so `make test` does not build them):
Toxiproxy for the network faults, ghz for the load report's single-method figures."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import ROOT


@dataclass(frozen=True)
class GoTool:
    name: str
    package: str  # the module path of its main package
    version: str

    @property
    def binary(self) -> Path:
        """A version bump is a new folder, so an old binary is never taken for a new one."""
        folder = ROOT / ".local" / "tools" / f"{self.name}-{self.version}"
        return folder / self.package.rsplit("/", 1)[1]

    def ensure_built(self) -> Path:
        """The binary, built with Go if missing (a minute or more the first time)."""
        if self.binary.exists():
            return self.binary
        go = shutil.which("go")
        if go is None:
            raise RuntimeError(f"{self.name} {self.version} is missing and building it needs Go")
        folder = self.binary.parent
        partial = folder.with_name(folder.name + ".partial")
        partial.mkdir(parents=True, exist_ok=True)
        print(f"e2e: building {self.name} {self.version} (go install {self.package})")
        # CGO off: a static binary that does not depend on the machine's C library.
        env = os.environ | {"CGO_ENABLED": "0", "GOBIN": str(partial)}
        subprocess.run([go, "install", f"{self.package}@{self.version}"], env=env, check=True)
        shutil.rmtree(folder, ignore_errors=True)
        partial.rename(folder)
        return self.binary


TOXIPROXY = GoTool("toxiproxy", "github.com/Shopify/toxiproxy/v2/cmd/server", "v2.5.0")
GHZ = GoTool("ghz", "github.com/bojand/ghz/cmd/ghz", "v0.121.0")
