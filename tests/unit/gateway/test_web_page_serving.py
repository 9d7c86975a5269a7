"""The web page beside the API on the gateway's HTTP port: `/` and the built files, nothing
outside the build folder, the API's paths still the API's, a missing build explained."""

from __future__ import annotations

import pathlib
from collections.abc import MutableMapping
from typing import Any

from croupier.gateway.entrypoints.web_page import with_web_page

SERVICE = "/croupier.gateway.v1.Gateway"


async def _api(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 299, "headers": []})
    await send({"type": "http.response.body", "body": b"api"})


async def _get(
    root: pathlib.Path, path: str, method: str = "GET"
) -> tuple[int, bytes, dict[bytes, bytes]]:
    sent: list[MutableMapping[str, Any]] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    async def receive() -> MutableMapping[str, Any]:
        return {"type": "http.request", "body": b""}

    app = with_web_page(_api, SERVICE, root)
    await app({"type": "http", "path": path, "method": method}, receive, send)
    return sent[0]["status"], sent[1]["body"], dict(sent[0]["headers"])


def _built(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "dist"
    root.mkdir()
    (root / "index.html").write_text("<html>page</html>")
    (root / "app.js").write_text("console.log(1)")
    (tmp_path / "secret.txt").write_text("not served")
    return root


async def test_the_page_and_its_files_are_served_with_their_types(tmp_path: pathlib.Path) -> None:
    root = _built(tmp_path)
    status, body, headers = await _get(root, "/")
    assert (status, body) == (200, b"<html>page</html>")
    assert headers[b"content-type"] == b"text/html; charset=utf-8"
    status, _, headers = await _get(root, "/app.js")
    assert (status, headers[b"content-type"]) == (200, b"text/javascript; charset=utf-8")


async def test_nothing_outside_the_build_folder_is_served(tmp_path: pathlib.Path) -> None:
    root = _built(tmp_path)
    for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/nope.js", "//etc/passwd"):
        status, body, _ = await _get(root, path)
        assert status == 404 and b"not served" not in body, path


async def test_the_api_paths_go_to_the_api_and_other_methods_are_refused(
    tmp_path: pathlib.Path,
) -> None:
    root = _built(tmp_path)
    assert (await _get(root, f"{SERVICE}/ListTables", "POST"))[:2] == (299, b"api")
    assert (await _get(root, "/", "POST"))[0] == 405


async def test_a_missing_build_says_how_to_make_it(tmp_path: pathlib.Path) -> None:
    status, body, _ = await _get(tmp_path / "absent", "/")
    assert status == 404 and b"make web" in body
