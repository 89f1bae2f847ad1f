-- Rotating Bughouse tables: the people waiting for a seat, in order of arrival. Expand
-- only (a new table): the previous release never reads it.
-- Never edit this file once it has shipped: add a new numbered file instead.

CREATE TABLE table_queue (
    table_id    text        NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    player_key  bytea       NOT NULL,                -- SHA-256 of the person's token
    name        text        NOT NULL,
    place       integer     NOT NULL,                -- 0 first; gaps allowed, order is what counts
    joined_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, player_key)
);
