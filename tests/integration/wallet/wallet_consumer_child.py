"""A wallet process consuming croupier.wallet.requests until killed (used by the SIGKILL test).

Run as: python wallet_consumer_child.py BOOTSTRAP DSN SCHEMA REQUESTS_TOPIC TRANSFERS_TOPIC GROUP
"""

from __future__ import annotations

import asyncio
import sys

from prometheus_client import CollectorRegistry

from croupier.kit.bus.kafka import KafkaBus
from croupier.wallet.adapters.postgres import create_pool
from croupier.wallet.bootstrap import build_wallet


async def main(
    bootstrap: str, dsn: str, schema: str, requests: str, transfers: str, group: str
) -> None:
    pool = await create_pool(dsn, schema, min_size=1, max_size=4)
    options = {"session_timeout_ms": 6000, "heartbeat_interval_ms": 500}
    async with KafkaBus(bootstrap_servers=bootstrap, consumer_options=options) as bus:
        await build_wallet(
            pool=pool,
            schema=schema,
            bus=bus,
            registry=CollectorRegistry(),
            requests_topic=requests,
            transfers_topic=transfers,
            consumer_group=group,
        )
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))  # type: ignore[arg-type]
