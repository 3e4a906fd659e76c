import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMailJob, queueMail } from '../../src/mail/mail.job.ts';
import { createMailer, type MailMessage } from '../../src/mail/mailer.ts';
import { ValidationError } from '../../src/shared/errors.ts';
import { eventually, startTestApp, targets, type TestApp } from '../support/harness.ts';

const uniq = () => randomBytes(5).toString('hex');

/** A message with æøå in the subject, the body, a recipient's name and an attachment's name. */
function norwegianMessage(to: string): MailMessage {
  return {
    to: { name: 'Kåre Ødegård', address: to },
    subject: 'Årsoppgjøret for Ærlig Økonomi AS er klart',
    text: 'Hei Kåre,\n\nårsoppgjøret er klart – se vedlagt saldobalanse for Tromsø-avdelingen.\n\nHilsen Blåbær Regnskap\n',
    attachments: [{ filename: 'saldobalanse-æøå.csv', contentBase64: Buffer.from('konto;navn;saldo\n1920;Bankinnskudd;1 234,50\n').toString('base64'), contentType: 'text/csv' }],
  };
}

async function expectNorwegianMessage(raw: Buffer | string, to: string, jobId: string) {
  const mail = await simpleParser(raw);
  const sent = norwegianMessage(to);
  expect(mail.subject).toBe(sent.subject);
  expect(mail.text).toBe(sent.text);
  expect(mail.from?.value).toEqual([{ name: 'Blåbær Regnskap', address: 'post@regnskap.test' }]);
  expect(mail.to && !Array.isArray(mail.to) && mail.to.value).toEqual([{ name: 'Kåre Ødegård', address: to }]);
  expect(mail.messageId).toBe(`<${jobId}@regnskap.test>`);
  expect(mail.attachments.map((a) => [a.filename, a.contentType, a.content.toString('utf8')])).toEqual([
    ['saldobalanse-æøå.csv', 'text/csv', 'konto;navn;saldo\n1920;Bankinnskudd;1 234,50\n'],
  ]);
}

const MAIL_FROM = '"Blåbær Regnskap" <post@regnskap.test>';

const jobState = async (app: TestApp, id: string) => (await app.jobs!.boss.getJobById(sendMailJob.name, id))?.state;

describe.each(targets())('mail through SMTP (%s)', (target) => {
  let smtp: SMTPServer;
  let app: TestApp;
  const received: { to: string[]; raw: Buffer }[] = [];
  /** how many of the next messages the server turns away with 451 (try again later) */
  let refuse = 0;

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          if (refuse > 0) {
            refuse--;
            return callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
          }
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks) });
          callback();
        });
      },
    });
    await new Promise<void>((done) => smtp.listen(0, '127.0.0.1', done));
    const { port } = smtp.server.address() as AddressInfo;
    app = await startTestApp(target, { jobs: { queues: [sendMailJob.name] }, env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM } });
  });
  afterAll(async () => {
    await app?.close();
    await new Promise<void>((done) => smtp?.close(() => done()));
  });

  it('a queued message reaches the SMTP server with æøå intact in subject, body, names and attachment', async () => {
    const to = `kare-${uniq()}@example.no`;
    const id = (await queueMail(app.db.prisma, norwegianMessage(to)))!;
    const message = await eventually(() => received.find((m) => m.to.includes(to)), 'the message at the SMTP server');
    await expectNorwegianMessage(message.raw, to, id);
    await eventually(async () => (await jobState(app, id)) === 'completed', 'the job to complete');
  });

  it('a send the server refuses (451) is retried, and the operation that queued it did not wait for the server', async () => {
    refuse = 1;
    const to = `retry-${uniq()}@example.no`;
    const started = performance.now();
    const id = (await app.db.prisma.$transaction((tx) => queueMail(tx, { to, subject: 'Påminnelse: mva-melding', text: 'Første forsøk avvises.' }, { retryDelay: 1 })))!;
    expect(performance.now() - started).toBeLessThan(2000);
    const message = await eventually(() => received.find((m) => m.to.includes(to)), 'the retried message');
    expect((await simpleParser(message.raw)).subject).toBe('Påminnelse: mva-melding');
    const job = await eventually(async () => {
      const j = await app.jobs!.boss.getJobById(sendMailJob.name, id);
      return j?.state === 'completed' && j;
    }, 'the job to complete');
    expect(job.retryCount).toBe(1);
    expect(refuse).toBe(0);
  });

  it('queueMail refuses a message that can never be sent (bad address, no recipient), enqueuing nothing', async () => {
    await expect(queueMail(app.db.prisma, { to: 'not-an-address', subject: 'x', text: 'x' })).rejects.toThrow(ValidationError);
    await expect(queueMail(app.db.prisma, { to: [], subject: 'x', text: 'x' })).rejects.toThrow(/at least one recipient/);
    await expect(queueMail(app.db.prisma, { to: 'ok@example.no', cc: { name: 'Å', address: 'å@' }, subject: 'x', text: 'x' })).rejects.toThrow(/^cc: /);
  });
});

describe.each(targets())('mail without SMTP_URL: the outbox (%s)', (target) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'regnskap-outbox-'));
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target, { jobs: { queues: [sendMailJob.name] }, env: { DATA_DIR: dataDir, MAIL_FROM } });
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('messages are written as .eml files to DATA_DIR/outbox, which the start banner names', async () => {
    const outbox = join(dataDir, 'outbox');
    expect(app.config.mailOutbox).toBe(outbox);
    expect(createMailer(app.config).describe).toContain(resolve(outbox));
    const to = `kare-${uniq()}@example.no`;
    const id = (await queueMail(app.db.prisma, norwegianMessage(to)))!;
    await eventually(async () => (await jobState(app, id)) === 'completed', 'the job to complete');
    const files = readdirSync(outbox);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+Z-[0-9a-f]{8}\.eml$/);
    await expectNorwegianMessage(readFileSync(join(outbox, files[0])), to, id);
  });
});
