import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config.ts';

/**
 * Outgoing mail through nodemailer: to the SMTP server of SMTP_URL, or, without one, as .eml files
 * in DATA_DIR/outbox (open them with any mail program). Modules do not send directly: they enqueue
 * the `mail.send` job (src/mail/mail.job.ts), so a failing server means a retry later, never a
 * failed request.
 */

/** A recipient: `kari@example.no` or `{ name: 'Kari Nordmann', address: 'kari@example.no' }`. */
export type MailAddress = string | { name: string; address: string };

export interface MailAttachment {
  filename: string;
  /** the bytes, base64-encoded (a job's data is JSON) */
  contentBase64: string;
  contentType?: string;
}

/** A message as modules enqueue it; the sender is always MAIL_FROM. */
export interface MailMessage {
  to: MailAddress | MailAddress[];
  cc?: MailAddress | MailAddress[];
  bcc?: MailAddress | MailAddress[];
  replyTo?: MailAddress;
  subject: string;
  text: string;
  html?: string;
  attachments?: MailAttachment[];
}

export interface SentMail {
  messageId: string;
  /** the .eml file, when written to the outbox */
  file?: string;
  /** the SMTP server's last answer */
  response?: string;
}

export interface Mailer {
  /** for the start banner: where messages go */
  describe: string;
  send(message: MailMessage, options?: { messageId?: string }): Promise<SentMail>;
  close(): void;
}

/**
 * A nodemailer transport made on the first message: nodemailer is loaded then, not at start-up
 * (loading it cost about 0.1 s of every start, and most starts send no mail).
 */
function lazyTransport(create: (nodemailer: (typeof import('nodemailer'))['default']) => Transporter) {
  let transport: Promise<Transporter> | undefined;
  return {
    get: () => (transport ??= import('nodemailer').then((m) => create(m.default))),
    close: () => void transport?.then((t) => t.close()),
  };
}

function redactUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'mailOutbox'>): Mailer {
  const toNodemailer = (message: MailMessage, messageId: string | undefined) => ({
    ...message,
    attachments: message.attachments?.map((a) => ({ filename: a.filename, content: a.contentBase64, encoding: 'base64', contentType: a.contentType })),
    messageId,
  });

  if (config.smtpUrl) {
    // short timeouts: a job waiting on a dead server is better failed and retried later
    const transport = lazyTransport((nodemailer) =>
      nodemailer.createTransport({ url: config.smtpUrl, connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 }, { from: config.mailFrom }),
    );
    return {
      describe: `SMTP ${redactUrl(config.smtpUrl)}`,
      async send(message, options = {}) {
        const info = await (await transport.get()).sendMail(toNodemailer(message, options.messageId));
        return { messageId: info.messageId, response: info.response };
      },
      close: () => transport.close(),
    };
  }

  const outbox = config.mailOutbox;
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }, { from: config.mailFrom }));
  return {
    describe: `written to ${resolve(outbox)}/ as .eml files (set SMTP_URL to send them)`,
    async send(message, options = {}) {
      const info = await (await transport.get()).sendMail(toNodemailer(message, options.messageId));
      await mkdir(outbox, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const file = join(outbox, `${stamp}-${randomBytes(4).toString('hex')}.eml`);
      // written under another name first: a reader never sees half a message
      await writeFile(`${file}.part`, info.message as Buffer);
      await rename(`${file}.part`, file);
      return { messageId: info.messageId, file };
    },
    close: () => transport.close(),
  };
}
