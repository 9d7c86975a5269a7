"""Generate Python, gRPC and mypy stubs from protos/ (run by `make protos`).

Each versioned API (`croupier.<domain>.v1`) becomes an ordinary package. Where a service
owns the domain (services/<domain>/croupier/<domain>/ is a regular package), its API is
placed inside it, so `croupier.table.v1` sits beside `croupier.table.service`; the other
domains (common, events, lobby, ...) go to gen/python, a portion of the `croupier`
namespace. Code is generated in a scratch directory and swapped into place package by
package, so a process importing the old code meanwhile never sees a half-written tree.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import sys
import tempfile

import grpc_tools
from grpc_tools import protoc

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
OUT = ROOT / "gen" / "python"


def _swap(new: pathlib.Path, target: pathlib.Path) -> None:
    """Replace `target` with `new` (same file system), leaving no moment without either."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        target.rename(old)
        new.rename(target)
        shutil.rmtree(old)
    else:
        new.rename(target)


def main() -> int:
    files = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    # The mypy plugins are console scripts installed beside this interpreter.
    bin_dir = str(pathlib.Path(sys.executable).parent)
    os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=OUT.parent, prefix=".gen-") as scratch_dir:
        scratch = pathlib.Path(scratch_dir)
        outputs = ("python_out", "grpc_python_out", "mypy_out", "mypy_grpc_out")
        args = ["protoc", f"-I{PROTOS}", f"-I{well_known}"]
        args += [f"--{option}={scratch}" for option in outputs]
        if protoc.main([*args, *files]) != 0:
            print("protoc failed", file=sys.stderr)
            return 1
        for directory in sorted(scratch.glob("croupier/*/v1")):
            (directory / "__init__.py").touch()
            (directory / "py.typed").touch()
            domain = directory.parent.name
            owner = ROOT / "services" / domain / "croupier" / domain
            if (owner / "__init__.py").exists():
                _swap(directory, owner / "v1")
                stale = OUT / "croupier" / domain
                if stale.exists():
                    shutil.rmtree(stale)
            else:
                _swap(directory, OUT / "croupier" / domain / "v1")
    print(f"generated {len(files)} proto files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
