-- The tables with a seat held (the ticker releases the lapsed holds): found without
-- reading every open table's document.
CREATE INDEX lobby_tables_held ON lobby_tables (opened_at)
    WHERE NOT closed AND state->'holds' <> '[]'::jsonb;
