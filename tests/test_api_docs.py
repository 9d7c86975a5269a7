"""scripts/gen_api_docs.py: the committed API reference (docs/api) is the one the protos
and the services' code give now (regenerated in a temporary directory and compared), and a
page says what a frontend developer needs: every method with its request and response
fields and their comments, the statuses and the reason codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from croupier.gateway.v1 import gateway_pb2

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "gen_api_docs.py"
COMMITTED = ROOT / "docs" / "api"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("api")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {page.name: page.read_text("utf-8") for page in sorted(out.glob("*.md"))}


def test_the_committed_reference_is_up_to_date(generated: dict[str, str]) -> None:
    committed = {page.name: page.read_text("utf-8") for page in sorted(COMMITTED.glob("*.md"))}
    assert sorted(committed) == sorted(generated), "docs/api is out of date: run `make docs`"
    stale = [name for name in generated if committed[name] != generated[name]]
    assert stale == [], f"docs/api/{', '.join(stale)} out of date with the protos: run `make docs`"


def test_a_page_per_service_lists_every_method_with_its_fields_and_comments(
    generated: dict[str, str],
) -> None:
    assert "croupier.gateway.v1.Gateway.md" in generated["README.md"]
    page = generated["croupier.gateway.v1.Gateway.md"]
    service = gateway_pb2.DESCRIPTOR.services_by_name["Gateway"]
    for method in service.methods:
        assert f"### {method.name}\n" in page
        for field in method.input_type.fields:
            assert f"| `{field.name}` |" in page, (method.name, field.name)
    # The comments of the proto: the method's, a field's, and a streaming response.
    assert "The caller's balance in one currency." in page
    assert '| `currency` | `string` | "USD", "PLAY", "CHIP"... |' in page
    assert "`rpc WatchTable(croupier.gateway.v1.WatchTableRequest) returns (stream " in page
    # The messages of other packages a method reaches are documented on the page too.
    assert '<a id="croupier.lobby.v1.TableListing"></a>' in page


def test_the_errors_name_each_status_and_the_reasons_the_code_raises(
    generated: dict[str, str],
) -> None:
    gateway = generated["croupier.gateway.v1.Gateway.md"]
    assert "| `PERMISSION_DENIED` | `permission_denied` | 403 |" in gateway
    assert "| `RESOURCE_EXHAUSTED` | `resource_exhausted` | 429 |" in gateway
    assert "| `not_seated` | `PERMISSION_DENIED` |" in gateway
    assert "| `token_expired` | `UNAUTHENTICATED` |" in gateway
    table_host = generated["croupier.table.v1.TableEngine.md"]
    assert "| `not_your_turn` | `FAILED_PRECONDITION` |" in table_host
    assert "| `service_token_missing` | `UNAUTHENTICATED` |" in table_host
    assert "service_token_missing" not in gateway  # the gateway is public: players' tokens
