-- The group commit's statement (migration 0010) without looking up the game of an untimed
-- move for its deadline: an untimed game has no deadline to change, and the lookup was an
-- index probe of `games` for every stored move (docs/benchmarks.md, "Packed move lists").
-- Never edit this file once it has shipped: add a new numbered file instead.

CREATE OR REPLACE FUNCTION spelbord_store_moves(
    game_ids uuid[], plies integer[], seat_numbers smallint[], payloads text[],
    clocks text[], deadlines timestamptz[], lease_tables text[], lease_nodes integer[],
    lease_epochs bigint[]
) RETURNS SETOF bigint
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(1397771351, n)
       FROM (SELECT DISTINCT n FROM unnest(lease_nodes) n WHERE n IS NOT NULL ORDER BY n) d;
    RETURN QUERY
    WITH batch AS (
        SELECT * FROM UNNEST(game_ids, plies, seat_numbers, payloads, clocks, deadlines,
                             lease_tables, lease_nodes, lease_epochs) WITH ORDINALITY
            AS b(game_id, ply, seat, payload, clocks_ms, deadline, table_id, node, epoch, place)
    ), kept AS (
        -- Each move's lease looked up by its key, one move at a time: as a join, a generic
        -- plan (this function's is cached) hashed or walked every lease (all of the node's
        -- through its index on node, or the whole table) for each batch.
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
END
$$;
