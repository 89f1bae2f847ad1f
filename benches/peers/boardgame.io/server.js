// boardgame.io 0.50.2 serving the free-style Gomoku of gomoku.js: its stock `Server`
// with the default in-memory storage (nothing is durable), the lobby API and the
// socket.io transport on one port. Port from BGIO_PORT (default 8000), on 127.0.0.1
// only. Run it with NODE_ENV=production, as run.sh does, so that boardgame.io logs
// nothing per move.

const { Server, Origins } = require('boardgame.io/server');
const { Gomoku } = require('./gomoku');

const port = Number.parseInt(process.env.BGIO_PORT || '8000', 10);
const server = Server({ games: [Gomoku], origins: [Origins.LOCALHOST] });

// `run` listens on every interface; keep the benchmark on loopback.
const listen = server.app.listen;
server.app.listen = (listenPort, callback) => listen.call(server.app, listenPort, '127.0.0.1', callback);

server.run({ port, callback: () => console.error(`boardgame.io: gomoku on 127.0.0.1:${port}, pid ${process.pid}`) });

// Stop at once on the signal run.sh sends.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => process.exit(0));
}
