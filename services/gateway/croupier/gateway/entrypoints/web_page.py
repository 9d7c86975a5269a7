"""The gateway's web page (services/gateway/web, built by `make web`) served beside the API
on the HTTP port: `GET /` and the built files; every other path goes to the Connect /
gRPC-Web application.

The page is static: the browser calls the API with the token the player pasted, like any
other client, so serving it grants nothing. Only files inside the build folder are served
(no listing, no path leaving it); without a build, `/` says how to make one.
"""

from __future__ import annotations

import mimetypes
import pathlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["BUILT_PAGE", "App", "with_web_page"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

# services/gateway/web/dist, from services/gateway/croupier/gateway/entrypoints/
BUILT_PAGE = pathlib.Path(__file__).resolve().parents[3] / "web" / "dist"
_TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".html": "text/html",
    ".map": "application/json",
}
_NOT_BUILT = (
    b"The web page is not built: run `make web` (npm install and build in services/gateway/web).\n"
)


def _file(root: pathlib.Path, path: str) -> pathlib.Path | None:
    """The built file `path` names, or None (unknown, or outside the build folder)."""
    relative = path.lstrip("/") or "index.html"
    candidate = (root / relative).resolve()
    if not candidate.is_relative_to(root) or not candidate.is_file():
        return None
    return candidate


async def _answer(send: Send, status: int, content_type: str, body: bytes) -> None:
    headers = [
        (b"content-type", content_type.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-cache"),
        (b"x-content-type-options", b"nosniff"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def with_web_page(api: App, service_path: str, root: pathlib.Path = BUILT_PAGE) -> App:
    """`api` for `service_path/...`, the page's files from `root` for the rest."""
    root = root.resolve()
    prefix = service_path.rstrip("/") + "/"

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", "/"))
        if scope["type"] != "http" or path.startswith(prefix):
            await api(scope, receive, send)
            return
        if scope.get("method") not in ("GET", "HEAD"):
            await _answer(
                send, 405, "text/plain", b"only GET here; the API is under " + prefix.encode()
            )
            return
        found = _file(root, path)
        if found is None:
            if not (root / "index.html").is_file():
                await _answer(send, 404, "text/plain; charset=utf-8", _NOT_BUILT)
            else:
                await _answer(send, 404, "text/plain", b"not found\n")
            return
        kind = (
            _TYPES.get(found.suffix)
            or mimetypes.guess_type(found.name)[0]
            or "application/octet-stream"
        )
        if kind.startswith("text/"):
            kind += "; charset=utf-8"
        await _answer(send, 200, kind, found.read_bytes())

    return app
