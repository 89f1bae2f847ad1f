-- Engines in any seat (issue #32): a seat, and a game's player, may be an external engine
-- the operator configured, stored as `engine:NAME` (NAME: 1 to 24 of a-z, 0-9, _ and -)
-- beside the four strengths of our own bots. The checks of 0003 are replaced by wider ones.
ALTER TABLE seats DROP CONSTRAINT seats_bot_check;
ALTER TABLE seats ADD CONSTRAINT seats_bot_check
    CHECK (bot IN ('random', 'easy', 'medium', 'hard') OR bot ~ '^engine:[a-z0-9_-]{1,24}$');
ALTER TABLE game_players DROP CONSTRAINT game_players_bot_check;
ALTER TABLE game_players ADD CONSTRAINT game_players_bot_check
    CHECK (bot IN ('random', 'easy', 'medium', 'hard') OR bot ~ '^engine:[a-z0-9_-]{1,24}$');
