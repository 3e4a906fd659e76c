import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted stand-in for an OpenAI-compatible chat-completions server, over real HTTP: each POST
 * /v1/chat/completions is answered by the next step of the script. A step is a reply (text and/or
 * tool calls), a raw HTTP answer (an error status, a body that is no JSON), a delay, or a function of
 * the request (to name an id an earlier tool result returned). Requests are kept for assertions.
 */

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
  tools?: { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
}

export interface Reply {
  content?: string | null;
  calls?: { name: string; arguments: Record<string, unknown> | string; id?: string }[];
}

export type Step = Reply | { status: number; body: string } | { delayMs: number; then: Step } | ((request: ChatRequest) => Reply);

export interface ScriptedModel {
  /** the API base to configure as ASSISTANT_URL */
  url: string;
  requests: ChatRequest[];
  /** authorization headers received, in order */
  authorizations: (string | undefined)[];
  /** appends steps to the script */
  script(...steps: Step[]): void;
  /** steps not used yet */
  pending(): number;
  close(): Promise<void>;
}

/** The tool result content of the request's last tool message with this tool name's call, parsed. */
export function lastToolResult(request: ChatRequest, tool: string): any {
  const call = [...request.messages].reverse().flatMap((m) => m.tool_calls ?? []).find((c) => c.function.name === tool);
  const result = call && request.messages.find((m) => m.role === 'tool' && m.tool_call_id === call.id);
  return result?.content ? JSON.parse(result.content) : undefined;
}

let callCounter = 0;

function completion(reply: Reply) {
  const toolCalls = (reply.calls ?? []).map((c) => ({
    id: c.id ?? `call_${++callCounter}`,
    type: 'function',
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
  return {
    id: `chatcmpl-${callCounter}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'scripted',
    choices: [{ index: 0, message: { role: 'assistant', content: reply.content ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, finish_reason: toolCalls.length ? 'tool_calls' : 'stop' }],
  };
}

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

export async function startScriptedModel(): Promise<ScriptedModel> {
  const steps: Step[] = [];
  const requests: ChatRequest[] = [];
  const authorizations: (string | undefined)[] = [];
  const server: Server = createServer(async (req, res) => {
    const text = await read(req);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const request = JSON.parse(text) as ChatRequest;
    requests.push(request);
    authorizations.push(req.headers.authorization);
    let step = steps.shift();
    if (!step) {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"the script has no more steps"}');
      return;
    }
    while (typeof step === 'object' && 'delayMs' in step) {
      await new Promise((r) => setTimeout(r, (step as { delayMs: number }).delayMs));
      step = (step as { then: Step }).then;
    }
    if (typeof step === 'object' && 'status' in step) {
      res.writeHead(step.status, { 'content-type': 'application/json' }).end(step.body);
      return;
    }
    const reply = typeof step === 'function' ? step(request) : step;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(reply)));
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    script: (...more) => steps.push(...more),
    pending: () => steps.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
