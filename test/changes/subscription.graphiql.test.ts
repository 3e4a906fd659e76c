import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { onceTargets, startTestApp, type TestApp } from '../support/harness.ts';
import { CHROMIUM, hasChromium, signInFromGraphiql } from '../support/browser.ts';
import { oauthKit } from '../support/oauth.ts';

// Issue 32: "GraphiQL can run it". GraphiQL (yoga's) sends a subscription as GET /graphql with
// Accept: text/event-stream through the page's fetch, which the sign-in script gives the token.
// Without Chromium (apt-get install chromium) this is skipped, as test/platform/browser-pages.test.ts.

const pageTargets = onceTargets();

describe.skipIf(!hasChromium || pageTargets.length === 0)('the changes subscription in GraphiQL', { timeout: 240_000 }, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
  });
  afterAll(() => browser?.close());

  describe.each(pageTargets)('%s', (target) => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp(target);
    });
    afterAll(() => app?.close());

    it('signed in, GraphiQL runs subscription { changes } and shows a change written meanwhile', async () => {
      const user = await oauthKit(app).user();
      const context = await browser.newContext();
      context.setDefaultTimeout(60_000); // GraphiQL's 9 MB page is slow on a busy machine
      try {
        const page = await context.newPage();
        await page.goto(`${app.url}/graphql`);
        await signInFromGraphiql(page, app.url, user);
        const subscription = `subscription Watch { changes(clientAccountId: ${user.clientAccountId}) { type resourceId } }`;
        await page.locator('.graphiql-query-editor .monaco-editor').first().click();
        await page.keyboard.press('ControlOrMeta+A');
        await page.keyboard.insertText(subscription); // as typed, without the editor's closing brackets
        await page.locator('.graphiql-query-editor', { hasText: 'subscription Watch' }).waitFor();
        const [stream] = await Promise.all([
          page.waitForResponse((r) => r.url().startsWith(`${app.url}/graphql?`) && /subscription Watch/.test(decodeURIComponent(r.url()).replace(/\+/g, ' '))),
          page.locator('.graphiql-execute-button').click(),
        ]);
        expect(stream.headers()['content-type']).toMatch(/^text\/event-stream/);
        expect(stream.request().headers().authorization).toMatch(/^Bearer ey/);
        const taxCode = await app.db.prisma.taxCode.findUniqueOrThrow({ where: { clientAccountId_code: { clientAccountId: user.clientAccountId, code: '3' } } });
        const item = await app.http('POST', '/api/v2/items', {
          token: user.sessionToken,
          body: { client_account_id: user.clientAccountId, sales_unit_id: await app.seed.unitId('H87'), tax_code_id: taxCode.id, item_no: 'G-1' },
        });
        expect(item.status).toBe(201);
        await page.locator('.graphiql-response', { hasText: 'item.created' }).waitFor();
        await expect(page.locator('.graphiql-response').textContent()).resolves.toContain(String(item.body.id));
      } finally {
        await context.close();
      }
    });
  });
});
