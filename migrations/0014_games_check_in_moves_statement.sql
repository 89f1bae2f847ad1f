-- The moves' games checked inside the moves' statement (docs/benchmarks.md, "The games
-- check inside the moves' statement"): migration 0013 checked them in a statement of its
-- own before it (`PERFORM spelbord_check_games(game_ids)`), and each statement a batch makes
-- costs PostgreSQL an executor start and a snapshot; at a fixed rate of moves a batch holds
-- a dozen moves, and that check was some 0.08 ms of a batch's 0.74. Likewise the ends'
-- games: their check becomes the row count of the update that finishes them. The function
-- is the one of 0013 but for these two checks (a shipped migration is never edited, so it
-- is repeated here whole). What is checked is the same: every move's and every end's game,
-- whether or not its lease holds, under the `moves` lock taken before it.
-- Never edit this file once it has shipped: add a new numbered file instead.

-- Raises the foreign key's error (SQLSTATE 23503) for a move of game `id`, which is not
-- stored.
CREATE FUNCTION spelbord_missing_game(id uuid) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RAISE EXCEPTION 'a move of a game that is not stored: %', id
        USING ERRCODE = 'foreign_key_violation';
END
$$;

CREATE OR REPLACE FUNCTION spelbord_store_batch(
    game_ids uuid[], plies integer[], seat_numbers smallint[], payloads text[],
    clocks text[], deadlines timestamptz[], lease_tables text[], lease_nodes integer[],
    lease_epochs bigint[], new_tables jsonb, seat_takes jsonb, starts jsonb, ends jsonb
) RETURNS SETOF bigint
LANGUAGE plpgsql VOLATILE
-- A batch holds a few rows of each kind, but the planner takes any set-returning function
-- for a hundred rows (jsonb_to_recordset, unnest) and, its tables being small at first,
-- cached a plan that hashed or scanned whole tables (seats, games, series) to join them.
-- Every row this function touches is found by its key.
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $$
DECLARE
    finished bigint;
BEGIN
    -- The moves' node fence, as in spelbord_store_moves.
    PERFORM pg_advisory_xact_lock_shared(1397771351, n)
       FROM (SELECT DISTINCT n FROM unnest(lease_nodes) n WHERE n IS NOT NULL ORDER BY n) d;
    -- Before any move's game is checked: no game is deleted between the check and the
    -- commit (a deletion waits for this lock, and one in progress makes this wait).
    IF cardinality(game_ids) > 0 OR jsonb_array_length(ends) > 0 THEN
        LOCK TABLE moves IN ROW EXCLUSIVE MODE;
    END IF;

    IF jsonb_array_length(new_tables) > 0 THEN
        -- A new table, its lease (held by the node that created it, epoch 1, or by nobody
        -- yet, epoch 0) and the bots its settings seat.
        INSERT INTO tables (id, game, settings)
        SELECT t.id, t.game, t.settings
          FROM jsonb_to_recordset(new_tables) AS t(id text, game text, settings jsonb);
        INSERT INTO table_leases (table_id, node, epoch)
        SELECT t.id, t.node, CASE WHEN t.node IS NULL THEN 0 ELSE 1 END
          FROM jsonb_to_recordset(new_tables) AS t(id text, node integer);
        INSERT INTO seats (table_id, seat, name, bot)
        SELECT t.id, b.seat, b.name, b.bot
          FROM jsonb_to_recordset(new_tables) AS t(id text, bots jsonb),
               jsonb_to_recordset(t.bots) AS b(seat smallint, name text, bot text);
    END IF;

    IF jsonb_array_length(seat_takes) > 0 THEN
        -- Seats taken by a person or a bot while the table waits for players.
        PERFORM spelbord_hold_lease(t.lease_table, t.lease_node, t.lease_epoch)
           FROM jsonb_to_recordset(seat_takes) AS t(lease_table text, lease_node integer, lease_epoch bigint);
        INSERT INTO seats (table_id, seat, player_key, name, bot)
        SELECT t.table_id, t.seat, decode(t.key, 'base64'), t.name, t.bot
          FROM jsonb_to_recordset(seat_takes) AS t(table_id text, seat smallint, key text, name text, bot text)
        ON CONFLICT (table_id, seat) DO UPDATE
           SET player_key = EXCLUDED.player_key, name = EXCLUDED.name, bot = EXCLUDED.bot, sat_at = now();
    END IF;

    IF jsonb_array_length(starts) > 0 THEN
        -- Each start's table must still be this node's (raises SPL01 when it is not).
        PERFORM spelbord_hold_lease(s.lease_table, s.lease_node, s.lease_epoch)
           FROM jsonb_to_recordset(starts) AS s(lease_table text, lease_node integer, lease_epoch bigint);
        -- The series a game starts, and its sides.
        INSERT INTO series (id, table_id, number, format)
        SELECT s.series_id, s.table_id, s.series_number, s.series_format
          FROM jsonb_to_recordset(starts) AS s(series_id uuid, table_id text, series_number integer, series_format text)
         WHERE s.series_format IS NOT NULL;
        INSERT INTO series_sides (series_id, side, players)
        SELECT s.series_id, n.side, n.players
          FROM jsonb_to_recordset(starts) AS s(series_id uuid, series_sides jsonb),
               jsonb_to_recordset(s.series_sides) AS n(side smallint, players text)
         WHERE s.series_sides IS NOT NULL;
        -- The table's seats as the game starts with them.
        DELETE FROM seats t
         USING jsonb_to_recordset(starts) AS s(table_id text, players jsonb)
         WHERE t.table_id = s.table_id
           AND NOT EXISTS (SELECT 1 FROM jsonb_to_recordset(s.players) AS p(seat smallint) WHERE p.seat = t.seat);
        INSERT INTO seats (table_id, seat, player_key, name, bot)
        SELECT s.table_id, p.seat, decode(p.key, 'base64'), p.name, p.bot
          FROM jsonb_to_recordset(starts) AS s(table_id text, players jsonb),
               jsonb_to_recordset(s.players) AS p(seat smallint, key text, name text, bot text)
        ON CONFLICT (table_id, seat) DO UPDATE
           SET player_key = EXCLUDED.player_key, name = EXCLUDED.name, bot = EXCLUDED.bot, sat_at = now();
        -- The game and its players.
        INSERT INTO games (id, table_id, number, deadline, series_id, series_game, rated)
        SELECT s.game_id, s.table_id, s.number, s.deadline, s.series_id, s.series_game, s.rated
          FROM jsonb_to_recordset(starts) AS s(game_id uuid, table_id text, number integer,
                                               deadline timestamptz, series_id uuid, series_game integer,
                                               rated boolean);
        INSERT INTO game_players (game_id, seat, role, player_key, name, bot, side)
        SELECT s.game_id, p.seat, p.role, decode(p.key, 'base64'), p.name, p.bot, p.side
          FROM jsonb_to_recordset(starts) AS s(game_id uuid, players jsonb),
               jsonb_to_recordset(s.players) AS p(seat smallint, role text, key text, name text, bot text, side smallint);
    END IF;

    IF cardinality(game_ids) > 0 THEN
        RETURN QUERY
        WITH batch AS (
            SELECT * FROM UNNEST(game_ids, plies, seat_numbers, payloads, clocks, deadlines,
                                 lease_tables, lease_nodes, lease_epochs) WITH ORDINALITY
                AS b(game_id, ply, seat, payload, clocks_ms, deadline, table_id, node, epoch, place)
        ), missing AS (
            -- Every move's game must be stored (was a statement of its own before the
            -- moves', spelbord_check_games): fails as the foreign key did, SQLSTATE 23503.
            SELECT spelbord_missing_game(b.game_id) FROM batch b
             WHERE NOT EXISTS (SELECT 1 FROM games g WHERE g.id = b.game_id)
        ), kept AS (
            -- Each move's lease looked up by its key (see migration 0010).
            SELECT b.* FROM batch b
             WHERE b.node IS NULL
                OR (SELECT l.node = b.node AND l.epoch = b.epoch
                      FROM table_leases l WHERE l.table_id = b.table_id)
        ), moved AS (
            INSERT INTO moves (game_id, ply, seat, payload, clocks_ms)
            SELECT k.game_id, k.ply, k.seat, k.payload::jsonb, k.clocks_ms::bigint[] FROM kept k
        ), new_deadlines AS (
            -- Only a timed game's moves carry clocks, and only a timed game has a deadline.
            UPDATE games g SET deadline = k.deadline FROM kept k
             WHERE k.clocks_ms IS NOT NULL AND g.id = k.game_id AND g.deadline IS DISTINCT FROM k.deadline
        )
        -- `missing` is read (to its first row, once) before any place is returned: the
        -- statement fails, and its inserts with it, when a move's game is not stored. (With
        -- no move kept, nothing is inserted and nothing needs checking.)
        SELECT k.place FROM kept k
         WHERE NOT EXISTS (SELECT FROM missing);
    END IF;

    IF jsonb_array_length(ends) > 0 THEN
        PERFORM spelbord_hold_lease(e.lease_table, e.lease_node, e.lease_epoch)
           FROM jsonb_to_recordset(ends) AS e(lease_table text, lease_node integer, lease_epoch bigint);
        -- The move that ended the game, when a move did.
        INSERT INTO moves (game_id, ply, seat, payload, clocks_ms)
        SELECT e.game_id, e.ply, e.seat, e.payload, e.clocks::bigint[]
          FROM jsonb_to_recordset(ends) AS e(game_id uuid, ply integer, seat smallint, payload jsonb, clocks text)
         WHERE e.ply IS NOT NULL;
        UPDATE games g SET status = 'finished', ended_at = now(), deadline = NULL
          FROM jsonb_to_recordset(ends) AS e(game_id uuid)
         WHERE g.id = e.game_id;
        -- Every end's game is stored (a statement of its own before, spelbord_check_games):
        -- each was just finished, under the `moves` lock.
        GET DIAGNOSTICS finished = ROW_COUNT;
        IF finished < jsonb_array_length(ends) THEN
            RAISE EXCEPTION 'the end of a game that is not stored'
                USING ERRCODE = 'foreign_key_violation';
        END IF;
        -- The series' standings with the game counted, and its result once decided.
        UPDATE series_sides ss SET wins = st.wins, draws = st.draws, losses = st.losses, points = st.points
          FROM jsonb_to_recordset(ends) AS e(series_id uuid, standings jsonb),
               jsonb_to_recordset(e.standings) AS st(side smallint, wins integer, draws integer, losses integer, points integer)
         WHERE e.standings IS NOT NULL AND ss.series_id = e.series_id AND ss.side = st.side;
        UPDATE series s SET status = 'decided', result = e.series_result, winner = e.series_winner, ended_at = now()
          FROM jsonb_to_recordset(ends) AS e(series_id uuid, series_result text, series_winner smallint)
         WHERE e.series_result IS NOT NULL AND s.id = e.series_id;
        INSERT INTO results (game_id, outcome, winners, reason, detail, move_count, players, started_at, ended_at)
        SELECT g.id, e.outcome, e.winners::smallint[], e.reason, e.detail, e.move_count,
               (SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('seat', p.seat, 'role', p.role, 'name', p.name, 'bot', p.bot)) ORDER BY p.seat), '[]'::jsonb)
                  FROM game_players p WHERE p.game_id = g.id),
               g.started_at, now()
          FROM jsonb_to_recordset(ends) AS e(game_id uuid, outcome text, winners text, reason text,
                                             detail jsonb, move_count integer)
          JOIN games g ON g.id = e.game_id;
    END IF;
END
$$;
