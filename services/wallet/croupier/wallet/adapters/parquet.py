"""The journal as Apache Parquet (pyarrow): same rows and columns as the CSV export.

Deterministic: no timestamps or random ids in the file; the same rows give the same bytes
with the same pyarrow version.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from croupier.wallet.service.reports import JOURNAL_COLUMNS, JournalRow

__all__ = ["journal_parquet"]

_INT_COLUMNS = {"posting_id", "debit_minor", "credit_minor", "balance_after_minor"}


def journal_parquet(rows: Sequence[JournalRow]) -> bytes:
    columns = list(zip(*(row.values() for row in rows), strict=True)) if rows else []
    types = [pa.int64() if name in _INT_COLUMNS else pa.string() for name in JOURNAL_COLUMNS]
    arrays = [
        pa.array(list(columns[i]) if rows else [], type=types[i])
        for i in range(len(JOURNAL_COLUMNS))
    ]
    table = pa.Table.from_arrays(arrays, names=list(JOURNAL_COLUMNS))
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", write_statistics=True)
    return bytes(sink.getvalue().to_pybytes())
