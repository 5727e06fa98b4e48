import type { Payload } from '@temporalio/common';
import { z } from 'zod';

/**
 * The payloads of Temporal's remote codec protocol, as JSON: `{ "payloads": [ { "metadata": { "<name>": "<base64>" },
 * "data": "<base64>" } ] }`, the protobuf JSON form of `temporal.api.common.v1.Payloads` that the web UI and the CLI
 * send to `/encode` and `/decode` and expect back.
 */

/** Standard or URL-safe base64, padded or not, as protobuf's JSON form allows. */
const base64 = z
  .string()
  .regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'expected base64')
  .refine((text) => text.replace(/=+$/, '').length % 4 !== 1, 'expected base64 (its length cannot be right)');

/** One payload as JSON; fields the protocol may add later are kept as they came. */
const payloadJsonSchema = z.looseObject({
  metadata: z.record(z.string(), base64).optional(),
  data: base64.optional(),
});

/** One payload as the protocol's JSON carries it. */
export type PayloadJson = z.output<typeof payloadJsonSchema>;

/** The body of `/encode` and `/decode`, at most `maxPayloads` payloads. */
export function payloadsBodySchema(maxPayloads: number) {
  return z.object({
    payloads: z
      .array(payloadJsonSchema)
      .max(maxPayloads, `at most ${maxPayloads} payloads in one request; send them in smaller batches`),
  });
}

/** A payload of the protocol's JSON as the SDK's codecs take it. */
export function payloadFromJson(json: PayloadJson): Payload {
  const metadata: Record<string, Uint8Array> = {};
  for (const [name, value] of Object.entries(json.metadata ?? {})) metadata[name] = Buffer.from(value, 'base64');
  return { metadata, data: Buffer.from(json.data ?? '', 'base64') };
}

/** A payload as the protocol's JSON (standard, padded base64). */
export function payloadToJson(payload: Payload): PayloadJson {
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload.metadata ?? {})) {
    if (value !== null && value !== undefined) metadata[name] = Buffer.from(value).toString('base64');
  }
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}
