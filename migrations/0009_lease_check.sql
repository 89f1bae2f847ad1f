-- The lease check of one statement (docs/architecture.md, "Several nodes"): a write of a
-- table's seats, chat, game start or take-back calls this in the same statement, which
-- holds the lease FOR SHARE until it commits, or fails as a whole with SQLSTATE SPL01 when
-- another node holds the table now. A NULL node (a store that serves no lease) passes.
-- Never edit this file once it has shipped: add a new numbered file instead.

CREATE FUNCTION spelbord_hold_lease(table_id text, node integer, epoch bigint) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF node IS NULL THEN
        RETURN true;
    END IF;
    PERFORM 1 FROM table_leases l
      WHERE l.table_id = spelbord_hold_lease.table_id
        AND l.node = spelbord_hold_lease.node
        AND l.epoch = spelbord_hold_lease.epoch
      FOR SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'table % is served by another node now', spelbord_hold_lease.table_id
            USING ERRCODE = 'SPL01';
    END IF;
    RETURN true;
END
$$;
