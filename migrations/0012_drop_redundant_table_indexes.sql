-- Two indexes that their table's unique constraint already provides: `games (table_id)`
-- beside `UNIQUE (table_id, number)`, and `series (table_id)` beside the same on series
-- (an index on (table_id, number) answers every lookup by table_id). Each game's start
-- inserted into both, and its end (a non-HOT update: `status` is in the partial index
-- `games_playing`) into the first again (docs/benchmarks.md, "Redundant indexes").
-- Never edit this file once it has shipped: add a new numbered file instead.

DROP INDEX IF EXISTS games_table_id;
DROP INDEX IF EXISTS series_table_id;
