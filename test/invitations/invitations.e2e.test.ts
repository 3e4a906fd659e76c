import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { simpleParser, type ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireInvitationsJob, sendInvitationJob } from '../../src/modules/invitations/invitations.job.ts';
import type { Mailer, MailMessage } from '../../src/mail/mailer.ts';
import { eventually, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// spec 002 "Invitations": "Optional header Accept-Language: no or en picks the email template (NO, NB,
// NN all Norwegian)"; States and transitions: "Email sent (failure does not block creation)", "User
// account created with the role; role active at once; tokens returned"; spec 000 "Authentication" 9:
// "Invitation acceptance returns access and refresh tokens for the new user", 5: "Refresh tokens
// rotate on every use".
const uniq = () => Math.random().toString(36).slice(2, 10);
const LINK = 'https://app.regnskap.test/invitasjon/{token}';

describe.each(targets())('invitations end to end: the e-mail, acceptance, the tokens (%s)', (target) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'invitations-'));
  const outbox = join(dataDir, 'outbox');
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, {
      jobs: { queues: [sendInvitationJob.name] },
      env: { DATA_DIR: dataDir, INVITATION_URL: LINK, MAIL_FROM: '"Blåbær Regnskap" <post@regnskap.test>' },
    });
    t = await app.seed.tenant();
    await app.db.prisma.clientAccount.update({ where: { id: t.account.id }, data: { displayName: 'Ærlig Økonomi AS' } });
    await app.db.prisma.user.update({ where: { id: t.user.id }, data: { firstName: 'Åse', lastName: 'Ødegård' } });
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const invite = (email: string, headers: Record<string, string> = {}, roleId = 5) =>
    app.http('POST', '/api/v2/invitations', { token: t.user.token, body: { email, client_account_id: t.account.id, role_id: roleId }, headers });

  /** The message the outbox holds for `to`, once the job has written it. */
  const mailTo = (to: string): Promise<ParsedMail> =>
    eventually(async () => {
      // only finished messages: the mailer writes `<name>.eml.part` and renames it when complete
      for (const file of existsSync(outbox) ? readdirSync(outbox, { withFileTypes: true }).filter((f) => f.isFile() && f.name.endsWith('.eml')) : []) {
        const mail = await simpleParser(readFileSync(join(outbox, file.name)));
        if (mail.to && !Array.isArray(mail.to) && mail.to.value[0]?.address === to) return mail;
      }
      return undefined;
    }, `the invitation e-mail to ${to} in the outbox`);

  it.each<[string, 'nb' | 'en', string | undefined]>([
    ['no', 'nb', 'no'],
    ['nb', 'nb', 'nb'],
    ['nn', 'nb', 'nn'],
    ['NO (upper case)', 'nb', 'NO'],
    ['en', 'en', 'en'],
    ['en-GB', 'en', 'en-GB'],
    ['en-US,en;q=0.9,nb;q=0.8 (English preferred)', 'en', 'en-US,en;q=0.9,nb;q=0.8'],
    ['nb-NO,nb;q=0.9,en;q=0.8 (Norwegian preferred)', 'nb', 'nb-NO,nb;q=0.9,en;q=0.8'],
    ['de, en;q=0.5 (the first language we have)', 'en', 'de, en;q=0.5'],
    ['en;q=0 (refused), nn;q=0.1', 'nb', 'en;q=0, nn;q=0.1'],
    ['sv (none we have): Norwegian, the default', 'nb', 'sv'],
    ['no header: Norwegian, the default', 'nb', undefined],
  ])('Accept-Language %s → the e-mail in %s, with the accept link', async (_name, language, header) => {
    const to = `mottaker-${uniq()}@example.no`;
    const res = await invite(to, header === undefined ? {} : { 'accept-language': header });
    expect(res.status, res.text).toBe(201);
    const mail = await mailTo(to);
    const link = LINK.replace('{token}', res.body.token);
    if (language === 'nb') {
      expect(mail.subject).toBe('Invitasjon til Ærlig Økonomi AS');
      expect(mail.text).toContain('Åse Ødegård har invitert deg til Ærlig Økonomi AS som ansatt.');
      expect(mail.text).toContain(`Godta invitasjonen og opprett brukeren din her:\n${link}\n`);
      expect(mail.text).toMatch(/Lenken gjelder til \d{1,2}\. \p{L}+ \d{4} kl\. \d\d:\d\d\./u);
    } else {
      expect(mail.subject).toBe('Invitation to Ærlig Økonomi AS');
      expect(mail.text).toContain('Åse Ødegård has invited you to Ærlig Økonomi AS as employee.');
      expect(mail.text).toContain(`Accept the invitation and create your user here:\n${link}\n`);
      expect(mail.text).toMatch(/The link is valid until \d{1,2} [A-Z][a-z]+ \d{4} at \d\d:\d\d \(Norwegian time\)\./);
    }
    expect(mail.from?.value).toEqual([{ name: 'Blåbær Regnskap', address: 'post@regnskap.test' }]);
  });

  it('invite → e-mail → accept → the new user\'s access token calls the API → refresh at the token endpoint → the new token works', async () => {
    const to = `ny-${uniq()}@example.no`;
    const created = await invite(to, { 'accept-language': 'nb' }, 3);
    const mail = await mailTo(to);
    const token = new RegExp(`${LINK.replace('{token}', '([0-9a-f]{64})').replace(/\./g, '\\.')}`).exec(mail.text ?? '')![1];
    expect(token).toBe(created.body.token);

    const summary = await app.http('GET', `/public/v2/invitations/${token}`);
    expect(summary.body).toMatchObject({ invited_email: to, can_be_accepted: true, role: { id: 3, name: 'CA' } });
    const accepted = await app.http('POST', `/public/v2/invitations/${token}/accept`, { body: { first_name: 'Nils', last_name: 'Ny', email: to, password: 'hemmelig passord' } });
    expect(accepted.status, accepted.text).toBe(200);
    const { access_token: access, refresh_token: refresh, token_type } = accepted.body.tokens;
    expect(token_type).toBe('Bearer');

    // a real access token of the authorization server: an RS256 JWT for BASE_URL, acting as the new user, read and write
    const claims = decodeJwt(access);
    expect(claims).toMatchObject({ iss: app.url, aud: app.url, client_id: 'invitation', user_id: accepted.body.user.id, sub: String(accepted.body.user.id), scope: 'read write' });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);

    // "role active at once": the new owner reads and writes the account through REST and GraphQL
    const list = await app.http('GET', `/api/v2/invitations?client_account_id=${t.account.id}`, { token: access });
    expect(list.status, list.text).toBe(200);
    expect(list.body.invitations.map((i: { id: number }) => i.id)).toContain(created.body.id);
    const me = await app.gql(access, '{ me { user { id email } scopes clientAccounts { id } } }');
    expect(me.data).toEqual({ me: { user: { id: accepted.body.user.id, email: to }, scopes: ['read', 'write'], clientAccounts: [{ id: t.account.id }] } });
    const project = await app.http('POST', '/api/v2/projects', { token: access, body: { client_account_id: t.account.id, name: `Prosjekt ${uniq()}` } });
    expect(project.status, project.text).toBe(201);

    // the refresh token rotates at the token endpoint (public client: client_id, no secret)
    const form = (fields: Record<string, string>) => ({ body: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const refreshed = await app.http('POST', '/v2/oauth/token', form({ grant_type: 'refresh_token', refresh_token: refresh, client_id: 'invitation' }));
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read write', access_token: expect.any(String), refresh_token: expect.any(String) });
    expect(refreshed.body.refresh_token).not.toBe(refresh);
    expect(decodeJwt(refreshed.body.access_token)).toMatchObject({ user_id: accepted.body.user.id, aud: app.url });
    const again = await app.http('GET', `/api/v2/invitations/${created.body.id}`, { token: refreshed.body.access_token });
    expect(again.status).toBe(200);
    expect(again.body.accepted_by).toMatchObject({ id: accepted.body.user.id, email: to, first_name: 'Nils', last_name: 'Ny' });

    // the old refresh token is spent; another client cannot use the new one
    const replay = await app.http('POST', '/public/v2/oauth/token', form({ grant_type: 'refresh_token', refresh_token: refresh, client_id: 'invitation' }));
    expect(replay.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid refresh token' });
    const foreign = await app.http('POST', '/v2/oauth/token', form({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, client_id: 'graphiql' }));
    expect(foreign.status).toBe(400);

    // and the app can sign out: revoking the refresh token (client_id alone) ends it
    expect((await app.http('POST', '/v2/oauth/revoke', form({ token: refreshed.body.refresh_token, client_id: 'invitation' }))).body).toEqual({});
    const revoked = await app.http('POST', '/v2/oauth/token', form({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, client_id: 'invitation' }));
    expect(revoked.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid refresh token' });
  });

  it('a refresh may bind the new access token to the tool endpoint (resource BASE_URL/mcp), which then answers tools', async () => {
    const to = `verktoy-${uniq()}@example.no`;
    const { body } = await invite(to);
    const accepted = await app.http('POST', `/public/v2/invitations/${body.token}/accept`, { body: { first_name: 'Mia', last_name: 'Mcp', email: to, password: 'hemmelig passord' } });
    const refreshed = await app.http('POST', '/v2/oauth/token', {
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: accepted.body.tokens.refresh_token, client_id: 'invitation', resource: `${app.url}/mcp` }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(decodeJwt(refreshed.body.access_token).aud).toBe(`${app.url}/mcp`);
    const tools = await app.http('POST', '/mcp?modules=invitations', {
      token: refreshed.body.access_token,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    });
    expect(tools.status, tools.text).toBe(200);
    expect(tools.body.result.tools.map((x: { name: string }) => x.name)).toContain('list_invitations');
  });

  it('the e-mail is not sent for an invitation cancelled before its job ran (the newer one is)', async () => {
    const sent: MailMessage[] = [];
    const mailer: Mailer = { describe: 'captured', send: async (m) => (sent.push(m), { messageId: '<x@test>' }), close() {} };
    const to = `to-ganger-${uniq()}@example.no`;
    const first = await invite(to);
    await app.http('DELETE', `/api/v2/invitations/${first.body.id}`, { token: t.user.token });
    const context = { prisma: app.db.prisma, mailer, config: app.config, job: { id: 'job-1' } } as unknown as Parameters<typeof sendInvitationJob.handler>[1];
    expect(await sendInvitationJob.handler({ invitationId: first.body.id, language: 'nb' }, context)).toEqual({ skipped: expect.stringContaining('can no longer be accepted (CANCELLED') });
    expect(await sendInvitationJob.handler({ invitationId: 999_999_999, language: 'nb' }, context)).toEqual({ skipped: expect.stringContaining('no longer exists') });
    expect(sent).toEqual([]);
    const second = await invite(to);
    expect(await sendInvitationJob.handler({ invitationId: second.body.id, language: 'en' }, context)).toMatchObject({ to, language: 'en' });
    expect(sent).toEqual([expect.objectContaining({ to, subject: 'Invitation to Ærlig Økonomi AS' })]);
  });

  it('`invitations.expire` runs every 10 minutes (a schedule once for all processes)', () => {
    expect(expireInvitationsJob.options).toMatchObject({ schedule: '*/10 * * * *' });
  });
});

// A separate app, so no other worker of this file takes its job: the send must fail, not go to an outbox.
describe.each(targets())('invitations with the mail server down (%s)', (target) => {
  let down: TestApp;
  let owner: Tenant;
  beforeAll(async () => {
    down = await startTestApp(target, { jobs: { queues: [sendInvitationJob.name] }, env: { SMTP_URL: 'smtp://127.0.0.1:9' } });
    owner = await down.seed.tenant();
  });
  afterAll(() => down?.close());

  it('"failure does not block creation": the invitation is created at once, its job waits to retry, the token works', async () => {
    const to = `nede-${uniq()}@example.no`;
    const started = performance.now();
    const res = await down.http('POST', '/api/v2/invitations', { token: owner.user.token, body: { email: to, client_account_id: owner.account.id, role_id: 5 } });
    expect(res.status, res.text).toBe(201);
    expect(performance.now() - started).toBeLessThan(5000);
    const job = await eventually(async () => {
      const jobs = await down.db.prisma.$queryRaw<{ state: string }[]>`
        SELECT state FROM pgboss.job WHERE name = ${sendInvitationJob.name} AND (data->>'invitationId')::int = ${res.body.id}`;
      return jobs[0]?.state === 'retry' && jobs[0];
    }, 'the send to fail and wait for a retry');
    expect(job.state).toBe('retry');
    expect((await down.http('GET', `/public/v2/invitations/${res.body.token}`)).body.can_be_accepted).toBe(true);
  });
});
