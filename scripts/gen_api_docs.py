"""Generate the API reference (docs/api/*.md) from the protos (run by `make docs`).

One page per gRPC service: its methods with their comments, request and response fields,
every message and enum they reach (from any proto file), and the errors it answers: the
status of each kind of refusal (the kit's one table, `croupier.kit.errors.STATUS_BY_ROOT`,
with the Connect code and HTTP status the gateway's HTTP transport sends) and the reason
codes the service's code raises (sent in `x-error-reason` and as the `google.rpc.ErrorInfo`
reason). Comments come from protoc's SourceCodeInfo, so the reference says what the protos
say; the reasons are read from the raise statements of the service's Python packages.

`python scripts/gen_api_docs.py [OUT_DIR]` (default docs/api). tests/test_api_docs.py
regenerates into a temporary directory and compares, so the committed pages follow the
protos.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc_tools
from google.protobuf import descriptor_pb2
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
OUT = ROOT / "docs" / "api"

FDP = descriptor_pb2.FieldDescriptorProto
SCALARS = {
    value: name.removeprefix("TYPE_").lower()
    for name, value in FDP.Type.items()
    if name not in ("TYPE_MESSAGE", "TYPE_ENUM", "TYPE_GROUP")
}
# "// ---- account ----": groups methods in the proto; not part of the next one's comment.
DIVIDER = re.compile(r"-{2,}.*-{2,}")
# SourceCodeInfo path numbers (descriptor.proto's field numbers).
MESSAGE_TYPE, ENUM_TYPE, SERVICE, PACKAGE = 4, 5, 6, 2
FIELD, NESTED_TYPE, NESTED_ENUM, ENUM_VALUE, METHOD = 2, 3, 4, 2, 2


# ---- the descriptors and their comments -------------------------------------------------


def descriptor_set() -> descriptor_pb2.FileDescriptorSet:
    """Every proto under protos/ compiled with its comments (protoc's SourceCodeInfo)."""
    files = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "protos.pb"
        args = ["protoc", f"-I{PROTOS}", f"-I{well_known}", "--include_source_info"]
        if protoc.main([*args, "--include_imports", f"--descriptor_set_out={out}", *files]):
            raise SystemExit("protoc failed")
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def _comment(location: descriptor_pb2.SourceCodeInfo.Location) -> str:
    text = "\n\n".join([*location.leading_detached_comments[-1:], location.leading_comments])
    text = text if location.leading_comments else location.trailing_comments
    lines = [line.removeprefix(" ").rstrip() for line in text.strip("\n").splitlines()]
    lines = [line for line in lines if not DIVIDER.fullmatch(line)]
    return "\n".join(lines).strip() if any(lines) else ""


@dataclass(frozen=True)
class Described:
    """A message or enum with its full name, file and comments by relative path."""

    name: str
    file: str
    proto: descriptor_pb2.DescriptorProto | descriptor_pb2.EnumDescriptorProto
    comments: dict[tuple[int, ...], str]

    def comment(self, *path: int) -> str:
        return self.comments.get(path, "")


@dataclass
class Schema:
    """Every message, enum and service of the compiled protos, by full name."""

    types: dict[str, Described] = field(default_factory=dict)
    services: list[tuple[str, descriptor_pb2.FileDescriptorProto, dict[int, str]]] = field(
        default_factory=list
    )
    comments: dict[str, dict[tuple[int, ...], str]] = field(default_factory=dict)

    @classmethod
    def load(cls, files: descriptor_pb2.FileDescriptorSet) -> Schema:
        schema = cls()
        for file in files.file:
            by_path = {tuple(loc.path): _comment(loc) for loc in file.source_code_info.location}
            schema.comments[file.name] = by_path
            for i, message in enumerate(file.message_type):
                schema._message(file, f"{file.package}.{message.name}", message, (4, i), by_path)
            for i, enum in enumerate(file.enum_type):
                name = f"{file.package}.{enum.name}"
                schema.types[name] = Described(name, file.name, enum, _under(by_path, (5, i)))
            for i, _ in enumerate(file.service):
                schema.services.append((file.name, file, {i: by_path.get((6, i), "")}))
        return schema

    def _message(
        self,
        file: descriptor_pb2.FileDescriptorProto,
        name: str,
        message: descriptor_pb2.DescriptorProto,
        path: tuple[int, ...],
        by_path: dict[tuple[int, ...], str],
    ) -> None:
        self.types[name] = Described(name, file.name, message, _under(by_path, path))
        for i, nested in enumerate(message.nested_type):
            self._message(file, f"{name}.{nested.name}", nested, (*path, 3, i), by_path)
        for i, enum in enumerate(message.enum_type):
            nested_path = (*path, NESTED_ENUM, i)
            self.types[f"{name}.{enum.name}"] = Described(
                f"{name}.{enum.name}", file.name, enum, _under(by_path, nested_path)
            )


def _under(
    by_path: dict[tuple[int, ...], str], prefix: tuple[int, ...]
) -> dict[tuple[int, ...], str]:
    """The comments at and below `prefix`, by their path relative to it."""
    size = len(prefix)
    return {path[size:]: text for path, text in by_path.items() if path[:size] == prefix}


# ---- rendering --------------------------------------------------------------------------


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


@dataclass(frozen=True)
class Links:
    """The types a page documents, linked by full name, shown without the page's package."""

    documented: frozenset[str]
    package: str

    def __call__(self, type_name: str) -> str:
        name = type_name.lstrip(".")
        shown = name.removeprefix(f"{self.package}.")
        return f"[`{shown}`](#{name})" if name in self.documented else f"`{shown}`"


def _field_type(schema: Schema, f: FDP, links: Links) -> str:
    if f.type in SCALARS:
        shown = f"`{SCALARS[f.type]}`"
    else:
        entry = schema.types.get(f.type_name.lstrip("."))
        proto = entry.proto if entry else None
        if isinstance(proto, descriptor_pb2.DescriptorProto) and proto.options.map_entry:
            key, value = proto.field
            return f"map<{_field_type(schema, key, links)}, {_field_type(schema, value, links)}>"
        shown = links(f.type_name)
    if f.label == FDP.LABEL_REPEATED:
        return f"repeated {shown}"
    return f"optional {shown}" if f.proto3_optional else shown


def _reached(schema: Schema, roots: list[str]) -> list[str]:
    """The croupier messages and enums `roots` reach through their fields, sorted."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        entry = schema.types.get(name)
        if name in seen or entry is None or not name.startswith("croupier."):
            continue
        seen.add(name)
        if isinstance(entry.proto, descriptor_pb2.DescriptorProto):
            todo += [f.type_name.lstrip(".") for f in entry.proto.field if f.type_name]
    return sorted(seen)


def _fields_table(schema: Schema, entry: Described, links: Links) -> list[str]:
    message = entry.proto
    assert isinstance(message, descriptor_pb2.DescriptorProto)
    if not message.field:
        return ["(no fields)"]
    rows = ["| field | type | description |", "| --- | --- | --- |"]
    for i, f in enumerate(message.field):
        text = entry.comment(FIELD, i)
        if f.HasField("oneof_index") and not f.proto3_optional:
            text = f"one of `{message.oneof_decl[f.oneof_index].name}`. {text}"
        rows.append(f"| `{f.name}` | {_field_type(schema, f, links)} | {_cell(text)} |")
    return rows


def _type_section(schema: Schema, name: str, links: Links) -> list[str]:
    entry = schema.types[name]
    lines = [f'<a id="{name}"></a>', f"### {name}", ""]
    if entry.comment():
        lines += [entry.comment(), ""]
    if isinstance(entry.proto, descriptor_pb2.EnumDescriptorProto):
        lines += ["| value | number | description |", "| --- | --- | --- |"]
        for i, value in enumerate(entry.proto.value):
            comment = _cell(entry.comment(ENUM_VALUE, i))
            lines.append(f"| `{value.name}` | {value.number} | {comment} |")
    else:
        lines += _fields_table(schema, entry, links)
    return [*lines, ""]


# ---- errors -----------------------------------------------------------------------------


def status_table() -> list[tuple[str, str, int, str, str]]:
    """(status, Connect code, HTTP status, root class, its docstring) of every refusal kind."""
    from connectrpc._protocol import ConnectWireError  # the HTTP status the server sends
    from connectrpc.code import Code

    from croupier.kit.errors import STATUS_BY_ROOT

    rows = []
    for root, status in STATUS_BY_ROOT.items():
        code = Code[status.name]
        http = ConnectWireError(code, "", ()).to_http_status().code
        when = (inspect.getdoc(root) or "").split("\n\n")[0]
        rows.append((status.name, code.value, http, f"{root.__module__}.{root.__qualname__}", when))
    return rows


def _packages(service: str) -> list[str]:
    """The Python code that answers `service`: its domain's package (the table host's games
    too), and the credential check in front of it."""
    from croupier.table.games import ENGINE_MODULES

    domain = service.split(".")[1]
    if importlib.util.find_spec(f"croupier.{domain}") is None:
        return []  # served by the kit itself (diagnostics), open to every caller
    names = [f"croupier.{domain}", "croupier.kit.auth"]
    if domain == "table":
        names += ["croupier.game", *sorted(m.rsplit(".", 1)[0] for m in ENGINE_MODULES.values())]
    if domain != "gateway":  # the gateway is public; the others want a service credential
        names.append("croupier.kit.service_auth")
    return names


def _modules(package: str) -> Iterator[str]:
    module = importlib.import_module(package)
    yield package
    for info in pkgutil.walk_packages(getattr(module, "__path__", []), f"{package}."):
        if not any(part in ("v1", "tools") for part in info.name.split(".")):
            yield info.name


def _literal_reason(call: ast.Call, error: type[BaseException]) -> str | None:
    """The reason a `raise Error(...)` call gives: its `reason` argument when that is a
    string literal, else the class's own."""
    try:
        parameters = list(inspect.signature(error).parameters)
    except (TypeError, ValueError):
        parameters = []
    given: ast.expr | None = next((k.value for k in call.keywords if k.arg == "reason"), None)
    if given is None and "reason" in parameters and parameters.index("reason") < len(call.args):
        given = call.args[parameters.index("reason")]
    if given is not None:
        literal = isinstance(given, ast.Constant) and isinstance(given.value, str)
        return str(given.value) if literal else None  # computed: not knowable here
    reason = getattr(error, "reason", None)
    return reason if isinstance(reason, str) else None


