import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { PASSWORD } from './oauth.ts';

/** Debian's Chromium (apt-get install chromium), or CHROMIUM_PATH; the browser tests skip without it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/**
 * From GraphiQL on `baseUrl`/graphql: its Sign in button, the login page with `user`'s e-mail and the
 * test password, the consent page, and back on GraphiQL signed in (its button says so).
 */
export async function signInFromGraphiql(page: Page, baseUrl: string, user: { email: string }): Promise<void> {
  await page.locator('#graphiql-signin').click();
  await page.waitForURL(/\/public\/v2\/oauth\/login/);
  await page.fill('#email', user.email);
  await page.fill('#password', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/authorize\?/);
  await page.click('button[value=yes]');
  await page.waitForURL(`${baseUrl}/graphql**`);
  await page.locator('#graphiql-signin', { hasText: 'Signed in' }).waitFor();
}
