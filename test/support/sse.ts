/**
 * A GraphQL subscription over server-sent events as a client sends it (graphql-yoga's GraphQL over
 * SSE, the distinct-connections mode of graphql-sse): fetch with Accept: text/event-stream, the
 * bearer token in Authorization, the `next` events' results collected as they arrive.
 */
export interface SseSubscription<T = any> {
  status: number;
  headers: Headers;
  /** every `next` event's result so far, with when it arrived (performance.now()) */
  events: { result: { data?: T; errors?: { message: string; extensions?: any }[] }; at: number }[];
  /** resolves when `count` events have arrived (rejects after `timeoutMs`) */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /** resolves when the server sent `complete` or closed the stream */
  ended: Promise<void>;
  /** the client goes away (aborts the request) */
  close(): void;
}

export async function subscribeSse<T = any>(
  url: string,
  options: { token?: string; query: string; variables?: Record<string, unknown>; method?: 'GET' | 'POST' },
): Promise<SseSubscription<T>> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let target = `${url}/graphql`;
  let body: string | undefined;
  if (options.method === 'GET') {
    target += `?query=${encodeURIComponent(options.query)}${options.variables ? `&variables=${encodeURIComponent(JSON.stringify(options.variables))}` : ''}`;
  } else {
    headers['content-type'] = 'application/json';
    body = JSON.stringify({ query: options.query, variables: options.variables });
  }
  const res = await fetch(target, { method: options.method ?? 'POST', headers, body, signal: controller.signal });
  const events: SseSubscription<T>['events'] = [];
  const waiters = new Set<() => void>();
  let done = false;
  const ended = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trimStart())
            .join('\n');
          if (event === 'complete') return;
          if (event === 'next') {
            events.push({ result: JSON.parse(data), at: performance.now() });
            for (const w of [...waiters]) w();
          }
        }
      }
    } catch (e) {
      if (!controller.signal.aborted) throw e;
    } finally {
      done = true;
      for (const w of [...waiters]) w();
    }
  })();
  ended.catch(() => undefined); // a test awaiting it sees the failure
  return {
    status: res.status,
    headers: res.headers,
    events,
    ended,
    close: () => controller.abort(),
    waitFor: (count, timeoutMs = 5000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (events.length >= count) finish(resolve);
          else if (done) finish(() => reject(new Error(`the stream ended after ${events.length} of ${count} events`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`${events.length} of ${count} events within ${timeoutMs} ms`))), timeoutMs);
        const finish = (then: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          then();
        };
        waiters.add(check);
        check();
      }),
  };
}
