-- Moderation (docs/operations.md, "Moderation"; docs/protocol.md, `report` and `chat_muted`):
-- who said each chat line, tables an operator closed, players muted in chat, chat lines
-- players reported, and every operator action with who did it.
-- Never edit this file once it has shipped: add a new numbered file instead.

-- The speaker's player key (the SHA-256 of their token), so an operator reading a table's
-- chat knows whom to mute. NULL for lines stored before this migration.
ALTER TABLE chat_messages ADD COLUMN player_key bytea;

-- An operator closed the table: its game (if any) was aborted, and the table is no longer
-- served (its page and API answer 410, its sockets were closed with 4000).
ALTER TABLE tables ADD COLUMN closed_at timestamptz;

-- Players whose chat lines are refused (`chat_muted`) at every table, by player key. A
-- mute with `until` lapses then by itself; DELETE /api/admin/mutes/{key} lifts it.
CREATE TABLE chat_mutes (
    player_key  bytea       PRIMARY KEY,
    reason      text        NOT NULL,
    muted_at    timestamptz NOT NULL DEFAULT now(),
    until       timestamptz,                          -- NULL: until lifted
    muted_by    text        NOT NULL                  -- the operator's name (X-Admin-Name)
);

-- Chat lines players reported. The line is copied (its speaker, text and time): a table
-- keeps only its last 100 lines, and a report must outlive the line.
CREATE TABLE chat_reports (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    reporter    bytea       NOT NULL,                 -- the reporter's player key
    line_id     bigint      NOT NULL,                 -- chat_messages.id (the line may be gone since)
    table_id    text        NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    reason      text,
    reported_at timestamptz NOT NULL DEFAULT now(),
    seat        smallint    NOT NULL,                 -- the line as it was: its speaker's seat,
    name        text        NOT NULL,                 -- name,
    speaker_key bytea,                                -- key (NULL for lines from before 0019),
    text        text        NOT NULL,                 -- text,
    team        smallint,                             -- channel,
    sent_at     timestamptz NOT NULL,                 -- and time
    UNIQUE (reporter, line_id)                        -- one report per reporter and line
);
-- Newest first, for the operator's list.
CREATE INDEX chat_reports_recent ON chat_reports (reported_at DESC, id DESC);

-- Every operator action, with who did it.
CREATE TABLE admin_actions (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    actor       text        NOT NULL,                 -- X-Admin-Name, or '' when none was given
    token_kind  text        NOT NULL,                 -- 'admin' or 'metrics': which token opened it
    address     text,                                 -- the client's address
    action      text        NOT NULL,                 -- close_table, remove_seat, mute, unmute
    table_id    text,                                 -- the table acted on, if any (not a foreign key: the record outlives it)
    details     jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX admin_actions_at ON admin_actions (at);
