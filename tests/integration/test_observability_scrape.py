"""The dashboards and the alerting rules name only metrics the services really serve: each
service is started as `croupier serve …` (as in production) and its /metrics scraped."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
import yaml

from tests.support.cli import serving_record

ROOT = Path(__file__).resolve().parents[2]
CROUPIER = Path(sys.executable).parent / "croupier"
# Metrics of other exporters the rules rely on: kube-state-metrics for the CronJob's outcome.
FOREIGN = {"kube_job_status_failed"}
METRIC = re.compile(r"\b(?:croupier|grpc_server|kube)_[a-z0-9_]+\b")


def served_names(text: str) -> set[str]:
    """The sample names a scrape can hold: each family's samples, and for the labelled
    families that have none yet, the names their type gives them."""
    names = {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line[:1].isalpha()}
    for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.MULTILINE):
        if kind == "counter":
            names.add(name.removesuffix("_total") + "_total")
        elif kind == "histogram":
            names.update(name + suffix for suffix in ("_bucket", "_count", "_sum"))
        else:
            names.add(name)
    return names


async def scrape(service: str, env: dict[str, str]) -> set[str]:
    process = await asyncio.create_subprocess_exec(
        str(CROUPIER), "serve", service, env={**os.environ, **env},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        record = await serving_record(process, f"croupier serve {service}")
        url = f"http://127.0.0.1:{record['metrics_port']}/metrics"
        body = await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=10).read())
        return served_names(body.decode())
    finally:
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            await process.wait()


def queried_metrics() -> dict[str, set[str]]:
    """Per dashboard panel or rule, the metrics its query names."""
    queries: dict[str, set[str]] = {}
    for path in sorted((ROOT / "deploy/grafana").glob("*.json")):
        for panel in json.loads(path.read_text())["panels"]:
            for target in panel["targets"]:
                queries[f"{path.name}: {panel['title']}"] = set(METRIC.findall(target["expr"]))
    rules = yaml.safe_load((ROOT / "deploy/prometheus/croupier.rules.yaml").read_text())
    for group in rules["groups"]:
        for rule in group["rules"]:
            name = rule.get("alert", rule.get("record"))
            queries[f"rule {name}"] = set(METRIC.findall(rule["expr"])) - FOREIGN
    return queries


async def test_dashboards_and_rules_name_only_metrics_the_served_services_export(
    postgres_dsn: str, kafka_bootstrap: str, unique: Callable[[str], str]
) -> None:
    common = {
        "CROUPIER_GRPC_HOST": "127.0.0.1",
        "CROUPIER_GRPC_PORT": "0",
        "CROUPIER_METRICS_PORT": "0",
        "CROUPIER_POSTGRES_DSN": postgres_dsn,
        "CROUPIER_KAFKA_BOOTSTRAP": kafka_bootstrap,
    }
    wallet_schema, tournament_schema = unique("wallet_scrape"), unique("tournament_scrape")
    served: set[str] = set()
    try:
        served |= await scrape(
            "wallet",
            {
                **common,
                "CROUPIER_WALLET_SCHEMA": wallet_schema,
                "CROUPIER_WALLET_REQUESTS_TOPIC": unique("wallet_requests"),
                "CROUPIER_WALLET_TRANSFERS_TOPIC": unique("wallet_transfers"),
            },
        )
        served |= await scrape(
            "tournament", {**common, "CROUPIER_TOURNAMENT_SCHEMA": tournament_schema}
        )
        # The table host's metrics do not depend on where its log is: the in-memory one.
        served |= await scrape("table", {**common, "CROUPIER_COMMAND_LOG": "memory"})
    finally:
        connection = await asyncpg.connect(postgres_dsn)
        try:
            for schema in (wallet_schema, tournament_schema):
                await connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        finally:
            await connection.close()
    missing = {where: names - served for where, names in queried_metrics().items()}
    assert not {where: names for where, names in missing.items() if names}
