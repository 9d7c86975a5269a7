"""The monitoring an SRE gets: the alerting rules (promtool's check and unit tests), a runbook
per alert, the dashboards, and the chart's monitoring objects built from the same files."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "deploy/prometheus/croupier.rules.yaml"
RULE_TESTS = ROOT / "deploy/prometheus/tests/croupier.rules.test.yaml"
DASHBOARDS = sorted((ROOT / "deploy/grafana").glob("*.json"))
RUNBOOKS = ROOT / "docs/operations/alerts"
CHART = ROOT / "charts/croupier"
RUNBOOK_URL = "https://github.com/croupier/croupier/blob/main/docs/operations/alerts/{}.md"


def tool(name: str) -> str:
    """A pinned tool built by deploy/local/tools.sh (make test runs its `ensure`)."""
    found = subprocess.run(
        [str(ROOT / "deploy/local/tools.sh"), "path", name], capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr
    return found.stdout.strip()


def rules() -> list[dict[str, Any]]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def alerts() -> list[dict[str, Any]]:
    return [rule for rule in rules() if "alert" in rule]


def test_promtool_checks_the_rules() -> None:
    checked = subprocess.run(
        [tool("promtool"), "check", "rules", str(RULES)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_promtool_unit_tests_of_the_rules_pass() -> None:
    tested = subprocess.run(
        [tool("promtool"), "test", "rules", str(RULE_TESTS)], capture_output=True, text=True
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_every_alert_has_a_unit_test_where_it_fires() -> None:
    cases = yaml.safe_load(RULE_TESTS.read_text())["tests"]
    firing = {
        check["alertname"]
        for case in cases
        for check in case["alert_rule_test"]
        if check["exp_alerts"]
    }
    assert {alert["alert"] for alert in alerts()} <= firing


def test_every_alert_links_its_runbook_and_every_runbook_has_its_alert() -> None:
    names = {alert["alert"] for alert in alerts()}
    for alert in alerts():
        name = alert["alert"]
        assert alert["annotations"]["runbook_url"] == RUNBOOK_URL.format(name)
        runbook = RUNBOOKS / f"{name}.md"
        assert runbook.is_file(), f"{name} has no runbook at {runbook}"
        assert runbook.read_text().startswith(f"# {name}\n")
    assert {path.stem for path in RUNBOOKS.glob("*.md")} == names


@pytest.mark.parametrize("path", DASHBOARDS, ids=lambda path: path.name)
def test_dashboard_is_json_with_a_query_in_every_panel(path: Path) -> None:
    """(Which metrics the queries name is checked against the services' own /metrics in
    tests/integration/test_observability_scrape.py.)"""
    dashboard = json.loads(path.read_text())
    assert dashboard["panels"]
    for panel in dashboard["panels"]:
        assert [target["expr"] for target in panel["targets"]], panel["title"]


def test_the_dashboards_show_what_operators_asked_for() -> None:
    queries = " ".join(
        target["expr"]
        for path in DASHBOARDS
        for panel in json.loads(path.read_text())["panels"]
        for target in panel["targets"]
    )
    for metric in (
        "grpc_server_handling_seconds_bucket",  # latency per method
        "croupier_tables_open",  # tables open per game
        "croupier_table_action_seconds_count",  # actions/s
        "croupier_wallet_crash_refunds_total",  # refunds
        "croupier_kafka_consumer_lag",  # lag
        "croupier_wallet_transfers_total",  # wallet throughput
    ):
        assert metric in queries, metric


def test_the_chart_ships_the_same_rules_and_dashboards_when_asked() -> None:
    flags = [
        "--set",
        "monitoring.serviceMonitor.enabled=true",
        "--set",
        "monitoring.prometheusRule.enabled=true",
        "--set",
        "monitoring.dashboards.enabled=true",
    ]
    rendered = subprocess.run(
        [tool("helm"), "template", "croupier", str(CHART), *flags],
        capture_output=True,
        text=True,
    )
    assert rendered.returncode == 0, rendered.stderr
    objects = {
        (item["kind"], item["metadata"]["name"]): item
        for item in yaml.safe_load_all(rendered.stdout)
        if item
    }
    rule = objects["PrometheusRule", "croupier"]
    assert rule["spec"] == yaml.safe_load(RULES.read_text())
    monitor = objects["ServiceMonitor", "croupier"]
    assert monitor["spec"]["endpoints"][0]["port"] == "metrics"
    dashboards = objects["ConfigMap", "croupier-dashboards"]
    assert dashboards["metadata"]["labels"]["grafana_dashboard"] == "1"
    for path in DASHBOARDS:
        assert json.loads(dashboards["data"][path.name]) == json.loads(path.read_text())


def test_the_chart_leaves_monitoring_out_by_default() -> None:
    rendered = subprocess.run(
        [tool("helm"), "template", "croupier", str(CHART)], capture_output=True, text=True
    )
    assert rendered.returncode == 0, rendered.stderr
    kinds = {item["kind"] for item in yaml.safe_load_all(rendered.stdout) if item}
    assert not kinds & {"ServiceMonitor", "PrometheusRule"}
