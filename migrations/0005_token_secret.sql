-- The secret the server signs player tokens with, so that it accepts only tokens it issued
-- (every server of a deployment reads the same one). Created on first start.
CREATE TABLE server_secrets (
    name        text        PRIMARY KEY,            -- 'player_tokens'
    secret      bytea       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
