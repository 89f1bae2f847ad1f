#!/usr/bin/env python3
"""Where a lost game was lost: an outside Gomocup engine (Rapfi, see build-rapfi.sh) judges
every move of side `a` in the games `spelbord arena --moves` printed that `a` lost.

For each of a's moves it asks the engine, at MS a move, about the position before the move
(a to move: the engine's evaluation for a, and the move it would play) and after it (the
opponent to move: its evaluation, turned to a's side). The first move after which a's
standing falls from "not lost" to a found loss (or by more than DROP) is marked `<<`: the
move that lost the game, by the engine's judgement at that time a move.

Usage: blunders.py ENGINE_COMMAND MS [DROP] < arena-output > report.txt
  ENGINE_COMMAND  the engine's command line, split at spaces
  MS              INFO timeout_turn for each question
  DROP            the fall in a's evaluation that marks a move when no loss is found
                  (default 400, in the engine's units)
The report has one block per lost game: the game's header, its moves, then one line per
move of a's: `ply move engine's-move before after`, then `lost at ply P: played M, engine
M'` and the position before it (for GOMOKU_POSITION of crates/spelbord-bots's measure.rs).
"""
import re
import sys

from gomocup import Engine

N = 15
cmd, ms = sys.argv[1], int(sys.argv[2])
drop = int(sys.argv[3]) if len(sys.argv) > 3 else 400
# An evaluation that says the game is decided: a found win or loss.
DECIDED = 20_000


def number(ev):
    """The engine's evaluation as a number: a found win or loss is +-DECIDED."""
    if ev is None:
        return 0
    if 'M' in ev:
        return -DECIDED if ev.startswith('-') else DECIDED
    return int(ev)


def square(word):
    return ord(word[0].lower()) - ord('a'), N - int(word[1:])


def name(x, y):
    return chr(ord('a') + x) + str(N - y)


def ask(moves):
    """The engine's move and evaluation for the side to move after `moves`."""
    (x, y), ev = engine.think(moves, ms)
    return name(x, y), number(ev)


def games(lines):
    header = None
    for line in lines:
        if line.startswith('game '):
            header = line.rstrip()
        elif line.strip().startswith('moves:') and header:
            yield header, line.split(':', 1)[1].split()
            header = None


engine = Engine(cmd, N)
lost = 0
for header, words in games(sys.stdin):
    m = re.match(r'game \S+: a as (\w+): b wins', header)
    if not m:
        continue
    lost += 1
    a_first = m.group(1) == 'X'
    moves = [square(w) for w in words]
    print(header)
    print('  moves:', ' '.join(words))
    marked = None
    for ply in range(0 if a_first else 1, len(moves), 2):
        engine_move, before = ask(moves[:ply])
        # b made the last move (b won), so every move of a's has an answer to judge.
        _, after = ask(moves[: ply + 1])
        after = -after
        mark = ''
        if marked is None and before > -DECIDED and (after <= -DECIDED or before - after > drop):
            marked = (ply, words[ply], engine_move)
            mark = ' <<'
        print(f'  {ply:3} {words[ply]:>4} {engine_move:>4} {before:7} {after:7}{mark}', flush=True)
    if marked:
        ply, played, best = marked
        print(f'  lost at ply {ply}: played {played}, engine {best}')
        print(f'  position: {" ".join(words[:ply])}')
    print(flush=True)
engine.end()
print(f'{lost} lost games judged')
