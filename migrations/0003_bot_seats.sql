-- Bots: a seat (and a game's player) is held either by a person, known by the SHA-256 of
-- their token, or by the computer at a strength. Results can be filtered by it.

ALTER TABLE seats ALTER COLUMN player_key DROP NOT NULL;
ALTER TABLE seats ADD COLUMN bot text CHECK (bot IN ('random', 'easy', 'medium', 'hard'));
ALTER TABLE seats ADD CONSTRAINT seats_person_or_bot CHECK ((player_key IS NULL) <> (bot IS NULL));

ALTER TABLE game_players ALTER COLUMN player_key DROP NOT NULL;
ALTER TABLE game_players ADD COLUMN bot text CHECK (bot IN ('random', 'easy', 'medium', 'hard'));
ALTER TABLE game_players ADD CONSTRAINT game_players_person_or_bot CHECK ((player_key IS NULL) <> (bot IS NULL));
