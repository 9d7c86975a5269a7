"""Lint every protos/**/*.proto with buf-style rules (run by `make test`).

The files are compiled by protoc (grpc_tools) into a FileDescriptorSet, and the rules run
on the descriptors, not on the text, so comments, options and odd formatting cannot fool
them. Line numbers come from protoc's source info. protoc's own warnings (an unused
import, for instance) are violations too.

Rules (named as buf names them, where buf has the rule):

    PROTOC_ERROR                 the files must compile
    PROTOC_WARNING               protoc must print no warning
    IMPORT_USED                  no unused import (from protoc's warning)
    IMPORT_NO_PUBLIC, IMPORT_NO_WEAK
    SYNTAX_PROTO3                `syntax = "proto3";`
    FILE_LOWER_SNAKE_CASE        file names are lower_snake_case.proto
    PACKAGE_DEFINED              every file declares a package
    PACKAGE_CROUPIER_VERSIONED   the package is croupier.<domain>.v<N> (lower_snake domain)
    PACKAGE_DIRECTORY_MATCH      the file sits in protos/croupier/<domain>/v<N>/
    MESSAGE_PASCAL_CASE, ENUM_PASCAL_CASE, SERVICE_PASCAL_CASE, RPC_PASCAL_CASE
    FIELD_LOWER_SNAKE_CASE, ONEOF_LOWER_SNAKE_CASE
    ENUM_VALUE_UPPER_SNAKE_CASE
    ENUM_VALUE_PREFIX            values start with the enum's name in UPPER_SNAKE_CASE + "_"
    ENUM_ZERO_VALUE_SUFFIX       the first value is <ENUM>_UNSPECIFIED = 0
    RPC_REQUEST_STANDARD_NAME    rpc Foo takes FooRequest from the service's package
    RPC_RESPONSE_STANDARD_NAME   rpc Foo returns FooResponse (streamed or not), same package
    RPC_REQUEST_RESPONSE_UNIQUE  a message is the request or response of one RPC only

Usage: lint_protos.py [--root DIR]   (default: the repository's protos/)
Exit status: 0 when clean, 1 with one line per violation, sorted by file and line.
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence

import grpc_tools
from google.protobuf import descriptor_pb2

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_PROTOS = ROOT / "protos"
WELL_KNOWN = pathlib.Path(grpc_tools.__file__).parent / "_proto"

PASCAL_CASE = re.compile(r"^[A-Z][A-Za-z0-9]*$")
LOWER_SNAKE_CASE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
UPPER_SNAKE_CASE = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$")
CROUPIER_PACKAGE = re.compile(r"^croupier\.[a-z][a-z0-9]*(_[a-z0-9]+)*\.v[1-9][0-9]*$")
PROTOC_DIAGNOSTIC = re.compile(
    r"^(?P<file>[^:\s]+\.proto):(?P<line>\d+):(?:\d+:)?\s*(?P<warning>warning:)?\s*(?P<text>.*)$"
)
UNUSED_IMPORT = re.compile(r"^Import (?P<import>\S+) is unused\.?$")

# Field numbers inside descriptor.proto, for source-info paths (file → element → name).
_FILE_PACKAGE = 2
_FILE_DEPENDENCY = 3
_FILE_MESSAGE = 4
_FILE_ENUM = 5
_FILE_SERVICE = 6
_FILE_SYNTAX = 12
_MESSAGE_FIELD = 2
_MESSAGE_NESTED = 3
_MESSAGE_ENUM = 4
_MESSAGE_ONEOF = 8
_ENUM_VALUE = 2
_SERVICE_METHOD = 2


@dataclasses.dataclass(frozen=True, order=True)
class Violation:
    """One broken rule at one place (`line` is 1-based; 0 when unknown)."""

    file: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.rule}: {self.message}"


def upper_snake(name: str) -> str:
    """`ActionKind` → `ACTION_KIND`, `HTTPStatus` → `HTTP_STATUS` (buf's enum prefix)."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return name.upper()


def lower_snake(name: str) -> str:
    return upper_snake(name).lower()


def pascal(name: str) -> str:
    """`get_item` → `GetItem`; a PascalCase name is returned unchanged."""
    if PASCAL_CASE.match(name):
        return name
    return "".join(part[:1].upper() + part[1:] for part in lower_snake(name).split("_"))


class _FileLinter:
    """The rules that look at one file on its own."""

    def __init__(self, proto: descriptor_pb2.FileDescriptorProto, display: str) -> None:
        self.proto = proto
        self.display = display
        self.violations: list[Violation] = []
        self._lines: dict[tuple[int, ...], int] = {}
        for location in proto.source_code_info.location:
            if location.span:
                self._lines.setdefault(tuple(location.path), location.span[0] + 1)

    def line(self, path: Sequence[int]) -> int:
        """The line of the element at `path`, or of its closest enclosing element."""
        key = tuple(path)
        while key:
            if key in self._lines:
                return self._lines[key]
            key = key[:-1]
        return 0

    def report(self, path: Sequence[int], rule: str, message: str) -> None:
        self.violations.append(Violation(self.display, self.line(path), rule, message))

    def run(self) -> list[Violation]:
        proto = self.proto
        self._file_rules()
        for i, message in enumerate(proto.message_type):
            self._message(message, [_FILE_MESSAGE, i], proto.package)
        for i, enum in enumerate(proto.enum_type):
            self._enum(enum, [_FILE_ENUM, i], proto.package)
        for i, service in enumerate(proto.service):
            self._service(service, [_FILE_SERVICE, i])
        return self.violations

    def _file_rules(self) -> None:
        proto = self.proto
        if proto.syntax != "proto3":
            self.report(
                [_FILE_SYNTAX],
                "SYNTAX_PROTO3",
                f'use syntax = "proto3" (found {proto.syntax or "proto2"})',
            )
        stem = pathlib.PurePosixPath(proto.name).stem
        if not LOWER_SNAKE_CASE.match(stem):
            self.report(
                [], "FILE_LOWER_SNAKE_CASE", f"file name {stem}.proto is not lower_snake_case"
            )
        for index in proto.public_dependency:
            self.report(
                [_FILE_DEPENDENCY, index],
                "IMPORT_NO_PUBLIC",
                f"no `import public` ({proto.dependency[index]})",
            )
        for index in proto.weak_dependency:
            self.report(
                [_FILE_DEPENDENCY, index],
                "IMPORT_NO_WEAK",
                f"no `import weak` ({proto.dependency[index]})",
            )
        if not proto.package:
            self.report([], "PACKAGE_DEFINED", "declare a package (croupier.<domain>.v1)")
            return
        if not CROUPIER_PACKAGE.match(proto.package):
            self.report(
                [_FILE_PACKAGE],
                "PACKAGE_CROUPIER_VERSIONED",
                f"package {proto.package} should be croupier.<domain>.v<N> "
                "(lower_snake_case domain, versioned, e.g. croupier.table.v1)",
            )
        directory = str(pathlib.PurePosixPath(proto.name).parent)
        expected = proto.package.replace(".", "/")
        if directory != expected:
            self.report(
                [_FILE_PACKAGE],
                "PACKAGE_DIRECTORY_MATCH",
                f"package {proto.package} must live in {expected}/, not {directory}/",
            )

    def _message(
        self, message: descriptor_pb2.DescriptorProto, path: list[int], scope: str
    ) -> None:
        full_name = f"{scope}.{message.name}"
        if message.options.map_entry:
            return  # synthesised by protoc for a map<,> field; named after the field
        if not PASCAL_CASE.match(message.name):
            self.report(
                path,
                "MESSAGE_PASCAL_CASE",
                f"message {full_name} should be PascalCase",
            )
        synthetic_oneofs = {
            field.oneof_index
            for field in message.field
            if field.proto3_optional and field.HasField("oneof_index")
        }
        for i, field in enumerate(message.field):
            if not LOWER_SNAKE_CASE.match(field.name):
                self.report(
                    [*path, _MESSAGE_FIELD, i],
                    "FIELD_LOWER_SNAKE_CASE",
                    f"field {full_name}.{field.name} should be lower_snake_case "
                    f"({lower_snake(field.name)})",
                )
        for i, oneof in enumerate(message.oneof_decl):
            if i in synthetic_oneofs:
                continue
            if not LOWER_SNAKE_CASE.match(oneof.name):
                self.report(
                    [*path, _MESSAGE_ONEOF, i],
                    "ONEOF_LOWER_SNAKE_CASE",
                    f"oneof {full_name}.{oneof.name} should be lower_snake_case",
                )
        for i, nested in enumerate(message.nested_type):
            self._message(nested, [*path, _MESSAGE_NESTED, i], full_name)
        for i, enum in enumerate(message.enum_type):
            self._enum(enum, [*path, _MESSAGE_ENUM, i], full_name)

    def _enum(self, enum: descriptor_pb2.EnumDescriptorProto, path: list[int], scope: str) -> None:
        full_name = f"{scope}.{enum.name}"
        if not PASCAL_CASE.match(enum.name):
            self.report(path, "ENUM_PASCAL_CASE", f"enum {full_name} should be PascalCase")
        prefix = upper_snake(enum.name) + "_"
        for i, value in enumerate(enum.value):
            value_path = [*path, _ENUM_VALUE, i]
            if not UPPER_SNAKE_CASE.match(value.name):
                self.report(
                    value_path,
                    "ENUM_VALUE_UPPER_SNAKE_CASE",
                    f"enum value {full_name}.{value.name} should be UPPER_SNAKE_CASE",
                )
            if not value.name.startswith(prefix):
                self.report(
                    value_path,
                    "ENUM_VALUE_PREFIX",
                    f"enum value {full_name}.{value.name} should start with {prefix}",
                )
        if enum.value:
            first = enum.value[0]
            if first.name != prefix + "UNSPECIFIED" or first.number != 0:
                self.report(
                    [*path, _ENUM_VALUE, 0],
                    "ENUM_ZERO_VALUE_SUFFIX",
                    f"the first value of enum {full_name} should be {prefix}UNSPECIFIED = 0 "
                    f"(found {first.name} = {first.number})",
                )

    def _service(self, service: descriptor_pb2.ServiceDescriptorProto, path: list[int]) -> None:
        package = self.proto.package
        full_name = f"{package}.{service.name}"
        if not PASCAL_CASE.match(service.name):
            self.report(path, "SERVICE_PASCAL_CASE", f"service {full_name} should be PascalCase")
        for i, method in enumerate(service.method):
            method_path = [*path, _SERVICE_METHOD, i]
            rpc = f"{full_name}.{method.name}"
            if not PASCAL_CASE.match(method.name):
                self.report(method_path, "RPC_PASCAL_CASE", f"rpc {rpc} should be PascalCase")
            for kind, type_name, rule in (
                ("Request", method.input_type, "RPC_REQUEST_STANDARD_NAME"),
                ("Response", method.output_type, "RPC_RESPONSE_STANDARD_NAME"),
            ):
                expected = f".{package}.{pascal(method.name)}{kind}"
                if type_name != expected:
                    self.report(
                        method_path,
                        rule,
                        f"rpc {rpc} should use {expected[1:]}, not {type_name.lstrip('.')}",
                    )


def _unique_requests_and_responses(
    files: Sequence[tuple[descriptor_pb2.FileDescriptorProto, str, _FileLinter]],
) -> Iterator[Violation]:
    """RPC_REQUEST_RESPONSE_UNIQUE over every linted file together."""
    uses: dict[str, list[tuple[str, int, str]]] = {}
    for proto, display, linter in files:
        for s, service in enumerate(proto.service):
            for m, method in enumerate(service.method):
                rpc = f"{proto.package}.{service.name}.{method.name}"
                line = linter.line([_FILE_SERVICE, s, _SERVICE_METHOD, m])
                for type_name in (method.input_type, method.output_type):
                    uses.setdefault(type_name.lstrip("."), []).append((display, line, rpc))
    for type_name, places in sorted(uses.items()):
        if len(places) < 2:
            continue
        rpcs = ", ".join(dict.fromkeys(rpc for _, _, rpc in places))
        display, line, _ = places[0]
        yield Violation(
            display,
            line,
            "RPC_REQUEST_RESPONSE_UNIQUE",
            f"{type_name} is the request or response {len(places)} times ({rpcs}); "
            "give each RPC its own <Rpc>Request and <Rpc>Response",
        )


def _protoc_diagnostics(stderr: str, root: pathlib.Path) -> Iterator[Violation]:
    for raw in stderr.splitlines():
        text = raw.strip()
        if not text:
            continue
        match = PROTOC_DIAGNOSTIC.match(text)
        if match is None:
            yield Violation(_display(root, ""), 0, "PROTOC_ERROR", text)
            continue
        display = _display(root, match["file"])
        line = int(match["line"])
        if match["warning"]:
            unused = UNUSED_IMPORT.match(match["text"])
            if unused:
                yield Violation(
                    display, line, "IMPORT_USED", f"import {unused['import']} is unused"
                )
            else:
                yield Violation(display, line, "PROTOC_WARNING", match["text"])
        else:
            yield Violation(display, line, "PROTOC_ERROR", match["text"])


def _display(root: pathlib.Path, name: str) -> str:
    path = root / name if name else root
    try:
        return str(path.relative_to(pathlib.Path.cwd()))
    except ValueError:
        return str(path)


def lint(root: pathlib.Path) -> tuple[int, list[Violation]]:
    """Lint every .proto below `root` (the import root). Returns (files, violations)."""
    root = root.resolve()
    names = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.proto"))
    if not names:
        return 0, [Violation(_display(root, ""), 0, "PROTOC_ERROR", "no .proto files found")]
    with tempfile.TemporaryDirectory(prefix="lint_protos") as tmp:
        descriptor_set = pathlib.Path(tmp) / "protos.pb"
        command = [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{root}",
            f"-I{WELL_KNOWN}",
            f"--descriptor_set_out={descriptor_set}",
            "--include_imports",
            "--include_source_info",
            *names,
        ]
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
        violations = list(_protoc_diagnostics(done.stderr + done.stdout, root))
        if done.returncode != 0:
            if not any(v.rule == "PROTOC_ERROR" for v in violations):
                violations.append(
                    Violation(
                        _display(root, ""),
                        0,
                        "PROTOC_ERROR",
                        f"protoc exited with status {done.returncode}",
                    )
                )
            return len(names), sorted(violations)
        descriptors = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set.read_bytes())
    ours = set(names)
    linted: list[tuple[descriptor_pb2.FileDescriptorProto, str, _FileLinter]] = []
    for proto in descriptors.file:
        if proto.name not in ours:
            continue  # google/protobuf/*.proto and other imports from outside root
        linter = _FileLinter(proto, _display(root, proto.name))
        violations.extend(linter.run())
        linted.append((proto, linter.display, linter))
    violations.extend(_unique_requests_and_responses(linted))
    return len(names), sorted(violations)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--root",
        type=pathlib.Path,
        default=DEFAULT_PROTOS,
        help="import root holding croupier/<domain>/v<N>/*.proto (default: protos/)",
    )
    args = parser.parse_args(argv)
    if not args.root.is_dir():
        print(f"lint_protos: {args.root} is not a directory", file=sys.stderr)
        return 1
    count, violations = lint(args.root)
    if violations:
        for violation in violations:
            print(violation)
        print(
            f"lint_protos: {len(violations)} violation(s) in {count} file(s) under "
            f"{_display(args.root.resolve(), '')}",
            file=sys.stderr,
        )
        return 1
    print(f"lint_protos: {count} file(s) clean under {_display(args.root.resolve(), '')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
