-- One game_stats row added to, the client's own (as with a row per writer): no contention.
INSERT INTO game_stats AS s (game, variant, reason, humans, games, first_wins, second_wins, draws)
VALUES ('bench', '{"variant": "free", "board_size": 15}', 'client ' || :client_id, true, 1, 1, 0, 0)
ON CONFLICT (game, variant, reason, humans) DO UPDATE
   SET games = s.games + 1, first_wins = s.first_wins + 1;
