"""Generate Python, gRPC and mypy stubs from protos/ into gen/python (run by `make protos`)."""

from __future__ import annotations

import os
import pathlib
import shutil
import sys

import grpc_tools
from grpc_tools import protoc

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
OUT = ROOT / "gen" / "python"


def main() -> int:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    files = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    args = [
        "protoc",
        f"-I{PROTOS}",
        f"-I{well_known}",
        f"--python_out={OUT}",
        f"--grpc_python_out={OUT}",
        f"--mypy_out={OUT}",
        f"--mypy_grpc_out={OUT}",
        *files,
    ]
    # The mypy plugins are console scripts installed beside this interpreter.
    bin_dir = str(pathlib.Path(sys.executable).parent)
    os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    code = protoc.main(args)
    if code != 0:
        print(f"protoc failed with exit code {code}", file=sys.stderr)
        return int(code)
    # Each versioned API is an ordinary package. Where a service owns the domain
    # (services/<domain>/croupier/<domain>/ is a regular package), its API moves inside
    # it, so `croupier.table.v1` is found beside `croupier.table.host`; the other domains
    # (common, events, lobby, ...) stay in gen/python, a portion of the namespace.
    for directory in sorted(OUT.glob("croupier/*/v1")):
        (directory / "__init__.py").touch()
        (directory / "py.typed").touch()
        domain = directory.parent.name
        owner = ROOT / "services" / domain / "croupier" / domain
        if (owner / "__init__.py").exists():
            target = owner / "v1"
            if target.exists():
                shutil.rmtree(target)
            shutil.move(str(directory), target)
            directory.parent.rmdir()
    print(f"generated {len(files)} proto files into {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
