"""charts/croupier through the real Helm (deploy/local/tools.sh builds it: `make test` runs
`tools.sh ensure`), and every rendered object validated against the Kubernetes API schemas
of the supported versions (kubernetes-validate ships them: no cluster, no network)."""

from __future__ import annotations

import pathlib
import subprocess
from typing import Any

import kubernetes_validate
import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHART = ROOT / "charts" / "croupier"
# The oldest and newest Kubernetes the chart supports (gRPC probes need 1.24; the schemas
# kubernetes-validate ships start at 1.25), and one in between.
KUBE_VERSIONS = ("1.30.0", "1.34.0", "1.37.0")
VALUES_FILES = ("values.yaml", "values-dev.yaml", "values-production.yaml")
# Operators' resources, checked by their own tests below.
GAMES = ("poker", "backgammon", "rummy", "joker")
WORKLOADS = ("Deployment", "StatefulSet")
CUSTOM_RESOURCES = {"kafka.strimzi.io/v1beta2", "postgresql.cnpg.io/v1"}


def helm() -> str:
    found = subprocess.run(
        [str(ROOT / "deploy" / "local" / "tools.sh"), "path", "helm"],
        capture_output=True,
        text=True,
    )
    if found.returncode != 0:
        pytest.fail(f"helm is not built: {found.stderr.strip()}", pytrace=False)
    return found.stdout.strip()