def reasons_for(service: str) -> list[tuple[str, str]]:
    """(reason, status) of every refusal raised in `service`'s code (not where: a module
    split must not change the reference)."""
    from croupier.kit.errors import STATUS_BY_ROOT

    found: set[tuple[str, str]] = set()
    for package in _packages(service):
        for name in _modules(package):
            module = importlib.import_module(name)
            source = Path(module.__file__).read_text("utf-8") if module.__file__ else ""
            for node in ast.walk(ast.parse(source)):
                if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                    continue
                func = node.exc.func
                error = getattr(module, func.id, None) if isinstance(func, ast.Name) else None
                if not (isinstance(error, type) and issubclass(error, BaseException)):
                    continue
                status = next(
                    (STATUS_BY_ROOT[c] for c in error.__mro__ if c in STATUS_BY_ROOT), None
                )
                reason = _literal_reason(node.exc, error)
                if status is not None and reason:
                    found.add((reason, status.name))
    return sorted(found)


def _errors_section(service: str) -> list[str]:
    lines = [
        "## Errors",
        "",
        "A refusal answers the status of its kind (the kit's one table,",
        "`croupier.kit.errors.STATUS_BY_ROOT`), a message for the developer, its reason code in",
        "the `x-error-reason` trailer, and a `google.rpc.Status` (`grpc-status-details-bin`;",
        "Connect: the error's `details`) with an `ErrorInfo` (reason, domain `croupier`), a",
        "`BadRequest` field violation when the request got a field wrong, a `RetryInfo` when",
        "it says when to retry. Anything else is a bug: `INTERNAL`.",
        "",
        "| status | Connect code | HTTP | kind | when |",
        "| --- | --- | --- | --- | --- |",
    ]
    for status, connect, http, kind, when in status_table():
        lines.append(f"| `{status}` | `{connect}` | {http} | `{kind}` | {_cell(when)} |")
    if service == "croupier.gateway.v1.Gateway":
        lines += [
            "",
            "The gateway passes on a refusal of a service behind it with that service's status",
            "and reason: see [the lobby](croupier.lobby.v1.Lobby.md#errors),",
            "[the table host](croupier.table.v1.TableEngine.md#errors),",
            "[the wallet](croupier.wallet.v1.Wallet.md#errors) and",
            "[the tournament director](croupier.tournament.v1.TournamentDirector.md#errors).",
        ]
    found = reasons_for(service)
    if found:
        lines += [
            "",
            "Reason codes this service's code raises:",
            "",
            "| reason | status |",
            "| --- | --- |",
        ]
        lines += [f"| `{reason}` | `{status}` |" for reason, status in found]
    return [*lines, ""]


