-- (a') Indexes for rewrite.sql: every game, result and bot seat it needs is read from an
-- index (index-only scans, merge joins in game id order), never from the heaps.
-- Cost: one more index entry per bot seat, per won or drawn result, and per game row
-- version (a game's end updates `status`, which the partial index games_playing reads,
-- so that update is never HOT: every index of games gets a new entry).

-- The games with a bot seat (about 30 %): the humans-only anti-join.
CREATE INDEX IF NOT EXISTS game_players_bot_games ON game_players (game_id) WHERE bot IS NOT NULL;
-- The counted results with what the counts need.
CREATE INDEX IF NOT EXISTS results_stats ON results (game_id) INCLUDE (outcome, reason, winners)
    WHERE outcome IN ('win', 'draw');
-- Each game's table, in game id order (could instead be the primary key's index:
-- PRIMARY KEY (id) INCLUDE (table_id)).
CREATE INDEX IF NOT EXISTS games_id_table_id ON games (id) INCLUDE (table_id);
-- Index-only scans need the visibility map (autovacuum keeps it on insert-mostly tables).
VACUUM ANALYZE games, results, game_players;
