"""deploy/k8s (the chart rendered), charts/croupier and deploy/docker/Dockerfile: the
properties we rely on.

No cluster or Docker is needed: `deploy/k8s/croupier.yaml` (what `deploy/k8s/render.sh`
makes of the chart's default values, checked to be up to date) is read as YAML and the
Dockerfile as text, and checked for what the runbook promises: every workload probed over
gRPC, non-root with a read-only root filesystem and no capabilities, with requests and
limits, configured by environment (the DSN only from a Secret), scraped by Prometheus; one
table-engine service per game (a StatefulSet and a headless Service) that every caller
names.
"""

from __future__ import annotations

import functools
import json
import pathlib
import re
import subprocess
from typing import Any

import pytest
import yaml

from croupier.table.client import game_targets

ROOT = pathlib.Path(__file__).resolve().parent.parent
K8S = ROOT / "deploy" / "k8s"
RENDERED = K8S / "croupier.yaml"
CHART = ROOT / "charts" / "croupier"
GAMES = ("poker", "backgammon", "rummy", "joker")
TABLE_SERVICES = tuple(f"table-{game}" for game in GAMES)
SERVICES = (*TABLE_SERVICES, "wallet", "lobby", "tournament", "gateway", "bots")
GRPC_PORT = 50051
METRICS_PORT = 9090
BASE_ENV = {
    "CROUPIER_SERVICE_KEYS",
    "CROUPIER_GRPC_PORT",
    "CROUPIER_METRICS_PORT",
    "CROUPIER_SHUTDOWN_GRACE_SECONDS",
    "CROUPIER_LOG_LEVEL",
}

Document = dict[str, Any]


def image_name(name: str) -> str:
    """The service whose image a workload runs (every game's table service: table's)."""
    return name.split("-")[0]


@functools.cache
def objects() -> dict[tuple[str, str], Document]:
    found: dict[tuple[str, str], Document] = {}
    with RENDERED.open() as handle:
        for doc in yaml.safe_load_all(handle):
            if doc is None:
                continue
            key = (doc["kind"], doc["metadata"]["name"])
            assert key not in found, f"{key} defined twice"
            found[key] = doc
    return found


def deployment(name: str) -> Document:
    """The workload `name`: a Deployment, or a StatefulSet for a game's table service."""
    kind = "StatefulSet" if name in TABLE_SERVICES else "Deployment"
    return objects()[(kind, name)]


def container(name: str) -> Document:
    (only,) = deployment(name)["spec"]["template"]["spec"]["containers"]
    assert isinstance(only, dict)
    return only


def env_of(name: str) -> dict[str, Document]:
    return {item["name"]: item for item in container(name)["env"]}


# ---- deploy/k8s: the chart rendered ------------------------------------------------------