def service_page(schema: Schema, file: descriptor_pb2.FileDescriptorProto, index: int) -> str:
    service = file.service[index]
    full = f"{file.package}.{service.name}"
    comments = schema.comments[file.name]
    methods = list(service.method)
    roots = [m.input_type.lstrip(".") for m in methods] + [
        m.output_type.lstrip(".") for m in methods
    ]
    documented = _reached(schema, roots)
    links = Links(frozenset(documented), file.package)
    lines = [
        f"# {full}",
        "",
        f"<!-- Generated by scripts/gen_api_docs.py from protos/{file.name}: do not edit. -->",
        "",
    ]
    for intro in (comments.get((PACKAGE,), ""), comments.get((SERVICE, index), "")):
        if intro:
            lines += [intro, ""]
    lines += ["## Methods", "", "| method | request | response |", "| --- | --- | --- |"]
    for m in methods:
        stream = "stream " if m.server_streaming else ""
        lines.append(
            f"| [`{m.name}`](#{m.name}) | {links(m.input_type)} | {stream}{links(m.output_type)} |"
        )
    lines.append("")
    for j, m in enumerate(methods):
        stream = "stream " if m.server_streaming else ""
        request, response = m.input_type.lstrip("."), m.output_type.lstrip(".")
        lines += [f'<a id="{m.name}"></a>', f"### {m.name}", ""]
        lines += [f"`rpc {m.name}({request}) returns ({stream}{response})`", ""]
        if comment := comments.get((SERVICE, index, METHOD, j), ""):
            lines += [comment, ""]
        for what, name in (("Request", request), ("Response", response)):
            lines += [f"{what} {links(name)}:", ""]
            lines += [*_fields_table(schema, schema.types[name], links), ""]
    lines += ["## Messages and enums", ""]
    for name in documented:
        lines += _type_section(schema, name, links)
    lines += _errors_section(full)
    return "\n".join(lines).rstrip("\n") + "\n"


def pages(schema: Schema) -> Iterator[tuple[str, str]]:
    """(file name, text) of every service's page, and the index."""
    index = [
        "# API reference",
        "",
        "<!-- Generated by scripts/gen_api_docs.py from protos/: do not edit (make docs). -->",
        "",
        "Frontends call the gateway only (docs/gateway.md); the other services answer the",
        "gateway and each other, with a service credential.",
        "",
        "| service | proto | methods |",
        "| --- | --- | --- |",
    ]
    for file_name, file, _ in sorted(schema.services, key=lambda s: s[0]):
        for i, service in enumerate(file.service):
            full = f"{file.package}.{service.name}"
            page = f"{full}.md"
            yield page, service_page(schema, file, i)
            index.append(f"| [{full}]({page}) | `protos/{file_name}` | {len(service.method)} |")
    yield "README.md", "\n".join(index) + "\n"


def generate(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in pages(Schema.load(descriptor_set())):
        (out / name).write_text(text, "utf-8")
        written.append(out / name)
    return written


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # reasons.py beside it
    out = Path(argv[0]) if argv else OUT
    written = generate(out)
    print(f"wrote {len(written)} pages to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
