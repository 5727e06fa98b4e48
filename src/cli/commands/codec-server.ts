import { AesGcmPayloadCodec } from '../../codec/aes-gcm-codec';
import { loadCodecServerConfig } from '../../config/codec-server';
import { listen, untilSignal } from '../../api/lifecycle';
import { buildCodecServer } from '../../codec-server/server';
import { ExitCode } from '../exit-codes';

/** The options of `agent-runner codec-server`; unset, the environment's. */
export interface CodecServerCommandOptions {
  host?: string;
  port?: number;
}

/**
 * `agent-runner codec-server`: serves Temporal's codec protocol with the payload keys of the environment until
 * Ctrl-C, printing where it listens and the lines that point the web UI and the CLI at it (never the token).
 */
export async function codecServerCommand(options: CodecServerCommandOptions): Promise<ExitCode> {
  const config = loadCodecServerConfig();
  const host = options.host ?? config.host;
  const port = options.port ?? config.port;
  const app = buildCodecServer({
    codec: new AesGcmPayloadCodec(config.keys),
    token: config.token,
    corsOrigins: config.corsOrigins,
    logger: { level: 'warn' },
  });
  const stop = untilSignal();
  const url = await listen(app, { host, port });
  for (const line of startupLines(
    url,
    config.keys.map((key) => key.id),
    config.corsOrigins,
  ))
    console.log(line);
  await stop;
  await app.close();
  console.log('Codec server stopped.');
  return ExitCode.ok;
}

/** What the command prints once it listens. */
function startupLines(url: string, keyIds: string[], origins: readonly string[]): string[] {
  // The dev server's UI is opened as http://localhost:8233: the same host name makes the two the same site, so the sign-in cookie goes along.
  const browserUrl = url.replace('//127.0.0.1:', '//localhost:');
  return [
    `Codec server at ${url} (keys ${keyIds.join(', ')}; browsers from ${origins.join(', ') || 'no origin'}). Ctrl-C stops it.`,
    'Web UI: start the dev server with',
    `  temporal server start-dev --ui-codec-endpoint ${browserUrl}`,
    `  then sign this browser in at ${browserUrl}/login (the token of AGENT_CODEC_SERVER_TOKEN), and in the UI's codec`,
    '  server settings turn on "Include cross-origin credentials" (open the UI on the same host name as this server).',
    'CLI:',
    `  temporal workflow show --workflow-id <id> --codec-endpoint ${url} --codec-auth "Bearer $AGENT_CODEC_SERVER_TOKEN"`,
  ];
}
