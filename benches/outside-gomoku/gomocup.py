"""A Gomocup (piskvork) engine spoken to over pipes, for the scripts beside this file
(positions.py, blunders.py): free-style rules, 15x15, one position a question (BOARD), and
the evaluation the engine reports in its MESSAGE lines (as Rapfi prints them: `Eval 123`,
`Eval +M29`)."""
import re
import subprocess
import sys


class Engine:
    def __init__(self, command, size=15):
        """Starts `command` (split at spaces; no shell) and its board of `size`."""
        self.process = subprocess.Popen(
            command.split(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send(f'START {size}')
        self.answer()

    def send(self, line):
        self.process.stdin.write(line + '\n')
        self.process.stdin.flush()

    def answer(self):
        """The engine's next answer line, and the last evaluation it reported before it
        (`None` if none)."""
        evals = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                sys.exit('engine ended')
            line = line.strip()
            head = line.split(' ')[0]
            if head in ('MESSAGE', 'DEBUG', 'UNKNOWN', 'ERROR', ''):
                m = re.search(r'Eval ([-+]?M?\d+)', line)
                if m:
                    evals.append(m.group(1))
                continue
            return line, (evals[-1] if evals else None)

    def think(self, moves, ms):
        """The engine's move `(x, y)` for the side to move after `moves` (a list of `(x, y)`,
        X first), thinking `ms` milliseconds, and the evaluation it reported."""
        side = len(moves) % 2
        self.send(f'INFO timeout_turn {ms}')
        self.send('INFO timeout_match 0')
        self.send('INFO rule 0')
        self.send('BOARD')
        for k, (mx, my) in enumerate(moves):
            self.send(f'{mx},{my},{1 if k % 2 == side else 2}')
        self.send('DONE')
        reply, ev = self.answer()
        x, y = map(int, reply.split(','))
        return (x, y), ev

    def end(self):
        self.send('END')
