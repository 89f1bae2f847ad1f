-- Chat: every line said at a table, kept with the table so that a player who joins or comes
-- back reads the recent conversation (the last 100 lines; docs/protocol.md 3.1 and 3.2).
-- Never edit this file once it has shipped: add a new numbered file instead.

CREATE TABLE chat_messages (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- the order lines were said in
    table_id    text        NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    sent_at     timestamptz NOT NULL DEFAULT now(),
    seat        smallint    NOT NULL,                -- the speaker's seat
    name        text        NOT NULL,                -- the speaker's name as shown then
    text        text        NOT NULL,
    team        smallint,                            -- NULL: to the whole table; else team chat of this team
    -- Team chat: the player keys of the team's people when it was said, the only ones who
    -- read it again later (teams may be drawn anew for another game). NULL for table chat.
    audience    bytea[],
    CHECK ((team IS NULL) = (audience IS NULL))
);

-- A table's last lines, channel by channel (the table, or one team).
CREATE INDEX chat_messages_recent ON chat_messages (table_id, team, id);
