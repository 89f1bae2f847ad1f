-- Tables, their seats, the games played at them, every move, and each finished game's result.
-- Never edit this file once it has shipped: add a new numbered file instead.

CREATE TABLE tables (
    id          text        PRIMARY KEY,             -- the short shareable id in /t/{id}
    game        text        NOT NULL,                -- game id: 'gomoku', ...
    settings    jsonb       NOT NULL,                -- validated settings, defaults filled in
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- Who holds each seat. The player is known only by the SHA-256 of their secret token.
CREATE TABLE seats (
    table_id    text        NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    seat        smallint    NOT NULL,
    player_key  bytea       NOT NULL,
    name        text        NOT NULL,
    sat_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, seat)
);

CREATE TABLE games (
    id          uuid        PRIMARY KEY,
    table_id    text        NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    number      integer     NOT NULL,                -- 1 for the table's first game
    status      text        NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'finished')),
    started_at  timestamptz NOT NULL DEFAULT now(),
    ended_at    timestamptz,
    UNIQUE (table_id, number)
);

-- The players of a game, seat by seat, as they were when it started.
CREATE TABLE game_players (
    game_id     uuid        NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat        smallint    NOT NULL,
    role        text        NOT NULL,                -- 'X', 'O', ...
    player_key  bytea       NOT NULL,
    name        text        NOT NULL,
    PRIMARY KEY (game_id, seat)
);

-- Every accepted move, stored before anyone is told about it.
CREATE TABLE moves (
    game_id     uuid        NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply         integer     NOT NULL,                -- 1 for the first move
    seat        smallint    NOT NULL,
    payload     jsonb       NOT NULL,                -- the game-specific move, as normalised by the rules
    played_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, ply)
);

CREATE TABLE results (
    game_id     uuid        PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    outcome     text        NOT NULL CHECK (outcome IN ('win', 'draw', 'aborted')),
    winners     smallint[]  NOT NULL,                -- winning seats; empty for a draw
    reason      text        NOT NULL,                -- 'five_in_a_row', 'resignation', 'draw_agreed', ...
    detail      jsonb,                               -- e.g. the completed lines
    move_count  integer     NOT NULL,
    players     jsonb       NOT NULL,                -- [{"seat":0,"role":"X","name":"..."}, ...]
    started_at  timestamptz NOT NULL,
    ended_at    timestamptz NOT NULL
);

CREATE INDEX games_table_id ON games (table_id);
