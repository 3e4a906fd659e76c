import { defineJob } from '../../jobs/jobs.ts';
import { jobMessageId } from '../../mail/mail.job.ts';
import { systemContext } from '../../shared/context.ts';
import { formatDate } from '../../shared/norwegian-format.ts';
import { formatAmount, renderDocumentPdf } from './documents.pdf.ts';
import { loadInvoiceModel } from './documents.pdf-model.ts';

export interface SendDocumentJobData {
  documentId: number;
  /** who asked for it (created_by of the send) */
  userId: number | null;
}

/**
 * `documents.send` (send_document): the document's PDF by e-mail to its business partner, enqueued in
 * the transaction that finalized the document, so a rollback sends nothing. The PDF is drawn here
 * from the stored document (not carried in the job's JSON); after the send the document records
 * sent_at and, unless credited meanwhile, document_status SENT. A second run after a crash between
 * the send and that update sends a message with the same Message-ID (from the job id), which mail
 * programs show once.
 */
export const sendDocumentJob = defineJob<SendDocumentJobData>(
  'documents.send',
  async ({ documentId, userId }, { prisma, mailer, config, job }) => {
    const doc = await prisma.document.findUnique({ where: { id: documentId }, include: { lines: true, businessPartner: { select: { name: true, email: true } } } });
    // deleted meanwhile (a draft cannot be sent; a finalized document is never deleted): nothing to retry
    if (!doc) return { skipped: `document ${documentId} no longer exists` };
    if (doc.sentAt) return { skipped: `document ${documentId} was sent at ${doc.sentAt.toISOString()}` };
    const email = doc.businessPartner?.email?.trim();
    if (!email) return { skipped: `business partner of document ${documentId} has no e-mail address` };
    const ctx = systemContext(prisma, { actingUserId: userId ?? undefined });
    const model = await loadInvoiceModel(ctx, doc, doc.lines);
    const pdf = await renderDocumentPdf(model);
    const name = `${model.title} ${model.documentNumber ?? ''}`.trim();
    const sent = await mailer.send(
      {
        to: { name: doc.businessPartner!.name, address: email },
        subject: `${name} fra ${model.seller.name}`,
        text:
          `Hei,\n\nvedlagt er ${name.toLowerCase().startsWith('kreditnota') ? 'kreditnota' : 'faktura'} ${model.documentNumber ?? ''} fra ${model.seller.name}, datert ${formatDate(model.documentDate)}.\n\n` +
          `Beløp: ${formatAmount(model.gross)} ${model.currencyCode}` +
          (model.dueDate ? `\nForfallsdato: ${formatDate(model.dueDate)}` : '') +
          (model.bankAccount ? `\nKontonummer: ${model.bankAccount}` : '') +
          (model.paymentRef ? `\nKID: ${model.paymentRef}` : '') +
          '\n\nDette er en automatisk melding.\n',
        attachments: [{ filename: `${name.replace(/[^\wæøåÆØÅ.-]+/g, '-')}.pdf`, contentBase64: pdf.toString('base64'), contentType: 'application/pdf' }],
      },
      { messageId: jobMessageId(config.mailFrom, job.id) },
    );
    await prisma.document.update({
      where: { id: documentId },
      data: { sentAt: new Date(), ...(doc.documentStatus === 'FINALIZED' ? { documentStatus: 'SENT' } : {}) },
    });
    return { messageId: sent.messageId, to: email };
  },
  { retryLimit: 8, retryDelay: 30, retryBackoff: true, expireInSeconds: 5 * 60, external: true },
);
