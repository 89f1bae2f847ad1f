-- The group commit stores new tables, seats taken and games' starts and ends with the moves
-- of its batch, in one statement and one commit (docs/benchmarks.md, "Starts, ends and
-- seats in the group commit"). Before, each was a statement and a commit of its own: with a
-- new table a game, four commits a game beside the moves' batches, each with its WAL flush.
--
-- `new_tables`, `seat_takes`, `starts` and `ends` are JSON arrays, one object a table, a
-- seat or a game (the server's `store::writer` writes them); a seat, start or end whose
-- table another node serves now raises SPL01 through `spelbord_hold_lease`, as its own
-- statement did, a new table whose id is taken raises a unique violation on `tables_pkey`,
-- and the server then writes the batch's parts one by one. The moves' part is the statement
-- of migration 0011's `spelbord_store_moves`, which becomes a wrapper of this function (at
-- the end of this file) for nodes of the previous version until every node runs this one.
--
-- And a move's game is checked by the batch instead of by a foreign key (docs/benchmarks.md,
-- "A move's game checked by its batch"): the key's check cost every stored move a query, an
-- index probe and a `FOR KEY SHARE` lock on its game's row with a WAL record of its own.
-- The batch takes the `moves` table's ROW EXCLUSIVE lock first, then checks all its moves'
-- games in one statement (a snapshot taken after the lock) and fails as the key would have
-- (SQLSTATE 23503) when one is missing; deleting games (the cascade from a deleted table or
-- series) takes `moves` in SHARE ROW EXCLUSIVE mode, so it waits for the batches in flight
-- and the batches after it wait for it and then see the games gone, and deletes the games'
-- moves as the key's cascade did.
-- Never edit this file once it has shipped: add a new numbered file instead.

-- Fails like a foreign key (SQLSTATE 23503) when a game of `ids` is not stored.
CREATE FUNCTION spelbord_check_games(ids uuid[]) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM unnest(ids) AS m(id)
                WHERE NOT EXISTS (SELECT 1 FROM games g WHERE g.id = m.id)) THEN
        RAISE EXCEPTION 'a move of a game that is not stored'
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN true;
END
$$;

CREATE FUNCTION spelbord_store_batch(
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
        PERFORM spelbord_check_games(game_ids);
        RETURN QUERY
        WITH batch AS (
            SELECT * FROM UNNEST(game_ids, plies, seat_numbers, payloads, clocks, deadlines,
                                 lease_tables, lease_nodes, lease_epochs) WITH ORDINALITY
                AS b(game_id, ply, seat, payload, clocks_ms, deadline, table_id, node, epoch, place)
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
        SELECT k.place FROM kept k;
    END IF;

    IF jsonb_array_length(ends) > 0 THEN
        PERFORM spelbord_hold_lease(e.lease_table, e.lease_node, e.lease_epoch)
           FROM jsonb_to_recordset(ends) AS e(lease_table text, lease_node integer, lease_epoch bigint);
        PERFORM spelbord_check_games(ARRAY(SELECT e.game_id FROM jsonb_to_recordset(ends) AS e(game_id uuid)));
        -- The move that ended the game, when a move did.
        INSERT INTO moves (game_id, ply, seat, payload, clocks_ms)
        SELECT e.game_id, e.ply, e.seat, e.payload, e.clocks::bigint[]
          FROM jsonb_to_recordset(ends) AS e(game_id uuid, ply integer, seat smallint, payload jsonb, clocks text)
         WHERE e.ply IS NOT NULL;
        UPDATE games g SET status = 'finished', ended_at = now(), deadline = NULL
          FROM jsonb_to_recordset(ends) AS e(game_id uuid)
         WHERE g.id = e.game_id;
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

-- The previous version's batch function, for nodes that still call it while a deployment
-- rolls: the same moves, stored (and checked) by the new function.
CREATE OR REPLACE FUNCTION spelbord_store_moves(
    game_ids uuid[], plies integer[], seat_numbers smallint[], payloads text[],
    clocks text[], deadlines timestamptz[], lease_tables text[], lease_nodes integer[],
    lease_epochs bigint[]
) RETURNS SETOF bigint
LANGUAGE sql VOLATILE AS $$
    SELECT spelbord_store_batch(game_ids, plies, seat_numbers, payloads, clocks, deadlines,
                                lease_tables, lease_nodes, lease_epochs, '[]', '[]', '[]', '[]')
$$;

-- Deleted games take their moves with them, after the batches in flight.
CREATE FUNCTION spelbord_delete_moves_of_games() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    LOCK TABLE moves IN SHARE ROW EXCLUSIVE MODE;
    DELETE FROM moves m USING gone g WHERE m.game_id = g.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER games_delete_moves AFTER DELETE ON games
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION spelbord_delete_moves_of_games();

ALTER TABLE moves DROP CONSTRAINT moves_game_id_fkey;
