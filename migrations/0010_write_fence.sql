-- The group commit's fence, per batch instead of per move (docs/architecture.md, "Several
-- nodes"). Locking each move's lease row FOR SHARE cost a tuple lock (a WAL record and a
-- dirtied page) per move. Instead every batch of a node holds the transaction-level
-- advisory lock (1397771351 = 'SPLW', node) shared until it commits, and whoever changes a
-- lease row a node holds — a node taking a dead node's table over, a node releasing its own
-- or renewing its epoch — first takes that lock exclusively (spelbord_fence_node): it
-- waits for the node's batches in flight to commit, and a batch arriving meanwhile waits
-- for the change to commit and then reads the leases with a snapshot taken after it (a
-- VOLATILE function's next statement takes a fresh one). The moves of a batch are then
-- checked against their table's (node, epoch) without a row lock.
-- Never edit this file once it has shipped: add a new numbered file instead.

CREATE FUNCTION spelbord_fence_node(node integer) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(1397771351, node);
    RETURN true;
END
$$;

-- A node gives up its lease of a table (the table stopped there), unless the lease has
-- moved on; without waiting for the commit to reach the disk (a release lost in a crash
-- leaves the lease with a node that is then dead, or that releases it again when it finds
-- no table running). With `fence`, behind the node's fence (held until the commit, so the
-- node's batches wait for this statement, not for a disk flush); without, when the table
-- stopped after every one of its writes was answered, so none of its moves can be in
-- flight (and a burst of idle tables does not hold every batch behind it). True when
-- released.
CREATE FUNCTION spelbord_release_lease(table_id text, node integer, epoch bigint, fence boolean) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    IF fence THEN
        PERFORM spelbord_fence_node(node);
    END IF;
    UPDATE table_leases l SET node = NULL, wanted_by = NULL
     WHERE l.table_id = spelbord_release_lease.table_id
       -- Not `=`: a generic plan could then walk every lease of the node (its index).
       AND l.node IS NOT DISTINCT FROM spelbord_release_lease.node
       AND (spelbord_release_lease.epoch IS NULL OR l.epoch = spelbord_release_lease.epoch);
    RETURN FOUND;
END
$$;

-- One group-committed batch: the moves whose table's lease is still (node, epoch) (or
-- that carry no lease), and the new deadline of each of their games whose deadline
-- changed. Returns the stored moves' places in the arrays (from 1).
CREATE FUNCTION spelbord_store_moves(
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
        UPDATE games g SET deadline = k.deadline FROM kept k
         WHERE g.id = k.game_id AND g.deadline IS DISTINCT FROM k.deadline
    )
    SELECT k.place FROM kept k;
END
$$;

-- The lease check of one statement (migration 0009), with the lease found by its key alone
-- and then compared: with node and epoch in the lookup, a generic plan may walk every
-- lease the node holds (its index on node) for each call.
CREATE OR REPLACE FUNCTION spelbord_hold_lease(table_id text, node integer, epoch bigint) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    holder integer;
    held_epoch bigint;
BEGIN
    IF node IS NULL THEN
        RETURN true;
    END IF;
    SELECT l.node, l.epoch INTO holder, held_epoch
      FROM table_leases l WHERE l.table_id = spelbord_hold_lease.table_id
      FOR SHARE;
    IF holder IS DISTINCT FROM spelbord_hold_lease.node OR held_epoch IS DISTINCT FROM spelbord_hold_lease.epoch THEN
        RAISE EXCEPTION 'table % is served by another node now', spelbord_hold_lease.table_id
            USING ERRCODE = 'SPL01';
    END IF;
    RETURN true;
END
$$;
