-- Players an operator removed from a table's seat and barred from sitting down there again
-- (docs/operations.md, "Moderation"). Expand only (a new table): the previous release
-- never reads it.
-- Never edit this file once it has shipped: add a new numbered file instead.

CREATE TABLE table_bars (
    table_id    text        NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    player_key  bytea       NOT NULL,                -- SHA-256 of the person's token
    barred_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, player_key)
);
