-- Match series and their standings, the rated flag of every game, and take-backs.
--
-- A table plays series one after another (a rematch starts a new one). A series is played
-- between two sides: side 0 held seat 0 (the first team) in the series' first game; the
-- sides keep their numbers when they swap seats. Its standings are one row per side,
-- updated in the same transaction as each game's result.

CREATE TABLE series (
    id          uuid        PRIMARY KEY,
    table_id    text        NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    number      integer     NOT NULL,                -- 1 for the table's first series
    format      text        NOT NULL CHECK (format IN ('single', 'best_of_3', 'best_of_5', 'first_to_3', 'ten_games')),
    status      text        NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'decided')),
    result      text        CHECK (result IN ('win', 'tie')),  -- NULL while playing
    winner      smallint,                            -- the winning side; NULL for a tie or while playing
    started_at  timestamptz NOT NULL DEFAULT now(),
    ended_at    timestamptz,
    UNIQUE (table_id, number)
);

CREATE TABLE series_sides (
    series_id   uuid        NOT NULL REFERENCES series (id) ON DELETE CASCADE,
    side        smallint    NOT NULL CHECK (side IN (0, 1)),
    players     text        NOT NULL,                -- the side's names, e.g. 'Anna' or 'Anna & Bo'
    wins        integer     NOT NULL DEFAULT 0,
    draws       integer     NOT NULL DEFAULT 0,
    losses      integer     NOT NULL DEFAULT 0,
    points      integer     NOT NULL DEFAULT 0,      -- win 3, draw 1, loss 0
    PRIMARY KEY (series_id, side)
);

ALTER TABLE games ADD COLUMN series_id uuid REFERENCES series (id) ON DELETE CASCADE;
ALTER TABLE games ADD COLUMN series_game integer;      -- the game's number in its series, from 1
ALTER TABLE games ADD COLUMN rated boolean NOT NULL DEFAULT false;
ALTER TABLE game_players ADD COLUMN side smallint;     -- the player's side in the series

-- A take-back is a record in the move list: `takeback_to` is the number of moves the game
-- keeps (the moves after it were taken back); its payload is {"takeback": n}. Replaying the
-- records in order rebuilds exactly the line the players saw.
ALTER TABLE moves ADD COLUMN takeback_to integer;

CREATE INDEX series_table_id ON series (table_id);
CREATE INDEX games_series_id ON games (series_id);
