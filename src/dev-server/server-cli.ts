import { ensureLocalServer, stopLocalServer } from './local-server';

/** `npm run server` / `npm run server:stop`: the background dev server the demo also uses. */
async function main(command: string | undefined): Promise<void> {
  if (command === 'stop') {
    console.log(await stopLocalServer());
    return;
  }
  if (command !== 'start') throw new Error('usage: server-cli start|stop');
  const server = await ensureLocalServer((line) => console.log(line));
  console.log(`Temporal at ${server.address} (${server.description}); web UI ${server.uiUrl ?? 'unknown'}.`);
  if (server.stop !== undefined) {
    console.log('This server lives as long as this process; Ctrl-C stops it.');
    await new Promise<void>((resolve) => process.once('SIGINT', resolve));
    await server.stop();
  } else {
    console.log('It keeps running in the background; `npm run server:stop` stops it.');
  }
}

main(process.argv[2]).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
