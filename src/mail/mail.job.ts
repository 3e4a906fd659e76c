import type { Db } from '../db/database.ts';
import { defineJob, enqueue, type EnqueueOptions } from '../jobs/jobs.ts';
import { isEmailAddress } from '../shared/email.ts';
import { ValidationError } from '../shared/errors.ts';
import type { MailAddress, MailMessage } from './mailer.ts';

/**
 * `mail.send`: one message per job. A failed send (server down, connection refused, 4xx) is retried
 * after 30 s, 1 min, 2 min, … (eight retries over two to four hours, with jitter). The Message-ID derives from the job
 * id, so a message sent twice (a process dying between the send and its bookkeeping) carries the
 * same id both times and mail programs show it once.
 */
export const sendMailJob = defineJob<MailMessage>(
  'mail.send',
  async (message, { mailer, config, job }) => mailer.send(message, { messageId: jobMessageId(config.mailFrom, job.id) }),
  { retryLimit: 8, retryDelay: 30, retryBackoff: true, expireInSeconds: 5 * 60, external: true },
);

/**
 * The Message-ID of the message a job sends: the job id at the sender's domain, so a message a job
 * sends twice (a process dying between the send and its bookkeeping) is shown once.
 */
export const jobMessageId = (mailFrom: string, jobId: string): string => `<${jobId}@${/@([^\s<>@]+)>?\s*$/.exec(mailFrom)?.[1] ?? 'localhost'}>`;

const list = (value: MailAddress | MailAddress[] | undefined): MailAddress[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const addressOf = (a: MailAddress) => (typeof a === 'string' ? a : a.address);

/**
 * Enqueues a message (in the caller's transaction when `db` is one). Recipients, subject and text are
 * checked here, so a message that can never be sent fails the operation instead of the job.
 */
export async function queueMail(db: Db | { db: Db; actor: unknown }, message: MailMessage, options?: EnqueueOptions): Promise<string | null> {
  if (!list(message.to).length) throw ValidationError.field('to', 'at least one recipient is required');
  for (const field of ['to', 'cc', 'bcc', 'replyTo'] as const) {
    for (const a of list(message[field])) {
      if (!isEmailAddress(addressOf(a))) throw ValidationError.field(field, `'${addressOf(a)}' is not an email address`);
    }
  }
  if (!message.subject.trim()) throw ValidationError.field('subject', 'must not be empty');
  return enqueue(db, sendMailJob, message, options);
}
