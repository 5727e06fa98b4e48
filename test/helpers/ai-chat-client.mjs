/* global process, console, AbortController */
// The AI SDK's own chat client (`DefaultChatTransport`, `readUIMessageStream`) against POST /ui/chat, in a process of
// its own: `ai` is an ES module, which jest's module loader cannot load. One JSON request in argv[2], one JSON answer
// on stdout: { ok, message?, chunks?, none?, error? }.
import { DefaultChatTransport, readUIMessageStream } from 'ai';

const request = JSON.parse(process.argv[2]);
const transport = new DefaultChatTransport({
  api: `${request.url}/ui/chat`,
  headers: { authorization: `Bearer ${request.token}` },
  body: request.body ?? {},
});

/** Reads a chunk stream to its end (or `abortAfter` chunks) through the SDK's own message builder. */
async function read(stream, abort) {
  const chunks = [];
  const [forMessage, forLog] = stream.tee();
  const logged = (async () => {
    for await (const chunk of forLog) {
      chunks.push(chunk);
      if (request.abortAfter !== undefined && chunks.length >= request.abortAfter) abort?.abort();
    }
  })().catch(() => undefined);
  let message;
  const errors = [];
  try {
    for await (const snapshot of readUIMessageStream({
      stream: forMessage,
      ...(request.message === undefined ? {} : { message: request.message }),
      onError: (error) => errors.push(String(error?.message ?? error)),
    }))
      message = snapshot;
  } catch (error) {
    errors.push(`stream: ${String(error?.message ?? error)}`);
  }
  await logged;
  return { message, chunks, errors };
}

try {
  if (request.op === 'resume') {
    const stream = await transport.reconnectToStream({ chatId: request.chatId });
    if (stream === null) console.log(JSON.stringify({ ok: true, none: true }));
    else console.log(JSON.stringify({ ok: true, ...(await read(stream)) }));
  } else {
    const abort = new AbortController();
    const stream = await transport.sendMessages({
      chatId: request.chatId,
      messages: request.messages,
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: abort.signal,
    });
    console.log(JSON.stringify({ ok: true, ...(await read(stream, abort)) }));
  }
} catch (error) {
  console.log(
    JSON.stringify({
      ok: false,
      error: { name: error?.name, message: String(error?.message ?? error), statusCode: error?.statusCode },
    }),
  );
}
