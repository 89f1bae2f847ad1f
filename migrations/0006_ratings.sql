-- Ratings (Glicko-2, see docs/ratings.md) and an index for the statistics.
--
-- A person is known by their player key (the SHA-256 of their token) and rated per game.
-- `ratings` holds each one's current rating; `rating_history` one row per rated game and
-- person, written in the same transaction as the game's result. Bots have fixed ratings
-- (in the code) and no rows.

CREATE TABLE ratings (
    player_key  bytea            NOT NULL,
    game        text             NOT NULL,          -- game id: 'gomoku', ...
    rating      double precision NOT NULL,
    deviation   double precision NOT NULL,          -- RD, in rating points
    volatility  double precision NOT NULL,
    games       integer          NOT NULL DEFAULT 0, -- rated games played
    updated_at  timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (player_key, game)
);

CREATE TABLE rating_history (
    game_id            uuid             NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player_key         bytea            NOT NULL,
    game               text             NOT NULL,
    seats              smallint[]       NOT NULL,   -- the seats the person held
    rating_before      double precision NOT NULL,
    deviation_before   double precision NOT NULL,
    volatility_before  double precision NOT NULL,
    rating_after       double precision NOT NULL,
    deviation_after    double precision NOT NULL,
    volatility_after   double precision NOT NULL,
    rated_at           timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, player_key)
);

CREATE INDEX rating_history_player ON rating_history (player_key, game, rated_at);

-- Statistics read every finished game of one kind: from the tables of that game.
CREATE INDEX tables_game ON tables (game);
