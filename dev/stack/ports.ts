import { portIsFree } from '../../src/os/ports';

/**
 * A free port below 32768. Temporal keeps its services' membership ports in a SMALLINT column of the cluster
 * metadata on PostgreSQL, so the kernel's ephemeral ports (32768 and up) crash it at start.
 */
export async function freeLowPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await portIsFree(port)) return port;
  }
  throw new Error('No free port between 20000 and 32000 for the Temporal server.');
}
