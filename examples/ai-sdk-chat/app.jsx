import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

// The chat's id lives in the address, so a reload resumes the same chat (its durable conversation).
const params = new URLSearchParams(location.search);
if (!params.get('chat')) {
  params.set('chat', `chat-${crypto.randomUUID().slice(0, 8)}`);
  history.replaceState(null, '', `?${params}`);
}
const chatId = params.get('chat');
// The agent of each turn: the calculator, whose calls wait for your approval; `?model=` picks the model.
const agent = {
  tools: ['calculator'],
  approval_tools: ['calculator'],
  ...(params.get('model') ? { model: params.get('model') } : {}),
};
const transport = new DefaultChatTransport({ api: '/ui/chat', body: agent });

function Chat() {
  const { messages, sendMessage, status, error, addToolApprovalResponse } = useChat({
    id: chatId,
    transport,
    resume: true,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  const submit = (event) => {
    event.preventDefault();
    if (input.trim() === '') return;
    void sendMessage({ text: input });
    setInput('');
  };
  return (
    <main>
      <h1>agent-runner chat</h1>
      <ol aria-label="Messages">
        {messages.map((message) => (
          <li key={message.id} className={message.role}>
            <strong>{message.role === 'user' ? 'You' : 'Agent'}</strong>
            {message.parts.map((part, index) => (
              <Part key={index} part={part} answer={addToolApprovalResponse} />
            ))}
          </li>
        ))}
      </ol>
      {error && <p role="alert">{error.message}</p>}
      <form onSubmit={submit}>
        <label>
          Message <input value={input} onChange={(event) => setInput(event.target.value)} />
        </label>
        <button type="submit" disabled={status !== 'ready' && status !== 'error'}>
          Send
        </button>
      </form>
      <p aria-live="polite" data-status={status}>
        Status: {status}
      </p>
    </main>
  );
}

function Part({ part, answer }) {
  if (part.type === 'text') return <p className="text">{part.text}</p>;
  if (part.type !== 'dynamic-tool') return null;
  return (
    <section className="tool" aria-label={`Tool call ${part.toolName}`}>
      <code>
        {part.toolName}({JSON.stringify(part.input)})
      </code>
      {part.state === 'approval-requested' && (
        <span>
          <button onClick={() => answer({ id: part.approval.id, approved: true })}>Approve</button>
          <button onClick={() => answer({ id: part.approval.id, approved: false, reason: 'denied in the chat' })}>
            Deny
          </button>
        </span>
      )}
      {part.state === 'output-available' && <output>{String(part.output)}</output>}
      {part.state === 'output-denied' && <output>denied</output>}
      {part.state === 'output-error' && <output>{part.errorText}</output>}
    </section>
  );
}

createRoot(document.getElementById('root')).render(<Chat />);
