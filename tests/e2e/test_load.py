"""The load report's reading of its figures: ghz's JSON summary, and the limit a game
reaches (the last step whose Act p99 stayed within 50 ms)."""

from __future__ import annotations

from pathlib import Path

from google.protobuf import descriptor_pb2

from tests.e2e.harness.ghz import MethodLoad, compile_protoset, figures_of
from tests.e2e.load import Step, limits, slow_acts

LOAD = MethodLoad("view", "127.0.0.1:1", "croupier.gateway.v1.Gateway/GetTableView", {}, {})


def test_ghz_latencies_are_read_from_nanoseconds_into_milliseconds() -> None:
    summary = {
        "count": 1200,
        "rps": 119.6,
        "latencyDistribution": [
            {"percentage": 10, "latency": 1_000_000},
            {"percentage": 50, "latency": 2_500_000},
            {"percentage": 99, "latency": 41_200_000},
        ],
        "statusCodeDistribution": {"OK": 1180, "Unavailable": 20},
    }
    figures = figures_of(LOAD, summary)
    assert (figures.calls, figures.per_second) == (1200, 119.6)
    assert (figures.p50_ms, figures.p99_ms) == (2.5, 41.2)
    assert figures.row() == (
        "| view | `GetTableView` | 1200 | 120 | 2.5 | 41.2 | OK 1180, Unavailable 20 |"
    )


def test_the_protoset_describes_the_gateway_for_ghz(tmp_path: Path) -> None:
    protoset = descriptor_pb2.FileDescriptorSet.FromString(
        compile_protoset(tmp_path / "all.protoset").read_bytes()
    )
    services = {
        f"{file.package}.{service.name}" for file in protoset.file for service in file.service
    }
    assert {"croupier.gateway.v1.Gateway", "croupier.table.v1.TableEngine"} <= services


def step(game: str, tables: int, p99_ms: float) -> Step:
    cpu = {"gateway": 6.0, "broker": 1.0}
    slow = {"client": 9, "gateway": 8, "host": 7}
    return Step(game, tables, 600, 60.0, 5.0, p99_ms, 40.0, cpu, 2.0, 0, slow)


def test_a_steps_row_names_its_busiest_process_in_cores() -> None:
    assert step("poker", 4, 30.0).row() == (
        "| poker | 4 | 10 | 5.0 | 30.0 | 40 KiB | 11.7 s | 3.3 s | gateway 0.10 | 9 / 8 / 7 | 0 |"
    )


def test_a_games_limit_is_its_most_tables_within_50_ms() -> None:
    steps = [step("poker", 1, 9.0), step("poker", 2, 60.0), step("poker", 4, 30.0)]
    steps += [step("poker", 8, 51.0), step("poker", 16, 70.0)]
    steps += [step("joker", 1, 8.0), step("joker", 2, 12.0)]
    steps += [step("rummy", 1, 70.0)]
    assert limits(steps, ["poker", "joker", "rummy"]) == [
        "- poker: 4 tables, 10 actions/s, p99 30.0 ms",
        "- joker: 2 tables (or more: never passed), 10 actions/s, p99 12.0 ms",
        "- rummy: p99 over 50 ms from the first table",
    ]


def test_slow_acts_are_read_from_a_servers_latency_histogram() -> None:
    bucket = "grpc_server_handling_seconds_bucket"
    labels = 'grpc_method="{}",grpc_service="croupier.table.v1.TableEngine",grpc_type="unary"'
    text = "\n".join(
        [
            "# TYPE grpc_server_handling_seconds histogram",
            f'{bucket}{{{labels.format("Act")},le="0.025"}} 90.0',
            f'{bucket}{{{labels.format("Act")},le="0.05"}} 97.0',
            f'{bucket}{{{labels.format("Act")},le="+Inf"}} 100.0',
            f"grpc_server_handling_seconds_count{{{labels.format('Act')}}} 100.0",
            f"grpc_server_handling_seconds_sum{{{labels.format('Act')}}} 1.5",
            f'{bucket}{{{labels.format("GetView")},le="0.05"}} 10.0',
            f"grpc_server_handling_seconds_count{{{labels.format('GetView')}}} 50.0",
            "",
        ]
    )
    assert slow_acts(text, "croupier.table.v1.TableEngine") == (100, 3)
    assert slow_acts(text, "croupier.gateway.v1.Gateway") == (0, 0)