def run_helm(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([helm(), *args], capture_output=True, text=True, timeout=120)


def render(values: str, kube_version: str, *sets: str) -> list[dict[str, Any]]:
    options = [f"--set={item}" for item in sets]
    done = run_helm(
        "template", "croupier", str(CHART), "-f", str(CHART / values),
        "--kube-version", kube_version, *options,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


@pytest.mark.parametrize("values", VALUES_FILES)
def test_helm_lint_strict_passes(values: str) -> None:
    done = run_helm(
        "lint", "--strict", str(CHART), "-f", str(CHART / values), "--kube-version", "1.30.0"
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("kube_version", KUBE_VERSIONS)
@pytest.mark.parametrize("values", VALUES_FILES)
def test_every_rendered_object_is_valid_for_the_kubernetes_version(
    values: str, kube_version: str
) -> None:
    objects = render(values, kube_version)
    assert objects
    for obj in objects:
        if obj["apiVersion"] in CUSTOM_RESOURCES:
            continue  # no schema shipped: test_kafka_topics_match_what_the_code_needs
        kubernetes_validate.validate(obj, kube_version, strict=True)


def test_network_policies_are_on_by_default_and_only_the_gateway_is_open() -> None:
    policies = {
        obj["metadata"]["name"]: obj["spec"]
        for obj in render("values.yaml", "1.30.0")
        if obj["kind"] == "NetworkPolicy"
    }
    tables = {f"table-{game}" for game in GAMES}
    assert set(policies) == {*tables, "wallet", "lobby", "tournament", "gateway", "bots"}
    for name, spec in policies.items():
        grpc_rule = spec["ingress"][0]
        http = [{"port": "http"}] if name == "gateway" else []
        assert grpc_rule["ports"] == [{"port": "grpc"}, *http]
        if name == "gateway":
            assert "from" not in grpc_rule, "the gateway is the one public service"
        else:
            assert grpc_rule["from"] == [
                {"podSelector": {"matchLabels": {"app.kubernetes.io/part-of": "croupier"}}}
            ], name


def test_the_values_schema_refuses_a_wrong_value_with_its_path() -> None:
    done = run_helm(
        "template", "croupier", str(CHART), "--kube-version", "1.30.0",
        "--set", "services.wallet.replicas=-1",
    )  # fmt: skip
    assert done.returncode != 0
    assert "/services/wallet/replicas" in done.stderr


def test_the_monitoring_switches_are_values_off_by_default_and_checked() -> None:
    monitoring = yaml.safe_load((CHART / "values.yaml").read_text())["monitoring"]
    assert {name: block["enabled"] for name, block in monitoring.items()} == {
        "serviceMonitor": False,
        "prometheusRule": False,
        "dashboards": False,
    }
    done = run_helm(
        "template", "croupier", str(CHART), "--kube-version", "1.30.0",
        "--set", "monitoring.prometheusRule.enabeld=true",
    )  # fmt: skip
    assert done.returncode != 0, "a misspelt switch is refused, not ignored"
    assert "/monitoring/prometheusRule" in done.stderr


def test_production_values_pull_from_a_registry_at_a_fixed_tag() -> None:
    for obj in render("values-production.yaml", "1.30.0"):
        if obj["kind"] in WORKLOADS:
            (container,) = obj["spec"]["template"]["spec"]["containers"]
            assert container["image"].startswith("registry.example/croupier/")
            assert container["image"].endswith(":0.1.0")


def test_kafka_topics_match_what_the_code_needs() -> None:
    """Every topic the local broker gets (deploy/local/kafka_admin.py) is a KafkaTopic with
    the same partitions (the table host's two, one pair per game: the local broker's host
    runs every game on one pair), and each game's table topics have the settings the host's
    start-up check demands (croupier.table.adapters.kafka_topics); each has a dead-letter
    topic."""
    import importlib.util

    from croupier.table.adapters.kafka_topics import (
        LOG_TOPIC_CONFIGS,
        MIN_LOG_RETENTION_MS,
        SNAPSHOT_TOPIC_CONFIGS,
        SNAPSHOTS_TOPIC,
        snapshots_topic_for,
    )
    from croupier.table.adapters.log_codec import TOPIC

    spec = importlib.util.spec_from_file_location(
        "kafka_admin", ROOT / "deploy" / "local" / "kafka_admin.py"
    )
    assert spec is not None and spec.loader is not None
    admin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(admin)

    topics = {
        obj["spec"]["topicName"]: obj
        for obj in render("values-production.yaml", "1.30.0")
        if obj["kind"] == "KafkaTopic"
    }
    per_game = {
        table_topic: [table_topic.replace(".table.", f".table.{game}.") for game in GAMES]
        for table_topic in (TOPIC, SNAPSHOTS_TOPIC)
    }
    for listed, partitions in admin.TOPICS:
        for name in per_game.get(listed, [listed]):
            assert topics[name]["spec"]["partitions"] == partitions, name
            assert topics[f"{name}.dlq"]["spec"]["partitions"] == 1, name
    assert TOPIC not in topics, "no table service runs every game"
    for obj in topics.values():
        assert obj["metadata"]["labels"]["strimzi.io/cluster"] == "croupier"
        assert obj["spec"]["replicas"] >= 3
        assert int(obj["spec"]["config"]["min.insync.replicas"]) >= 2
    for commands, snapshots in zip(per_game[TOPIC], per_game[SNAPSHOTS_TOPIC], strict=True):
        assert snapshots == snapshots_topic_for(commands)
        log = topics[commands]["spec"]["config"]
        assert log["cleanup.policy"] == LOG_TOPIC_CONFIGS["cleanup.policy"]
        assert int(log["retention.ms"]) >= MIN_LOG_RETENTION_MS
        for key, value in SNAPSHOT_TOPIC_CONFIGS.items():
            assert topics[snapshots]["spec"]["config"][key] == value, key
        assert topics[snapshots]["spec"]["partitions"] == topics[commands]["spec"]["partitions"]


def test_no_kafka_topic_without_strimzi() -> None:
    assert not [obj for obj in render("values.yaml", "1.30.0") if obj["kind"] == "KafkaTopic"]


def test_a_stopping_pod_leaves_the_service_before_sigterm_and_drains_within_its_grace() -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text())["global"]
    for obj in render("values-production.yaml", "1.30.0"):
        if obj["kind"] not in WORKLOADS:
            continue
        pod = obj["spec"]["template"]["spec"]
        (container,) = pod["containers"]
        assert container["lifecycle"]["preStop"]["exec"]["command"] == [
            "sleep",
            str(values["preStopSeconds"]),
        ]
        drain = next(
            float(item["value"])
            for item in container["env"]
            if item["name"] == "CROUPIER_SHUTDOWN_GRACE_SECONDS"
        )
        assert pod["terminationGracePeriodSeconds"] > values["preStopSeconds"] + drain
        keys = [c["topologyKey"] for c in pod["topologySpreadConstraints"]]
        assert keys == ["kubernetes.io/hostname", "topology.kubernetes.io/zone"]


def test_replicated_services_have_a_disruption_budget_and_stateless_ones_autoscale() -> None:
    objects = render("values-production.yaml", "1.30.0")
    replicas = {
        o["metadata"]["name"]: o["spec"]["replicas"] for o in objects if o["kind"] in WORKLOADS
    }
    budgets = {o["metadata"]["name"] for o in objects if o["kind"] == "PodDisruptionBudget"}
    assert budgets == {name for name, count in replicas.items() if count > 1}
    scalers = {o["metadata"]["name"] for o in objects if o["kind"] == "HorizontalPodAutoscaler"}
    assert scalers == {"gateway", "lobby"}


def test_the_ledger_is_migrated_by_a_hook_and_reconciled_daily_with_real_commands() -> None:
    from croupier.cli.main import build_parser

    objects = {(o["kind"], o["metadata"]["name"]): o for o in render("values.yaml", "1.30.0")}
    job = objects[("Job", "wallet-migrate")]
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    (migrate,) = job["spec"]["template"]["spec"]["containers"]
    assert migrate["image"].startswith("croupier/wallet:")
    assert build_parser().parse_args(migrate["command"][1:]).action == "migrate"
    cron = objects[("CronJob", "ledger-reconcile-usd")]
    assert cron["spec"]["schedule"] == "30 0 * * *"
    (reconcile,) = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]
    script = reconcile["command"][2].removeprefix("exec ")
    words = script.replace('"$(date -u -d yesterday +%F)"', "2026-12-04").split()
    parsed = build_parser().parse_args(words[1:])
    assert (parsed.action, str(parsed.day)[:10], parsed.currency) == (
        "reconcile",
        "2026-12-04",
        "USD",
    )
    for container in (migrate, reconcile):
        (dsn,) = container["env"]
        assert dsn["valueFrom"]["secretKeyRef"] == {"name": "croupier-postgres", "key": "dsn"}


def test_every_schema_is_migrated_by_a_hook_job_and_its_pods_only_check() -> None:
    """A Job per service on PostgreSQL, in the service's image, runs a real `croupier`
    command before the new pods start; the pods are told to check, not migrate; hook pods
    name no ServiceAccount (a pre-install hook runs before the release's exist)."""
    from croupier.cli.main import build_parser

    objects = render("values.yaml", "1.30.0")
    jobs = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Job"}
    assert set(jobs) == {"wallet-migrate", "lobby-migrate", "tournament-migrate"}
    for name, job in jobs.items():
        service = name.removesuffix("-migrate")
        assert job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
        pod = job["spec"]["template"]["spec"]
        assert "serviceAccountName" not in pod
        (container,) = pod["containers"]
        assert container["image"].startswith(f"croupier/{service}:")
        parsed = build_parser().parse_args(container["command"][1:])
        assert parsed.command == ("ledger" if service == "wallet" else "migrate")
        assert getattr(parsed, "service", service) == service
    for obj in objects:
        if obj["kind"] in WORKLOADS:
            (container,) = obj["spec"]["template"]["spec"]["containers"]
            env = {item["name"]: item.get("value") for item in container["env"]}
            if "CROUPIER_POSTGRES_DSN" in env:
                assert env["CROUPIER_MIGRATE_AT_START"] == "check", obj["metadata"]["name"]


def test_services_that_migrate_or_replay_before_listening_have_a_startup_probe() -> None:
    for obj in render("values.yaml", "1.30.0"):
        if obj["kind"] not in WORKLOADS:
            continue
        (container,) = obj["spec"]["template"]["spec"]["containers"]
        env = {item["name"] for item in container["env"]}
        slow_start = "CROUPIER_POSTGRES_DSN" in env or obj["kind"] == "StatefulSet"
        assert ("startupProbe" in container) is slow_start, obj["metadata"]["name"]
        if slow_start:
            assert container["startupProbe"]["grpc"]["port"] == 50051
            assert "initialDelaySeconds" not in container["livenessProbe"]


def test_the_gateway_serves_browsers_on_http_and_reads_its_keys_from_a_secret() -> None:
    objects = {(o["kind"], o["metadata"]["name"]): o for o in render("values.yaml", "1.30.0")}
    service_ports = {p["name"]: p["port"] for p in objects[("Service", "gateway")]["spec"]["ports"]}
    assert service_ports["http"] == 8080
    (container,) = objects[("Deployment", "gateway")]["spec"]["template"]["spec"]["containers"]
    env = {item["name"]: item for item in container["env"]}
    assert "value" not in env["CROUPIER_AUTH_KEYS"], "keys only from a Secret"
    assert env["CROUPIER_AUTH_KEYS"]["valueFrom"]["secretKeyRef"]["name"] == "croupier-auth-keys"


def _gateway_env(*sets: str) -> dict[str, str]:
    objects = {
        (o["kind"], o["metadata"]["name"]): o for o in render("values.yaml", "1.30.0", *sets)
    }
    (container,) = objects[("Deployment", "gateway")]["spec"]["template"]["spec"]["containers"]
    return {item["name"]: item["value"] for item in container["env"] if "value" in item}


def test_the_gateways_trusted_proxies_and_stream_retry_are_values_it_reads() -> None:
    from croupier.gateway.bootstrap import GatewaySettings
    from croupier.gateway.core.client_address import parse_networks
    from croupier.kit.settings import load

    default = _gateway_env()
    assert "CROUPIER_GATEWAY_TRUSTED_PROXIES" not in default, "no proxy trusted by default"
    assert default["CROUPIER_GATEWAY_HTTP_PORT"] == "8080"
    env = _gateway_env(
        "services.gateway.trustedProxies={10.0.0.0/8,192.168.1.7}",
        "services.gateway.streamRetrySeconds=90",
        "services.gateway.httpPort=8081",
    )
    settings = load(GatewaySettings, {**env, "CROUPIER_AUTH_KEYS": "k1=" + "k" * 40})
    assert settings.trusted_proxies == parse_networks("10.0.0.0/8,192.168.1.7")
    assert (settings.stream_retry_seconds, settings.http_port) == (90, 8081)
    for bad in ("trustedProxies={proxy.example}", "streamRetrySeconds=0"):
        done = run_helm("template", "croupier", str(CHART), f"--set=services.gateway.{bad}")
        assert done.returncode != 0 and "schema" in done.stderr, bad


def test_every_service_reads_the_service_keys_from_a_secret() -> None:
    for obj in render("values.yaml", "1.30.0"):
        if obj["kind"] in WORKLOADS:
            (container,) = obj["spec"]["template"]["spec"]["containers"]
            env = {item["name"]: item for item in container["env"]}
            assert env["CROUPIER_SERVICE_KEYS"]["valueFrom"]["secretKeyRef"] == {
                "name": "croupier-service-keys",
                "key": "keys",
            }, obj["metadata"]["name"]


def test_cloudnativepg_is_optional_and_pools_sessions() -> None:
    assert not [
        o for o in render("values.yaml", "1.30.0") if o["apiVersion"].startswith("postgresql")
    ]
    backup = (
        "cloudnativepg.backup.destinationPath=s3://bucket/croupier",
        "cloudnativepg.backup.retention=30d",
        "cloudnativepg.backup.schedule=0 0 2 * * *",
    )
    objects = {
        o["kind"]: o for o in render("values.yaml", "1.30.0", "cloudnativepg.enabled=true", *backup)
    }
    assert objects["Cluster"]["spec"]["instances"] == 3
    assert objects["Cluster"]["spec"]["backup"]["barmanObjectStore"]["destinationPath"] == (
        "s3://bucket/croupier"
    )
    assert objects["ScheduledBackup"]["spec"]["cluster"] == {"name": "croupier-pg"}
    # search_path as a start-up parameter and prepared statements need session pooling.
    assert objects["Pooler"]["spec"]["pgbouncer"]["poolMode"] == "session"
    without_backup = render("values.yaml", "1.30.0", "cloudnativepg.enabled=true")
    assert "ScheduledBackup" not in {o["kind"] for o in without_backup}


def test_kafka_tls_and_sasl_come_from_secrets_mounted_where_the_settings_point() -> None:
    """SASL_SSL with Strimzi's Secrets: the password by reference, the cluster CA and the
    client certificate mounted as the files CROUPIER_KAFKA_SSL_* name, in every process
    that reaches Kafka, read by croupier.kit.kafka_security as a consistent setting."""
    from croupier.kit.kafka_security import KafkaSecurity

    objects = render(
        "values-production.yaml",
        "1.30.0",
        "global.kafka.securityProtocol=SASL_SSL",
        "global.kafka.sasl.username=croupier",
        "global.kafka.sasl.passwordSecret.secretName=croupier",
        "global.kafka.sasl.passwordSecret.key=password",
        "global.kafka.caSecret.secretName=croupier-cluster-ca-cert",
        "global.kafka.caSecret.key=ca.crt",
        "global.kafka.clientCertSecret=croupier",
    )
    kafka_workloads = 0
    for obj in objects:
        if obj["kind"] not in WORKLOADS:
            continue
        pod = obj["spec"]["template"]["spec"]
        (container,) = pod["containers"]
        env = {item["name"]: item for item in container["env"]}
        if "CROUPIER_KAFKA_BOOTSTRAP" not in env:
            assert not [name for name in env if name.startswith("CROUPIER_KAFKA_")]
            continue
        kafka_workloads += 1
        values = {name: item.get("value", "from-the-secret") for name, item in env.items()}
        security = KafkaSecurity.from_environment(values)
        assert (security.protocol, security.sasl_username) == ("SASL_SSL", "croupier")
        assert security.ssl_ca_file and security.ssl_cert_file and security.ssl_key_file
        assert "value" not in env["CROUPIER_KAFKA_SASL_PASSWORD"], "only from a Secret"
        assert env["CROUPIER_KAFKA_SASL_PASSWORD"]["valueFrom"]["secretKeyRef"] == {
            "name": "croupier",
            "key": "password",
        }
        mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
        volumes = {v["name"]: v for v in pod["volumes"]}
        for variable, secret, key in (
            ("CROUPIER_KAFKA_SSL_CA_FILE", "croupier-cluster-ca-cert", "ca.crt"),
            ("CROUPIER_KAFKA_SSL_CERT_FILE", "croupier", "user.crt"),
            ("CROUPIER_KAFKA_SSL_KEY_FILE", "croupier", "user.key"),
        ):
            path = pathlib.PurePosixPath(env[variable]["value"])
            (volume,) = [name for name, where in mounts.items() if where == str(path.parent)]
            source = volumes[volume]["secret"]
            assert source["secretName"] == secret, variable
            assert {"key": key, "path": path.name} in source["items"], variable
    assert kafka_workloads == 4 + 4  # every game's table service, wallet, lobby, director, bots


def test_plaintext_kafka_mounts_nothing() -> None:
    for obj in render("values.yaml", "1.30.0"):
        if obj["kind"] in WORKLOADS:
            volumes = [v["name"] for v in obj["spec"]["template"]["spec"]["volumes"]]
            assert volumes == ["tmp"], obj["metadata"]["name"]


def test_the_charts_kafka_topics_are_the_codes_list() -> None:
    """`croupier kafka`'s TOPICS is the one list: the chart's KafkaTopics (per game for the
    table host's pair) have its partitions and settings, plus min.insync.replicas."""
    from croupier.cli.kafka import topics_for

    rendered = {
        obj["spec"]["topicName"]: (obj["spec"]["partitions"], obj["spec"]["config"])
        for obj in render("values-production.yaml", "1.30.0")
        if obj["kind"] == "KafkaTopic"
    }
    expected = {
        topic.name: (topic.partitions, {**topic.config, "min.insync.replicas": "2"})
        for topic in topics_for(GAMES)
    }
    assert rendered == expected


def test_table_callers_are_given_each_games_pods_by_name_one_per_replica() -> None:
    from croupier.table.client import table_services

    callers = ("gateway", "lobby", "tournament", "bots")
    for replicas in (1, 3):
        objects = render("values.yaml", "1.30.0", f"services.table.replicas={replicas}")
        for obj in objects:
            if obj["kind"] not in WORKLOADS or obj["metadata"]["name"] not in callers:
                continue
            (container,) = obj["spec"]["template"]["spec"]["containers"]
            env = {item["name"]: item.get("value") for item in container["env"]}
            services = table_services(env["CROUPIER_TABLE_ADDRESS"])
            assert services == {
                game: [f"table-{game}-{n}.table-{game}:50051" for n in range(replicas)]
                for game in GAMES
            }, obj["metadata"]["name"]
        stateful = {o["metadata"]["name"]: o for o in objects if o["kind"] == "StatefulSet"}
        for game in GAMES:  # the names above are these pods' under their headless Service
            assert stateful[f"table-{game}"]["spec"]["serviceName"] == f"table-{game}"
            assert stateful[f"table-{game}"]["spec"]["replicas"] == replicas