def test_the_plain_manifests_are_the_chart_rendered(tmp_path: pathlib.Path) -> None:
    fresh = tmp_path / "croupier.yaml"
    done = subprocess.run(
        [str(K8S / "render.sh"), str(fresh)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert fresh.read_text() == RENDERED.read_text(), (
        "deploy/k8s/croupier.yaml is stale: run deploy/k8s/render.sh"
    )


def test_kustomization_applies_the_rendered_chart() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert kustomization["resources"] == ["croupier.yaml"]
    assert sorted(p.name for p in K8S.glob("*.yaml")) == ["croupier.yaml", "kustomization.yaml"]


@pytest.mark.parametrize("name", SERVICES)
def test_each_service_has_a_service_account_workload_and_service(name: str) -> None:
    assert ("Service", name) in objects()
    spec = deployment(name)["spec"]["template"]["spec"]
    assert spec["serviceAccountName"] == image_name(name)
    assert ("ServiceAccount", image_name(name)) in objects()
    assert spec["automountServiceAccountToken"] is False


@pytest.mark.parametrize("game", GAMES)
def test_each_game_has_its_own_stateful_table_service(game: str) -> None:
    """Stable pod names for Kafka static membership, a headless Service over the replicas,
    the process restricted to the game with the game's own command log."""
    name = f"table-{game}"
    workload = deployment(name)["spec"]
    assert workload["serviceName"] == name
    assert objects()[("Service", name)]["spec"]["clusterIP"] == "None"
    env = env_of(name)
    assert env["CROUPIER_TABLE_GAMES"]["value"] == game
    assert env["CROUPIER_TABLE_COMMANDS_TOPIC"]["value"] == f"croupier.table.{game}.commands"
    assert env["CROUPIER_TABLE_INSTANCE_ID"]["valueFrom"]["fieldRef"] == {
        "fieldPath": "metadata.name"
    }
    assert container(name)["image"].startswith("croupier/table:")


@pytest.mark.parametrize("name", ["lobby", "tournament", "gateway", "bots"])
def test_every_caller_names_each_games_table_pod(name: str) -> None:
    # One replica per game by default: its pod under the game's headless Service.
    targets = game_targets(env_of(name)["CROUPIER_TABLE_ADDRESS"]["value"])
    assert targets == {game: f"table-{game}-0.table-{game}:{GRPC_PORT}" for game in GAMES}


@pytest.mark.parametrize("name", SERVICES)
def test_deployment_has_grpc_readiness_and_liveness_probes(name: str) -> None:
    server = container(name)
    ports = {port["name"]: port["containerPort"] for port in server["ports"]}
    http = {"http": chart_values()["services"][name]["httpPort"]} if name == "gateway" else {}
    assert ports == {"grpc": GRPC_PORT, "metrics": METRICS_PORT, **http}
    for probe in ("readinessProbe", "livenessProbe"):
        assert server[probe]["grpc"]["port"] == ports["grpc"], probe
    if "startupProbe" in server:
        assert server["startupProbe"]["grpc"]["port"] == ports["grpc"]


@pytest.mark.parametrize("name", SERVICES)
def test_deployment_runs_non_root_read_only_without_capabilities(name: str) -> None:
    pod = deployment(name)["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] > 0
    assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
    security = container(name)["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    assert "add" not in security["capabilities"]


@pytest.mark.parametrize("name", SERVICES)
def test_deployment_has_requests_and_limits(name: str) -> None:
    resources = container(name)["resources"]
    for bound in ("requests", "limits"):
        assert set(resources[bound]) == {"cpu", "memory"}, bound


@pytest.mark.parametrize("name", SERVICES)
def test_deployment_is_configured_by_environment(name: str) -> None:
    env = env_of(name)
    assert set(env) >= BASE_ENV
    assert env["CROUPIER_GRPC_PORT"]["value"] == str(GRPC_PORT)
    assert env["CROUPIER_METRICS_PORT"]["value"] == str(METRICS_PORT)
    if "CROUPIER_POSTGRES_DSN" in env:
        dsn = env["CROUPIER_POSTGRES_DSN"]
        assert "value" not in dsn, "the DSN holds a password: only from a Secret"
        assert dsn["valueFrom"]["secretKeyRef"] == {"name": "croupier-postgres", "key": "dsn"}
    config = objects()[("ConfigMap", "croupier-config")]["data"]
    for item in env.values():
        reference = item.get("valueFrom", {}).get("configMapKeyRef")
        if reference is not None:
            assert reference["name"] == "croupier-config"
            assert reference["key"] in config, reference


@pytest.mark.parametrize(
    ("name", "kafka", "postgres"),
    [
        *((name, True, False) for name in TABLE_SERVICES),
        ("wallet", True, True),
        ("lobby", True, True),
        ("tournament", True, True),
        ("gateway", False, False),
        ("bots", True, False),
    ],
)
def test_stores_follow_the_architecture(name: str, kafka: bool, postgres: bool) -> None:
    """docs/architecture.md §5: wallet, tournament, lobby on PostgreSQL; engines on Kafka only."""
    env = env_of(name)
    assert ("CROUPIER_KAFKA_BOOTSTRAP" in env) is kafka
    assert ("CROUPIER_POSTGRES_DSN" in env) is postgres


@pytest.mark.parametrize("name", SERVICES)
def test_pods_are_annotated_for_prometheus_on_the_metrics_port(name: str) -> None:
    annotations = deployment(name)["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == str(METRICS_PORT)
    assert annotations["prometheus.io/path"] == "/metrics"


@pytest.mark.parametrize("name", SERVICES)
def test_service_selects_the_pods_and_exposes_grpc_and_metrics(name: str) -> None:
    service = objects()[("Service", name)]["spec"]
    template = deployment(name)["spec"]["template"]
    selector = deployment(name)["spec"]["selector"]["matchLabels"]
    assert service["selector"].items() <= template["metadata"]["labels"].items()
    assert selector.items() <= template["metadata"]["labels"].items()
    ports = {port["name"]: port for port in service["ports"]}
    assert ports["grpc"]["port"] == GRPC_PORT
    assert ports["grpc"]["targetPort"] == "grpc"
    assert ports["grpc"]["appProtocol"] == "grpc"
    assert ports["metrics"]["targetPort"] == "metrics"


def test_grace_period_outlasts_the_drain() -> None:
    for name in SERVICES:
        pod = deployment(name)["spec"]["template"]["spec"]
        drain = float(env_of(name)["CROUPIER_SHUTDOWN_GRACE_SECONDS"]["value"])
        assert pod["terminationGracePeriodSeconds"] > drain, name


def test_callers_fail_over_for_as_long_as_a_table_service_drains() -> None:
    """A caller tries a table call again for the drain window: a rolled table pod is not
    a failed call (tests/integration/table/test_rolling_restart_kafka.py)."""
    from croupier.table.client import TABLE_FAILOVER_SECONDS

    for name in TABLE_SERVICES:
        drain = float(env_of(name)["CROUPIER_SHUTDOWN_GRACE_SECONDS"]["value"])
        assert drain <= TABLE_FAILOVER_SECONDS, name


# ---- Helm chart -----------------------------------------------------------------------


def chart_values() -> Document:
    values: Document = yaml.safe_load((CHART / "values.yaml").read_text())
    return values


def test_chart_yaml_parses() -> None:
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["apiVersion"] == "v2"
    assert chart["name"] == "croupier"
    assert chart["type"] == "application"
    assert re.fullmatch(r"\d+\.\d+\.\d+", chart["version"])
    assert isinstance(chart["appVersion"], str)
    # The plain manifests use the same image tag as the chart's default.
    for name in SERVICES:
        assert container(name)["image"] == f"croupier/{image_name(name)}:{chart['appVersion']}"


def test_values_have_a_block_per_service_and_global_switches() -> None:
    values = chart_values()
    assert set(values["services"]) == {image_name(name) for name in SERVICES}
    assert values["services"]["table"]["games"] == list(GAMES)
    for name, block in values["services"].items():
        assert isinstance(block["create"], bool), name
        assert isinstance(block["replicas"], int), name
        assert isinstance(block["image"], dict), name
        assert set(block["resources"]) == {"requests", "limits"}, name
    global_values = values["global"]
    for switch in ("prometheusAnnotations", "networkPolicies"):
        assert isinstance(global_values[switch], bool), switch
    assert isinstance(global_values["securityContext"]["enable"], bool)
    assert global_values["ports"] == {"grpc": GRPC_PORT, "metrics": METRICS_PORT}


def _value_paths(node: Any, prefix: str = "") -> set[str]:
    paths = {prefix} if prefix else set()
    if isinstance(node, dict):
        for key, child in node.items():
            paths |= _value_paths(child, f"{prefix}.{key}" if prefix else key)
    return paths


def test_templates_only_use_values_that_exist() -> None:
    values = chart_values()
    known = _value_paths(values)
    # What every service has, plus the optional keys the schema allows (read with `with`).
    service_keys = set.intersection(*(set(block) for block in values["services"].values()))
    schema = json.loads((CHART / "values.schema.json").read_text())
    service_keys |= set(schema["properties"]["services"]["additionalProperties"]["properties"])
    # templates/monitoring/ reads its optional `monitoring` block with defaults
    # (tests/test_observability.py checks it).
    templates = sorted(p for p in (CHART / "templates").glob("*") if p.is_file())
    assert templates
    for template in templates:
        text = template.read_text()
        assert text.count("{{") == text.count("}}"), template.name
        for path in re.findall(r"\.Values\.([A-Za-z0-9_.]+)", text):
            assert path in known, f"{template.name}: .Values.{path}"
        for path in re.findall(r"\$global\.([A-Za-z0-9_.]+)", text):
            assert f"global.{path}" in known, f"{template.name}: $global.{path}"
        for key in re.findall(r"\$service\.([A-Za-z0-9_]+)", text):
            assert key in service_keys, f"{template.name}: $service.{key}"


# ---- the image ------------------------------------------------------------------------

DOCKERFILE = ROOT / "deploy" / "docker" / "Dockerfile"


def instructions() -> list[str]:
    """The Dockerfile's instructions, continuation lines joined, comments dropped."""
    joined = DOCKERFILE.read_text().replace("\\\n", " ")
    lines = [line.strip() for line in joined.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def test_one_dockerfile_builds_every_service() -> None:
    assert not sorted((ROOT / "services").glob("*/Dockerfile")), "one Dockerfile, SERVICE arg"
    from croupier.cli.serve import SERVICE_MODULES

    entry = [line for line in instructions() if line.startswith("ENTRYPOINT")]
    assert entry == [
        'ENTRYPOINT ["/bin/sh", "-c", "exec croupier serve \\"${CROUPIER_SERVICE}\\"", "--"]'
    ]
    assert "CROUPIER_SERVICE=${SERVICE}" in DOCKERFILE.read_text()
    for name in SERVICES:
        assert image_name(name) in SERVICE_MODULES, name


def test_dockerfile_is_multi_stage_pinned_and_non_root() -> None:
    lines = instructions()
    froms = [line for line in lines if line.startswith("FROM ")]
    assert froms == ["FROM ${PYTHON_IMAGE} AS builder", "FROM ${PYTHON_IMAGE}"]
    (base,) = [line for line in lines if line.startswith("ARG PYTHON_IMAGE=")]
    image = base.split("=", 1)[1]
    assert ":" in image and not image.endswith(":latest"), "the base image is pinned"
    assert "uv==" in " ".join(lines), "uv pinned"
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users == ["10001:10001"]
    # Both stages declare SERVICE (an ARG does not cross a FROM).
    assert lines.count("ARG SERVICE") == 2
    assert "PYTHONUNBUFFERED=1" in DOCKERFILE.read_text()


def test_each_image_installs_only_its_services_extra_from_the_lock() -> None:
    text = " ".join(instructions())
    syncs = [part for part in text.split("&&") if "uv sync" in part]
    assert syncs and all("--frozen" in s and "--no-dev" in s for s in syncs)
    assert all("--all-extras" not in s for s in syncs)
    assert all("${EXTRA}" in s or "$(cat /tmp/extra)" in s for s in syncs)
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = extras["optional-dependencies"]
    # The extras the image picks by service name, and the one no image takes.
    assert {"table", "wallet", "gateway", "embedded"} <= set(extras)
    assert not any("embedded" in s for s in syncs)
    pinned = [line for line in (ROOT / "pyproject.toml").read_text().splitlines()]
    for name in ("table", "wallet", "gateway"):
        assert any(line.startswith(f"{name} = ") for line in pinned), name


def test_dockerignore_keeps_the_context_small() -> None:
    text = (ROOT / ".dockerignore").read_text()
    rules = [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]
    assert rules[0] == "*", "allow-list: everything is excluded first"
    for needed in ("!pyproject.toml", "!uv.lock", "!protos/", "!scripts/gen_protos.py"):
        assert needed in rules, needed
    assert "!services/" in rules
