import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Zip, ZipDeflate } from 'fflate';
import { defineJob, enqueue } from '../../../jobs/jobs.ts';
import { systemContext, type RequestContext } from '../../../shared/context.ts';
import { AppError, ValidationError } from '../../../shared/errors.ts';
import { formatDate, parseDateString } from '../../../shared/scalars.ts';
import { eligibleAccountIds } from '../../../shared/tenancy.ts';
import type { Args } from '../../../shared/validation.ts';
import { formatDate as norwegianDate } from '../../../shared/norwegian-format.ts';
import { saftRules } from './saft.rules.ts';
import { checkSaftRequest, saftFileNameOf, writeSaft, type SaftSummary } from './saft.service.ts';

/**
 * `reports.saft-export`: the SAF-T file as a ZIP by e-mail (GET /reports/data-export with
 * Accept: application/zip, GraphQL requestSaftExport). The XML streams from the ledger straight
 * into fflate's deflater and the ZIP into a temporary file, so neither the XML nor the ZIP is ever
 * whole in memory while it is made; the mailer then needs the ZIP's bytes (its attachments are
 * base64 content, no paths), which deflate makes a fraction of the XML.
 *
 * The message is sent from this job through the runner's mailer rather than queued as a `mail.send`
 * job: that job's data would carry the whole attachment as JSON in the queue table. The Message-ID
 * derives from this job's id (as mail.send's does), so a second run after a crash between sending
 * and bookkeeping sends a message mail programs show once.
 */

export interface SaftExportJobData {
  clientAccountId: number;
  /** YYYY-MM-DD */
  dateFrom: string;
  dateTo: string;
  /** the requesting user: the ZIP goes to their e-mail address */
  userId: number;
}

export const saftExportJob = defineJob<SaftExportJobData>(
  'reports.saft-export',
  async (data, { prisma, mailer, config, job }) => {
    const user = await prisma.user.findUnique({ where: { id: data.userId }, select: { email: true, firstName: true } });
    // the user was deleted or lost access meanwhile: nothing to send, nothing to retry
    if (!user) return { skipped: `user ${data.userId} no longer exists` };
    if (!(await eligibleAccountIds(prisma, data.userId)).has(data.clientAccountId)) {
      return { skipped: `user ${data.userId} no longer has access to client account ${data.clientAccountId}` };
    }
    const ctx = systemContext(prisma, { actingUserId: data.userId });
    const dir = await mkdtemp(join(tmpdir(), 'saft-'));
    try {
      const zipPath = join(dir, 'saft.zip');
      let summary: SaftSummary;
      try {
        ({ summary } = await writeSaftZip(ctx, { clientAccountId: data.clientAccountId, dateFrom: parseDateString(data.dateFrom), dateTo: parseDateString(data.dateTo) }, zipPath));
      } catch (e) {
        // the account was deleted or lost its organisation number meanwhile: a retry gives the same answer
        if (e instanceof AppError && e.status < 500) return { skipped: e.message };
        throw e;
      }
      const account = await prisma.clientAccount.findUniqueOrThrow({ where: { id: data.clientAccountId }, select: { displayName: true, organizationNumber: true } });
      const period = `${norwegianDate(data.dateFrom)}–${norwegianDate(data.dateTo)}`;
      const zipName = summary.fileName.replace(/\.xml$/, '.zip');
      const domain = /@([^\s<>@]+)>?\s*$/.exec(config.mailFrom)?.[1] ?? 'localhost';
      const sent = await mailer.send(
        {
          to: user.email,
          subject: `SAF-T-fil for ${account.displayName} (${account.organizationNumber}), ${period}`,
          text:
            `Hei${user.firstName ? ` ${user.firstName}` : ''},\n\n` +
            `vedlagt er SAF-T Financial-filen (versjon 1.30) for ${account.displayName}, org.nr. ${account.organizationNumber}, ` +
            `for perioden ${period}, som du ba om.\n\n` +
            `Filen inneholder ${summary.numberOfEntries} bilag med sum debet ${summary.totalDebit} og sum kredit ${summary.totalCredit}. ` +
            `Den ligger pakket i ${zipName}.\n\n` +
            'Dette er en automatisk melding.\n',
          attachments: [{ filename: zipName, contentBase64: (await readFile(zipPath)).toString('base64'), contentType: 'application/zip' }],
        },
        { messageId: `<${job.id}@${domain}>` },
      );
      return { fileName: zipName, numberOfEntries: summary.numberOfEntries, messageId: sent.messageId };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
  { retryLimit: 2, retryDelay: 60, retryBackoff: true, expireInSeconds: 60 * 60, external: true },
);

/**
 * Writes the SAF-T file, deflated, as the only entry of a ZIP at `zipPath`: writeSaft's text goes
 * into fflate's ZipDeflate and the ZIP's chunks into the file; a full file stream holds the XML
 * writer back (its write callback waits for `drain`).
 */
export async function writeSaftZip(
  ctx: RequestContext,
  args: { clientAccountId: number; dateFrom: Date; dateTo: Date },
  zipPath: string,
): Promise<{ summary: SaftSummary }> {
  const createdAt = new Date();
  const file = createWriteStream(zipPath);
  const zip = new Zip();
  let zipError: Error | null = null;
  zip.ondata = (err, chunk, final) => {
    if (err) {
      zipError = err;
      file.destroy(err);
      return;
    }
    file.write(chunk);
    if (final) file.end();
  };
  // the entry's name: the XML's, which writeSaft also returns (same instant, same name)
  const company = await checkSaftRequest(ctx, args);
  const entry = new ZipDeflate(saftFileNameOf(company.organizationNumber, createdAt), { level: 6 });
  zip.add(entry);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      try {
        entry.push(chunk);
      } catch (e) {
        return callback(e as Error);
      }
      if (zipError) return callback(zipError);
      if (file.writableNeedDrain) file.once('drain', () => callback());
      else callback();
    },
  });
  try {
    const summary = await writeSaft(ctx, { ...args, createdAt }, sink);
    await new Promise<void>((resolve, reject) => sink.end((e?: Error | null) => (e ? reject(e) : resolve())));
    entry.push(new Uint8Array(0), true);
    zip.end();
    await finished(file);
    if (zipError) throw zipError;
    return { summary };
  } catch (e) {
    file.destroy();
    throw e;
  }
}

/**
 * Starts a ZIP export for the caller (202 on the REST route): the arguments, the client account and
 * the caller's access are checked now, so a bad request fails here and not in the job.
 */
export async function requestSaftZip(ctx: RequestContext, args: Args<typeof saftRules.export>): Promise<{ message: string }> {
  const company = await checkSaftRequest(ctx, args);
  const user = ctx.actor.userId ? await ctx.db.user.findUnique({ where: { id: ctx.actor.userId }, select: { email: true } }) : null;
  if (!user) throw ValidationError.field('userId', 'a SAF-T export by e-mail needs a signed-in user to send it to');
  await enqueue(ctx, saftExportJob, {
    clientAccountId: company.id,
    dateFrom: formatDate(company.dateFrom),
    dateTo: formatDate(company.dateTo),
    userId: ctx.actor.userId,
  });
  return { message: `The SAF-T export of ${company.displayName} for ${formatDate(company.dateFrom)} to ${formatDate(company.dateTo)} has started; the ZIP file will be emailed to ${user.email} when it is ready.` };
}
