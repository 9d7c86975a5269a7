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
    # Generated folders are ordinary packages below croupier/<domain>/ so that mypy and
    # importlib treat each versioned API as one unit; croupier/ and croupier/<domain>/
    # stay namespace portions so they merge with the service code under services/.
    for directory in OUT.rglob("v1"):
        (directory / "__init__.py").touch()
        (directory / "py.typed").touch()
    print(f"generated {len(files)} proto files into {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
