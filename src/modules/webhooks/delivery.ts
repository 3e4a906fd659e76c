import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedTarget } from './url-guard.ts';

/** A new signing secret: `whsec_` + base64 of 24 random bytes (Standard Webhooks: 24 to 64 bytes). */
export const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * Standard Webhooks' signature: `v1,` + base64 of HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`
 * keyed with the base64-decoded part of the secret after `whsec_`.
 */
export function sign(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one attempt; during a rotation's overlap one signature per valid secret, space-separated. */
export function signedHeaders(secrets: readonly string[], messageId: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'regnskap-webhooks/1',
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => sign(s, messageId, timestamp, body)).join(' '),
  };
}

export interface AttemptResult {
  /** the receiver's status, null when no answer came (timeout, refused, reset) */
  statusCode: number | null;
  ok: boolean;
  error: string | null;
  durationMs: number;
}

/**
 * POSTs the body to the checked target, connecting to its resolved address (pinned: the host name is
 * not looked up again; TLS still verifies the certificate for the host name), within `timeoutMs` for
 * the whole exchange. 2xx is success; redirects are not followed (a 3xx is a failure).
 */
export function post(target: ResolvedTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<AttemptResult> {
  const started = performance.now();
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ statusCode, ok: statusCode !== null && statusCode >= 200 && statusCode < 300, error, durationMs: Math.round(performance.now() - started) });
    };
    const req = client.request(target.url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: pinned, agent: false }, (res) => {
      res.on('data', () => undefined); // the answer's body is not read further than its end
      res.on('end', () => done(res.statusCode ?? null, null));
      res.on('error', (e) => done(res.statusCode ?? null, e.message));
    });
    const timer = setTimeout(() => {
      done(null, `no answer within ${timeoutMs} ms`);
      req.destroy();
    }, timeoutMs);
    req.on('error', (e) => done(null, e.message));
    req.end(body);
  });
}
