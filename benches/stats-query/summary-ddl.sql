-- (b) The statistics kept as counts, one row per game, variant, reason and humans-only,
-- added to in the same transaction as each result (an AFTER INSERT trigger on results, so
-- the group commit's function, migrations 0013/0014, stays as it is), and filled once from
-- the stored results. As a migration it would be one new numbered file, without the
-- BEGIN and COMMIT below (sqlx runs each migration file in a transaction of its own).
--
-- The variant is computed here as src/store/stats.rs computes it from `variant_settings`:
-- the two lists must agree (summary.sql re-projects the stored variant on the keys the
-- code asks for, so a key dropped from the code still gives the right rows; a key added
-- needs a migration that refills the table).

CREATE TABLE game_stats (
    game        text    NOT NULL,                -- game id: 'gomoku', ...
    variant     jsonb   NOT NULL,                -- e.g. {"variant": "free", "board_size": 15}
    reason      text    NOT NULL,                -- the result reason
    humans      boolean NOT NULL,                -- no seat held by a bot
    games       bigint  NOT NULL,
    first_wins  bigint  NOT NULL,
    second_wins bigint  NOT NULL,
    draws       bigint  NOT NULL,
    PRIMARY KEY (game, variant, reason, humans)
);

-- The settings that make a game's variants (stats.rs `variant_settings`) and their values.
CREATE FUNCTION spelbord_stats_variant(game text, settings jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(jsonb_object_agg(k, settings -> k), '{}'::jsonb)
      FROM unnest(CASE game WHEN 'gomoku' THEN '{variant,board_size}'::text[]
                            WHEN 'lines_of_action' THEN '{simultaneous}'::text[]
                            ELSE '{}'::text[] END) AS k
$$;

-- The counts of a set of results (won or drawn, not from a start position), per row of
-- game_stats, in the key's order: concurrent transactions lock the rows they add to in the
-- same order, and so never deadlock.
CREATE FUNCTION spelbord_count_results() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO game_stats AS s (game, variant, reason, humans, games, first_wins, second_wins, draws)
    SELECT t.game, spelbord_stats_variant(t.game, t.settings), a.reason,
           NOT EXISTS (SELECT FROM game_players p WHERE p.game_id = a.game_id AND p.bot IS NOT NULL),
           count(*),
           count(*) FILTER (WHERE a.outcome = 'win' AND 0 = ANY (a.winners)),
           count(*) FILTER (WHERE a.outcome = 'win' AND NOT 0 = ANY (a.winners)),
           count(*) FILTER (WHERE a.outcome = 'draw')
      FROM added a
      JOIN games g ON g.id = a.game_id
      JOIN tables t ON t.id = g.table_id
     WHERE a.outcome IN ('win', 'draw')
       AND NOT t.settings ? 'start_position'
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 3, 4
    ON CONFLICT (game, variant, reason, humans) DO UPDATE
       SET games = s.games + EXCLUDED.games,
           first_wins = s.first_wins + EXCLUDED.first_wins,
           second_wins = s.second_wins + EXCLUDED.second_wins,
           draws = s.draws + EXCLUDED.draws;
    RETURN NULL;
END
$$;

-- Filled from the results stored so far, with inserts held off until it commits (a node
-- of the previous version may be storing results meanwhile: they wait, then count).
BEGIN;
SET LOCAL work_mem = '256MB';   -- one pass, hashed in memory (some 60 MB at 10^6 games)
LOCK TABLE results IN SHARE MODE;
CREATE TRIGGER results_count AFTER INSERT ON results
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION spelbord_count_results();
-- (Counted per table settings first: the variant function and the bot test then run once
-- a group, not once a result.)
INSERT INTO game_stats (game, variant, reason, humans, games, first_wins, second_wins, draws)
SELECT c.game, spelbord_stats_variant(c.game, c.settings), c.reason, c.humans,
       sum(c.games), sum(c.first_wins), sum(c.second_wins), sum(c.draws)
  FROM (SELECT t.game, t.settings, r.reason, b.game_id IS NULL AS humans,
               count(*) AS games,
               count(*) FILTER (WHERE r.outcome = 'win' AND 0 = ANY (r.winners)) AS first_wins,
               count(*) FILTER (WHERE r.outcome = 'win' AND NOT 0 = ANY (r.winners)) AS second_wins,
               count(*) FILTER (WHERE r.outcome = 'draw') AS draws
          FROM results r
          JOIN games g ON g.id = r.game_id
          JOIN tables t ON t.id = g.table_id
          LEFT JOIN (SELECT DISTINCT game_id FROM game_players WHERE bot IS NOT NULL) b ON b.game_id = r.game_id
         WHERE r.outcome IN ('win', 'draw')
           AND NOT t.settings ? 'start_position'
         GROUP BY 1, 2, 3, 4) c
 GROUP BY 1, 2, 3, 4;
COMMIT;
ANALYZE game_stats;
