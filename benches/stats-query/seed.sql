-- A realistic data set for the statistics query (src/store/stats.rs), made with
-- generate_series in a freshly migrated database (migrations/*.sql applied in order):
--
--   psql -v games=1000000 -f seed.sql
--
-- `games` is the number of games (default 100000). Deterministic (setseed). Emptying the
-- tables first, so it can be run again on the same database.
--
-- Shape, modelled on what the server stores (src/table/settings.rs `to_json`, the games'
-- settings and end reasons in crates/spelbord-games):
-- - tables: 1..50 games each, skewed to few (mean ~17.7: ~56k tables at 10^6 games);
--   gomoku 55 %, lines-of-action 20 %, krux 15 %, bughouse 10 % of tables; the full flat
--   settings object (seating, time_control, bots, series, rated, ...); gomoku variant
--   free 80 % / exact5, board_size 15 70 % / 19; lines-of-action simultaneous draw 85 % /
--   mover-wins; 5 % of the lines-of-action, krux and bughouse tables (~2 % of all) have a
--   `start_position` (gomoku has none); 30 % of tables seat a bot (mostly 'hard'), so ~30 %
--   of games have a bot seat (player_key NULL).
-- - games: a table's games one after another from its creation, tables created over two
--   years; rows are inserted in start order, so one table's games are spread over the
--   heap as they would be in production. 3 % of tables end with a game still 'playing'
--   (no result); every other game is 'finished' with a result.
-- - game_players: 2 a game (4 for bughouse); series columns NULL (single games).
-- - results: 10 % 'aborted' (winners '{}', reason 'aborted'); otherwise a reason drawn per
--   game kind, its outcome 'win' or 'draw' following it; the first side wins ~54 % of
--   won games; `players` and `detail` filled as the server fills them.
-- - seats and table_leases: a table's current seats (its last game's players) and lease.
-- Not seeded: moves, chat, series, ratings (the statistics never read them).

\set ON_ERROR_STOP on
\if :{?games}
\else
\set games 100000
\endif

SELECT setseed(0.4242);

BEGIN;
TRUNCATE tables, seats, games, game_players, moves, results, series, series_sides,
         rating_history, ratings, chat_messages, table_leases CASCADE;

-- Short table ids as the server makes them: 8 characters [0-9a-z], here a bijection of the
-- table number (no collisions).
CREATE FUNCTION pg_temp.b36(n bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT string_agg(substr('0123456789abcdefghijklmnopqrstuvwxyz', ((n / (36::bigint ^ i)::bigint) % 36)::int + 1, 1), '' ORDER BY i)
      FROM generate_series(0, 7) i
$$;

-- One row per table, its random draws taken once.
CREATE TEMP TABLE seed_tables AS
WITH draws AS MATERIALIZED (
    SELECT n AS tno, random() AS r_games, random() AS r_kind, random() AS r_v1, random() AS r_v2,
           random() AS r_v3, random() AS r_start, random() AS r_bot, random() AS r_bot2,
           random() AS r_rated, random() AS r_clock, random() AS r_created, random() AS r_playing,
           random() AS r_gap
      FROM generate_series(1, (:games / 17.0 * 1.3)::int + 100) n
), shaped AS (
    SELECT d.*,
           1 + floor(50 * d.r_games ^ 2)::int AS ngames,
           CASE WHEN d.r_kind < 0.55 THEN 'gomoku' WHEN d.r_kind < 0.75 THEN 'lines-of-action'
                WHEN d.r_kind < 0.90 THEN 'krux' ELSE 'bughouse' END AS game
      FROM draws d
), counted AS (
    SELECT s.*, sum(s.ngames) OVER (ORDER BY s.tno) - s.ngames AS games_before
      FROM shaped s
)
SELECT c.tno,
       pg_temp.b36((c.tno::bigint * 1000003 + 7919) % (36::bigint ^ 8)::bigint) AS id,
       c.game,
       least(c.ngames, :games - c.games_before)::int AS ngames,
       c.games_before,
       CASE c.game WHEN 'bughouse' THEN 4 ELSE 2 END AS nseats,
       c.game <> 'gomoku' AND c.r_start < 0.05 AS has_start,
       c.r_bot < 0.30 AS has_bot,
       c.r_bot2, c.r_v1, c.r_v2, c.r_v3, c.r_rated, c.r_clock, c.r_playing,
       timestamptz '2023-06-01 00:00+00' + c.r_created * interval '730 days' AS created_at,
       interval '8 minutes' + c.r_gap * interval '30 minutes' AS gap
  FROM counted c
 WHERE c.games_before < :games;

-- The bots' seats of a bot table: one seat (seat 1 or 0) at two-seat games; one to three
-- at Bughouse.
ALTER TABLE seed_tables ADD COLUMN bots jsonb, ADD COLUMN rated boolean, ADD COLUMN settings jsonb;
UPDATE seed_tables SET
    bots = CASE WHEN NOT has_bot THEN '{}'::jsonb
                WHEN nseats = 2 THEN jsonb_build_object(CASE WHEN r_bot2 < 0.7 THEN '1' ELSE '0' END,
                        CASE WHEN r_v3 < 0.75 THEN 'hard' WHEN r_v3 < 0.9 THEN 'medium' ELSE 'easy' END)
                WHEN r_bot2 < 0.5 THEN '{"3": "hard"}'::jsonb
                WHEN r_bot2 < 0.8 THEN '{"1": "hard", "2": "hard"}'::jsonb
                ELSE '{"1": "medium", "2": "hard", "3": "hard"}'::jsonb END,
    rated = NOT has_start AND NOT has_bot AND r_rated < 0.35;
UPDATE seed_tables SET settings =
    CASE game
        WHEN 'gomoku' THEN jsonb_build_object(
            'variant', CASE WHEN r_v1 < 0.8 THEN 'free' ELSE 'exact5' END,
            'board_size', CASE WHEN r_v2 < 0.7 THEN 15 ELSE 19 END,
            'opening', CASE WHEN r_v3 < 0.9 THEN 'center' ELSE 'free' END)
        WHEN 'lines-of-action' THEN jsonb_build_object(
            'simultaneous', CASE WHEN r_v1 < 0.85 THEN 'draw' ELSE 'mover-wins' END)
        ELSE '{}'::jsonb END
    || CASE WHEN NOT has_start THEN '{}'::jsonb
            WHEN game = 'lines-of-action' THEN '{"start_position": "b:.bbbbbb./w......w/w......w/w..b...w/w......w/w......w/w......w/.bbbbb.."}'::jsonb
            WHEN game = 'krux' THEN '{"start_position": "W:a1,b2,c3,d4/B:h8,g7,f6,e5/hole:d5"}'::jsonb
            ELSE '{"start_position": {"A": "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[] w KQkq - 2 3", "B": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"}}'::jsonb END
    || jsonb_build_object(
        'seating', CASE WHEN r_v2 < 0.8 THEN 'random' ELSE 'chosen' END,
        'time_control', CASE WHEN game = 'bughouse' OR r_clock < 0.5
                             THEN '{"kind": "fischer", "base_seconds": 180, "increment_seconds": 2}'::jsonb
                             WHEN r_clock < 0.6 THEN '{"kind": "correspondence", "days_per_move": 2}'::jsonb
                             ELSE '{"kind": "none"}'::jsonb END,
        'grace_seconds', 60,
        'on_absence', CASE WHEN r_clock BETWEEN 0.5 AND 0.6 THEN 'wait' ELSE 'loss' END,
        'bots', bots,
        'series', 'single',
        'next_first', 'alternate',
        'series_pause_seconds', 10,
        'rated', rated,
        'undo', r_rated > 0.8);

ANALYZE seed_tables;
INSERT INTO tables (id, game, settings, created_at)
SELECT id, game, settings, created_at FROM seed_tables ORDER BY created_at;

-- One row per game.
CREATE TEMP TABLE seed_games AS
SELECT t.games_before + k AS gno,
       md5('game ' || (t.games_before + k))::uuid AS id,
       t.id AS table_id, t.tno, t.game, k AS number, t.nseats, t.bots, t.rated,
       t.settings ->> 'simultaneous' AS simultaneous,
       k = t.ngames AND t.r_playing < 0.03 AS playing,
       t.created_at + (k - 1) * t.gap + random() * interval '2 minutes' AS started_at,
       interval '3 minutes' + random() * interval '20 minutes' AS duration,
       random() AS r_end, random() AS r_reason, random() AS r_winner, random() AS r_moves
  FROM seed_tables t, generate_series(1, t.ngames) k;

ANALYZE seed_games;
INSERT INTO games (id, table_id, number, status, started_at, ended_at, deadline, series_id, series_game, rated)
SELECT id, table_id, number,
       CASE WHEN playing THEN 'playing' ELSE 'finished' END,
       started_at,
       CASE WHEN playing THEN NULL ELSE started_at + duration END,
       NULL, NULL, NULL, rated
  FROM seed_games ORDER BY started_at;

-- The players: people from a pool of about one per five games, bots where the table seats them.
CREATE TEMP TABLE seed_players AS
SELECT g.gno, g.id AS game_id, g.table_id, g.number, g.started_at, s AS seat,
       CASE g.game WHEN 'gomoku' THEN (ARRAY['X', 'O'])[s + 1]
                   WHEN 'bughouse' THEN (ARRAY['A-white', 'A-black', 'B-white', 'B-black'])[s + 1]
                   WHEN 'lines-of-action' THEN (ARRAY['black', 'white'])[s + 1]
                   ELSE (ARRAY['white', 'black'])[s + 1] END AS role,
       g.bots ->> s::text AS bot,
       (floor(random() * greatest(:games / 5, 10)))::int AS person
  FROM seed_games g, generate_series(0, g.nseats - 1) s;

ANALYZE seed_players;
INSERT INTO game_players (game_id, seat, role, player_key, name, bot, side)
SELECT game_id, seat, role,
       CASE WHEN bot IS NULL THEN sha256(('player ' || person)::bytea) END,
       CASE WHEN bot IS NULL THEN 'Player ' || person ELSE 'Computer (' || bot || ')' END,
       bot, NULL
  FROM seed_players ORDER BY started_at, game_id, seat;

-- Each finished game's result: 10 % aborted, else a reason per game kind and its outcome.
CREATE TEMP TABLE seed_results AS
SELECT g.*,
       CASE WHEN g.r_end < 0.10 THEN 'aborted'
            ELSE CASE g.game
                WHEN 'gomoku' THEN CASE WHEN g.r_reason < 0.62 THEN 'five_in_a_row' WHEN g.r_reason < 0.84 THEN 'resignation'
                                        WHEN g.r_reason < 0.91 THEN 'time' WHEN g.r_reason < 0.96 THEN 'abandoned'
                                        WHEN g.r_reason < 0.99 THEN 'draw_agreed' ELSE 'board_full' END
                WHEN 'lines-of-action' THEN CASE WHEN g.r_reason < 0.55 THEN 'connected' WHEN g.r_reason < 0.80 THEN 'resignation'
                                        WHEN g.r_reason < 0.88 THEN 'time' WHEN g.r_reason < 0.93 THEN 'abandoned'
                                        WHEN g.r_reason < 0.95 THEN 'both_connected' WHEN g.r_reason < 0.97 THEN 'repetition'
                                        ELSE 'draw_agreed' END
                WHEN 'krux' THEN CASE WHEN g.r_reason < 0.50 THEN 'hole' WHEN g.r_reason < 0.75 THEN 'resignation'
                                        WHEN g.r_reason < 0.85 THEN 'time' WHEN g.r_reason < 0.90 THEN 'abandoned'
                                        WHEN g.r_reason < 0.94 THEN 'repetition' WHEN g.r_reason < 0.97 THEN 'move_limit'
                                        ELSE 'draw_agreed' END
                ELSE CASE WHEN g.r_reason < 0.45 THEN 'checkmate' WHEN g.r_reason < 0.80 THEN 'time'
                          WHEN g.r_reason < 0.90 THEN 'resignation' WHEN g.r_reason < 0.95 THEN 'abandoned'
                          WHEN g.r_reason < 0.97 THEN 'no_player_can_move' WHEN g.r_reason < 0.98 THEN 'move_limit'
                          ELSE 'draw_agreed' END
            END END AS reason
  FROM seed_games g
 WHERE NOT g.playing;
ALTER TABLE seed_results ADD COLUMN outcome text;
ANALYZE seed_results;
UPDATE seed_results SET outcome =
    CASE WHEN reason = 'aborted' THEN 'aborted'
         WHEN reason IN ('draw_agreed', 'board_full', 'repetition', 'move_limit', 'no_player_can_move') THEN 'draw'
         WHEN reason = 'both_connected' AND simultaneous = 'draw' THEN 'draw'
         ELSE 'win' END;

INSERT INTO results (game_id, outcome, winners, reason, detail, move_count, players, started_at, ended_at)
SELECT r.id, r.outcome,
       CASE WHEN r.outcome <> 'win' THEN '{}'::smallint[]
            WHEN r.r_winner < 0.54 THEN CASE WHEN r.nseats = 4 THEN '{0,3}'::smallint[] ELSE '{0}'::smallint[] END
            ELSE CASE WHEN r.nseats = 4 THEN '{1,2}'::smallint[] ELSE '{1}'::smallint[] END END,
       r.reason,
       CASE r.reason
           WHEN 'five_in_a_row' THEN jsonb_build_object('lines', jsonb_build_array(jsonb_build_array(
                   jsonb_build_array(3, 4), jsonb_build_array(4, 5), jsonb_build_array(5, 6),
                   jsonb_build_array(6, 7), jsonb_build_array(7, 8))))
           WHEN 'checkmate' THEN jsonb_build_object('board', CASE WHEN r.r_moves < 0.5 THEN 'A' ELSE 'B' END, 'mated', 'white')
           WHEN 'time' THEN jsonb_build_object('seat', CASE WHEN r.r_winner < 0.54 THEN 1 ELSE 0 END)
           ELSE NULL END,
       CASE WHEN r.outcome = 'aborted' THEN floor(r.r_moves * 6)::int ELSE 9 + floor(r.r_moves * 80)::int END,
       p.players, r.started_at, r.started_at + r.duration
  FROM seed_results r
  JOIN (SELECT sp.gno,
               jsonb_agg(jsonb_strip_nulls(jsonb_build_object('seat', sp.seat, 'role', sp.role,
                   'name', CASE WHEN sp.bot IS NULL THEN 'Player ' || sp.person ELSE 'Computer (' || sp.bot || ')' END,
                   'bot', sp.bot)) ORDER BY sp.seat) AS players
          FROM seed_players sp GROUP BY sp.gno
       ) p ON p.gno = r.gno
 ORDER BY r.started_at + r.duration;

-- A table's seats: the players of its last game; its lease: released.
INSERT INTO seats (table_id, seat, player_key, name, sat_at, bot)
SELECT sp.table_id, sp.seat,
       CASE WHEN sp.bot IS NULL THEN sha256(('player ' || sp.person)::bytea) END,
       CASE WHEN sp.bot IS NULL THEN 'Player ' || sp.person ELSE 'Computer (' || sp.bot || ')' END,
       sp.started_at, sp.bot
  FROM seed_players sp JOIN seed_tables t ON t.id = sp.table_id AND sp.number = t.ngames;
INSERT INTO table_leases (table_id, node, epoch) SELECT id, NULL, 0 FROM seed_tables;
COMMIT;

-- As autovacuum would leave them: statistics and the visibility map.
VACUUM ANALYZE tables, seats, games, game_players, results, table_leases;

SELECT (SELECT count(*) FROM tables) AS tables, (SELECT count(*) FROM games) AS games,
       (SELECT count(*) FROM game_players) AS game_players, (SELECT count(*) FROM results) AS results,
       pg_size_pretty(pg_database_size(current_database())) AS size;
