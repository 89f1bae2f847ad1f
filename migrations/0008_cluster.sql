-- Several nodes (docs/architecture.md, "Several nodes"): each running server process is a
-- node; a table is served by the one node that holds its lease. Every write of a table's
-- moves, results, seats and chat checks the lease's epoch in the same transaction (a
-- fencing token), so a node that lost the lease can never store anything for the table.
-- Never edit this file once it has shipped: add a new numbered file instead.

-- One row per running server process (a restarted process is a new node). A node is alive
-- while its row has not expired (it renews it every lease_seconds / 3) AND it holds the
-- session-level advisory lock (1397771330, id) on its own database connection: a process
-- that dies loses its session, and with it its tables, at once.
CREATE TABLE nodes (
    id          integer     GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text        NOT NULL,                -- the configured name, for people
    started_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);

-- Who serves each table. The epoch rises by one with every acquisition, whoever acquires.
CREATE TABLE table_leases (
    table_id    text        PRIMARY KEY REFERENCES tables (id) ON DELETE CASCADE,
    node        integer,                             -- the holder (nodes.id); NULL: released
    epoch       bigint      NOT NULL,
    acquired_at timestamptz NOT NULL DEFAULT now(),
    wanted_by   integer                              -- a node asking the holder to hand it over
);
CREATE INDEX table_leases_node ON table_leases (node);

-- Is this node alive: its row not expired, and its database session holding its lock?
CREATE FUNCTION spelbord_node_alive(node integer) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM nodes n WHERE n.id = node AND n.expires_at > now())
       AND EXISTS (SELECT 1 FROM pg_locks l
                    WHERE l.locktype = 'advisory' AND l.granted
                      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                      AND l.classid = 1397771330::oid AND l.objid = node::oid AND l.objsubid = 2)
$$;

-- Every node looks for games in play whose node died, every lease_seconds / 3.
CREATE INDEX games_playing ON games (table_id) WHERE status = 'playing';
CREATE INDEX series_playing ON series (table_id) WHERE status = 'playing';
