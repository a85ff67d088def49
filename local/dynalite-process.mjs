// dynalite in a child process on a free loopback port; reports the port over IPC and
// exits when the parent goes away. Plain JS so it starts without a TypeScript loader.
import dynalite from 'dynalite';

const server = dynalite({
  createTableMs: 0,
  deleteTableMs: 0,
  updateTableMs: 0,
  ...(process.env.DYNALITE_PATH ? { path: process.env.DYNALITE_PATH } : {}),
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
