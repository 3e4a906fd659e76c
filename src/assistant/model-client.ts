import { randomUUID } from 'node:crypto';
import type { AssistantConfig } from '../config.ts';
import type { ToolCall } from './tool-calls.ts';

/**
 * The client of an OpenAI-compatible chat-completions API (OpenAI, or a local llama.cpp server,
 * Ollama, vLLM … at their /v1 URL): one POST `${url}/chat/completions` per model turn with the
 * conversation and the tools, answered by a message with text or tool calls.
 */

export type ModelMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ModelTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ModelReply {
  content: string | null;
  toolCalls: ToolCall[];
}

/** The model API failed or answered something that is no chat completion: the message says which. */
export class ModelError extends Error {}

/** How much of a failed answer's body an error quotes. */
const QUOTED = 300;

export async function completeChat(config: AssistantConfig, messages: ModelMessage[], tools: ModelTool[], signal: AbortSignal): Promise<ModelReply> {
  let res: Response;
  try {
    res = await fetch(`${config.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
      body: JSON.stringify({ model: config.model, messages, ...(tools.length ? { tools, tool_choice: 'auto' } : {}) }),
      signal,
    });
  } catch (e) {
    if (signal.aborted) throw new ModelError('the model did not answer in time');
    throw new ModelError(`the model API could not be reached (${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message})`);
  }
  let text: string;
  try {
    text = await res.text();
  } catch {
    throw new ModelError(signal.aborted ? 'the model did not answer in time' : 'the model API broke off its answer');
  }
  if (!res.ok) throw new ModelError(`the model API answered ${res.status}${text ? `: ${text.slice(0, QUOTED)}` : ''}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ModelError(`the model API answered no JSON: ${text.slice(0, QUOTED)}`);
  }
  const message = (body as { choices?: { message?: unknown }[] })?.choices?.[0]?.message as { content?: unknown; tool_calls?: unknown } | undefined;
  if (!message || typeof message !== 'object') throw new ModelError('the model API answered without choices[0].message');
  const content = typeof message.content === 'string' ? message.content : null;
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const toolCalls = calls.map((c: unknown): ToolCall => {
    const call = c as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    const name = call?.function?.name;
    if (typeof name !== 'string' || !name) throw new ModelError('the model API answered a tool call without a function name');
    const args = call.function!.arguments;
    return {
      id: typeof call.id === 'string' && call.id ? call.id : `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      type: 'function',
      // OpenAI sends the arguments as JSON text; some servers send the object itself
      function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
    };
  });
  return { content, toolCalls };
}
