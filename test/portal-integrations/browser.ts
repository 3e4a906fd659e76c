import { expect } from 'vitest';
import type { TestApp } from '../support/harness.ts';

/**
 * The person's browser in the login flow, driven with fetch: the authorize answer → the national
 * login's page → its form posted with a test person → our callback (each redirect followed by hand,
 * so a test can look at every step).
 */
export interface LoginSteps {
  authorizationUrl: string;
  loginPage: string;
  callbackUrl: string;
  callback: Response;
  callbackText: string;
}

export function formFields(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  expect(action, 'the page has a form').toBeTruthy();
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[m[1]!] = unescape(m[2]!);
  return { action: unescape(action!), fields };
}

const unescape = (s: string) => s.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');

/** Posts a form as a browser does (urlencoded), without following the redirect. */
export function postForm(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(), redirect: 'manual' });
}

export async function login(app: TestApp, token: string, service: 'govportal' | 'idprovider', pid: string, body: Record<string, unknown> = {}): Promise<LoginSteps> {
  const authorize = await app.http('POST', `/api/v2/integrations/${service}/authorize`, { token, body });
  expect(authorize.status, JSON.stringify(authorize.body)).toBe(200);
  const authorizationUrl: string = authorize.body.authorization_url;
  const pageRes = await fetch(authorizationUrl);
  expect(pageRes.status).toBe(200);
  const loginPage = await pageRes.text();
  const { action, fields } = formFields(loginPage);
  const posted = await postForm(action, { ...fields, pid_other: pid, action: 'login' });
  expect(posted.status).toBe(303);
  const callbackUrl = posted.headers.get('location')!;
  const callback = await fetch(callbackUrl, { redirect: 'manual' });
  return { authorizationUrl, loginPage, callbackUrl, callback, callbackText: await callback.text() };
}
