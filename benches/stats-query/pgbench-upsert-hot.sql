-- One game_stats row added to, of three shared by every client: the contended case.
\set r random(1, 3)
INSERT INTO game_stats AS s (game, variant, reason, humans, games, first_wins, second_wins, draws)
VALUES ('bench', '{"variant": "free", "board_size": 15}', 'reason ' || :r, true, 1, 1, 0, 0)
ON CONFLICT (game, variant, reason, humans) DO UPDATE
   SET games = s.games + 1, first_wins = s.first_wins + 1;
