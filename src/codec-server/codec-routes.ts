import type { PayloadCodec } from '@temporalio/common';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseBody } from '../http/errors';
import { PayloadKeyError } from '../codec/payload-key-error';
import { CODEC_SERVER_DEFAULTS } from '../shared/defaults/codec-server';
import { payloadFromJson, payloadToJson, payloadsBodySchema, type PayloadJson } from './payload-json';

/**
 * The response header that lists the key ids of payloads `/decode` could not open (comma-separated); absent when it
 * opened every encrypted payload.
 */
export const UNOPENED_KEYS_HEADER = 'x-codec-unopened-key-ids';

/** What the codec routes need. */
export interface CodecRoutesOptions {
  /** The codec that encodes and decodes: the workers' own. */
  codec: PayloadCodec;
  /** Path prefix of the two routes, for example `/codec`. @default none: `/encode` and `/decode` */
  prefix?: string;
  /** Most payloads one request may carry. @default 1000 (`CODEC_SERVER_DEFAULTS.maxPayloads`) */
  maxPayloads?: number;
}

/**
 * Temporal's remote codec protocol, `POST /encode` and `POST /decode` over `{ "payloads": [...] }`; a bad body is
 * a 400. A payload `/decode` cannot open comes back untouched, so the web UI shows the rest, and
 * `x-codec-unopened-key-ids` names its key ids.
 */
export function registerCodecRoutes(app: FastifyInstance, options: CodecRoutesOptions): void {
  const prefix = options.prefix ?? '';
  const schema = payloadsBodySchema(options.maxPayloads ?? CODEC_SERVER_DEFAULTS.maxPayloads);
  const codec = options.codec;

  app.post(`${prefix}/encode`, async (request) => {
    const body = parseBody(schema, request.body);
    const encoded = await codec.encode(body.payloads.map(payloadFromJson));
    return { payloads: encoded.map(payloadToJson) };
  });

  app.post(`${prefix}/decode`, async (request, reply) => {
    const body = parseBody(schema, request.body);
    const unopened = new Set<string>();
    const payloads: PayloadJson[] = [];
    for (const json of body.payloads) {
      try {
        const [decoded] = await codec.decode([payloadFromJson(json)]);
        payloads.push(payloadToJson(decoded!));
      } catch (error) {
        if (!PayloadKeyError.isInstance(error)) throw error;
        unopened.add(error.keyId);
        request.log.warn({ keyId: error.keyId, namespace: request.headers['x-namespace'] }, error.message);
        payloads.push(json);
      }
    }
    if (unopened.size > 0) nameUnopenedKeys(reply, unopened);
    return { payloads };
  });
}

/** The header naming the key ids; an id comes from the payload, so only a key id's characters are kept. */
function nameUnopenedKeys(reply: FastifyReply, keyIds: Set<string>): void {
  const shown = [...keyIds].map((id) => id.replace(/[^A-Za-z0-9._-]/g, '').slice(0, 64) || '(none)');
  void reply.header(UNOPENED_KEYS_HEADER, shown.join(','));
}
