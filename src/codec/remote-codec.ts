import type { Payload, PayloadCodec } from '@temporalio/common';
import { REMOTE_CODEC_DEFAULTS } from '../shared/defaults/codec';
import { RemoteCodecError } from './remote-codec-error';

/** A payload as a codec server sends it: Temporal's `Payload` in proto JSON (bytes as base64). */
interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

/** Where a {@link RemotePayloadCodec} sends payloads, and how. */
export interface RemotePayloadCodecOptions {
  /** The codec server's base URL; `/encode` and `/decode` are appended. */
  endpoint: string;
  /** The `Authorization` header value, sent as it is (for example `Bearer abc`). */
  auth?: string;
  /** Sent as `X-Namespace`, which codec servers use to pick keys per namespace. */
  namespace?: string;
  /** @default REMOTE_CODEC_DEFAULTS.timeoutMs (10 s) */
  timeoutMs?: number;
}

/**
 * A payload codec that asks a codec server: `POST <endpoint>/encode` and `/decode` with
 * `{ "payloads": [{ "metadata": { key: base64 }, "data": base64 }] }` and the same shape back, the protocol of
 * Temporal's codec servers (the web UI and `temporal` CLI call them too). For a process that holds no keys of its own.
 */
export class RemotePayloadCodec implements PayloadCodec {
  private readonly endpoint: string;

  constructor(private readonly options: RemotePayloadCodecOptions) {
    this.endpoint = options.endpoint.replace(/\/+$/, '');
  }

  encode(payloads: Payload[]): Promise<Payload[]> {
    return this.call('encode', payloads);
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    return this.call('decode', payloads);
  }

  private async call(operation: 'encode' | 'decode', payloads: Payload[]): Promise<Payload[]> {
    if (payloads.length === 0) return payloads;
    const url = `${this.endpoint}/${operation}`;
    const timeoutMs = this.options.timeoutMs ?? REMOTE_CODEC_DEFAULTS.timeoutMs;
    const fail = (reason: string, extra: { status?: number; cause?: unknown } = {}) =>
      new RemoteCodecError({
        message: `The codec server at ${url} could not ${operation} ${payloads.length} payload(s): ${reason}`,
        url,
        ...extra,
      });
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.auth === undefined ? {} : { authorization: this.options.auth }),
          ...(this.options.namespace === undefined ? {} : { 'x-namespace': this.options.namespace }),
        },
        body: JSON.stringify({ payloads: payloads.map(toJson) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as { name?: unknown } | null)?.name === 'TimeoutError';
      throw fail(
        timedOut
          ? `no answer within ${timeoutMs} ms.`
          : `${connectionReason(error)}. Check TEMPORAL_CODEC_ENDPOINT (or the profile's [codec] endpoint).`,
        { cause: error },
      );
    }
    const auth = this.options.auth;
    // A server may echo the request's headers in an error: the Authorization value never reaches a message.
    const body = (await response.text().catch(() => '')).replaceAll(auth || '\u0000', '***');
    if (!response.ok) {
      const hint =
        response.status === 401 || response.status === 403
          ? " Check TEMPORAL_CODEC_AUTH (or the profile's [codec] auth)."
          : '';
      throw fail(`HTTP ${response.status}${body ? `: ${body.slice(0, 200)}` : ''}.${hint}`, {
        status: response.status,
      });
    }
    const answer = parseAnswer(body);
    if (answer === undefined || answer.length !== payloads.length) {
      throw fail(
        answer === undefined
          ? 'the answer is not { "payloads": [...] }.'
          : `it answered ${answer.length} payload(s) for ${payloads.length}.`,
        { status: response.status },
      );
    }
    return answer.map(fromJson);
  }
}

function toJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? []).toString('base64')]),
    ),
    data: Buffer.from(payload.data ?? []).toString('base64'),
  };
}

function fromJson(payload: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, new Uint8Array(Buffer.from(value, 'base64'))]),
    ),
    data: new Uint8Array(Buffer.from(payload.data ?? '', 'base64')),
  };
}

/** The payloads of a codec server's answer; undefined when it is not that shape. */
function parseAnswer(body: string): JsonPayload[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const payloads = (parsed as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(payloads)) return undefined;
  const valid = payloads.every(
    (payload: unknown) =>
      typeof payload === 'object' &&
      payload !== null &&
      ((payload as JsonPayload).data === undefined || typeof (payload as JsonPayload).data === 'string') &&
      ((payload as JsonPayload).metadata === undefined ||
        Object.values((payload as JsonPayload).metadata as object).every((value) => typeof value === 'string')),
  );
  return valid ? (payloads as JsonPayload[]) : undefined;
}

/** fetch's "fetch failed" hides the reason in its cause (ECONNREFUSED, ENOTFOUND...). Duck-typed: fetch's errors
 * may come from another realm than this module's `Error`. */
function connectionReason(error: unknown): string {
  const { message, cause } = (error ?? {}) as { message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const base = typeof message === 'string' ? message : String(error);
  if (typeof cause?.code === 'string') return `${base} (${cause.code})`;
  return typeof cause?.message === 'string' ? `${base} (${cause.message})` : base;
}
