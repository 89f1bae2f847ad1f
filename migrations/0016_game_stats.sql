-- The won-game statistics (GET /api/stats/{game}) kept as counts, added to in the same
-- transaction as each result by a statement trigger: reading them costs ~0.3 ms however
-- many games are stored, where counting the results took 2.8 s (5.3 s with
-- ?humans=true) at 10^6 games (benches/stats-query/README.md).
--
-- One row per game, variant (the settings that make the game's variants: the same keys as
-- `variant_settings` in src/store/stats.rs), result reason and whether only people played.
-- Counted as src/store/stats.rs says: finished games with a win or a draw, not games from
-- a set-up `start_position`; seat 0 is the first player. Counts are fixed when a result is
-- stored (no result, table or game is ever updated or deleted by the server; a feature
-- that deletes them needs a trigger that subtracts).
--
-- Adding a key to a game's variant settings needs a migration that refills this table.
-- Filling it below holds `results` in share mode (writes of results wait): seconds at
-- 10^6 games; run it at a quiet time.

CREATE TABLE game_stats (
    game        text    NOT NULL,
    variant     jsonb   NOT NULL,
    reason      text    NOT NULL,
    humans      boolean NOT NULL,
    games       bigint  NOT NULL,
    first_wins  bigint  NOT NULL,
    second_wins bigint  NOT NULL,
    draws       bigint  NOT NULL,
    PRIMARY KEY (game, variant, reason, humans)
);

CREATE FUNCTION spelbord_stats_variant(game text, settings jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(jsonb_object_agg(k, settings -> k), '{}'::jsonb)
      FROM unnest(CASE game WHEN 'gomoku' THEN '{variant,board_size}'::text[]
                            WHEN 'lines-of-action' THEN '{simultaneous}'::text[]
                            ELSE '{}'::text[] END) AS k
$$;

CREATE FUNCTION spelbord_count_results() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO game_stats AS s (game, variant, reason, humans, games, first_wins, second_wins, draws)
    SELECT t.game, spelbord_stats_variant(t.game, t.settings), a.reason,
           NOT EXISTS (SELECT FROM game_players p WHERE p.game_id = a.game_id AND p.bot IS NOT NULL),
           count(*),
           count(*) FILTER (WHERE a.outcome = 'win' AND 0 = ANY (a.winners)),
           count(*) FILTER (WHERE a.outcome = 'win' AND NOT 0 = ANY (a.winners)),
           count(*) FILTER (WHERE a.outcome = 'draw')
      FROM added a JOIN games g ON g.id = a.game_id JOIN tables t ON t.id = g.table_id
     WHERE a.outcome IN ('win', 'draw') AND NOT t.settings ? 'start_position'
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 3, 4          -- the same lock order in every batch: no deadlocks
    ON CONFLICT (game, variant, reason, humans) DO UPDATE
       SET games = s.games + EXCLUDED.games,
           first_wins = s.first_wins + EXCLUDED.first_wins,
           second_wins = s.second_wins + EXCLUDED.second_wins,
           draws = s.draws + EXCLUDED.draws;
    RETURN NULL;
END $$;

SET LOCAL work_mem = '256MB';
LOCK TABLE results IN SHARE MODE;

CREATE TRIGGER results_count AFTER INSERT ON results REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION spelbord_count_results();

INSERT INTO game_stats (game, variant, reason, humans, games, first_wins, second_wins, draws)
SELECT c.game, spelbord_stats_variant(c.game, c.settings), c.reason, c.humans,
       sum(c.games), sum(c.first_wins), sum(c.second_wins), sum(c.draws)
  FROM (SELECT t.game, t.settings, r.reason, b.game_id IS NULL AS humans, count(*) AS games,
               count(*) FILTER (WHERE r.outcome = 'win' AND 0 = ANY (r.winners)) AS first_wins,
               count(*) FILTER (WHERE r.outcome = 'win' AND NOT 0 = ANY (r.winners)) AS second_wins,
               count(*) FILTER (WHERE r.outcome = 'draw') AS draws
          FROM results r JOIN games g ON g.id = r.game_id JOIN tables t ON t.id = g.table_id
          LEFT JOIN (SELECT DISTINCT game_id FROM game_players WHERE bot IS NOT NULL) b ON b.game_id = r.game_id
         WHERE r.outcome IN ('win', 'draw') AND NOT t.settings ? 'start_position'
         GROUP BY 1, 2, 3, 4) c
 GROUP BY 1, 2, 3, 4;
