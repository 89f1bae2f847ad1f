-- Clocks: the remaining time of every seat after each move, and the wall-clock instant the
-- running clock of a game's current turn runs out (for correspondence games, which must
-- keep their deadlines across restarts).

ALTER TABLE moves ADD COLUMN clocks_ms bigint[];      -- per seat, after the move; NULL when untimed
ALTER TABLE games ADD COLUMN deadline timestamptz;    -- NULL when untimed or finished
