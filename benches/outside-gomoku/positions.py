#!/usr/bin/env python3
"""Labelled Gomoku positions for fitting the learned evaluation
(crates/spelbord-bots/src/gomoku/fit.rs): an outside Gomocup engine plays itself
(free-style, 15x15) from a random opening of 1-5 stones, with a share of its moves
replaced by random squares near the stones, and every position it thinks about is
written with the evaluation it reports for the side to move (its MESSAGE lines, as
Rapfi prints them). A game ends at a five, at an evaluation of a found win or loss, or
after 110 stones.

Usage: positions.py ENGINE_COMMAND MS GAMES SEED [RANDOM_SHARE] > positions.txt
  ENGINE_COMMAND  the engine's command line, split at spaces
  MS              INFO timeout_turn per move
  RANDOM_SHARE    the share of moves replaced by a random one (default 0.12)
Output lines: `<eval or +M/-M> <moves...>` (moves like H8; the side to move follows
from their number).
"""
import random, sys

from gomocup import Engine

cmd, ms, games, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
random_rate = float(sys.argv[5]) if len(sys.argv) > 5 else 0.12
rng = random.Random(seed)
N = 15

def five(stones, x, y, side):
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        for s in (1, -1):
            cx, cy = x + s * dx, y + s * dy
            while stones.get((cx, cy)) == side:
                n += 1; cx += s * dx; cy += s * dy
        if n >= 5:
            return True
    return False

def near(stones, d):
    out = set()
    for (x, y) in stones:
        for cx in range(x - d, x + d + 1):
            for cy in range(y - d, y + d + 1):
                if 0 <= cx < N and 0 <= cy < N and (cx, cy) not in stones:
                    out.add((cx, cy))
    return sorted(out)

def name(x, y):
    return chr(ord('A') + x) + str(N - y)

engine = Engine(cmd, N)
for g in range(games):
    stones, moves = {}, []
    opening = rng.randint(1, 5)
    while len(moves) < 110:
        side = len(moves) % 2
        if len(moves) < opening:
            x, y = (7 + rng.randint(-2, 2), 7 + rng.randint(-2, 2)) if not moves else rng.choice(near(stones, 2))
            if (x, y) in stones:
                continue
            ev = None
        else:
            (x, y), ev = engine.think(moves, ms)
            if ev is not None:
                print(ev, ' '.join(name(*m) for m in moves), flush=True)
                if 'M' in ev:
                    break
            if rng.random() < random_rate:
                x, y = rng.choice(near(stones, 2))
        stones[(x, y)] = side
        moves.append((x, y))
        if five(stones, x, y, side):
            break
engine.end()
