import { recordById } from '../../../shared/record-by-id.ts';
import { builder } from '../../../builder.ts';
import { requestSaftZip } from './saft.job.ts';
import { checkSaftRequest, saftFileNameOf } from './saft.service.ts';

/** The answer to a SAF-T export request: the file comes later, by e-mail. */
const SaftExportRequest = builder.objectRef<{ message: string }>('SaftExportRequest').implement({
  description: 'A SAF-T Financial export that has been started; the ZIP file is e-mailed to the requesting user when it is ready',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'What happens next, e.g. to which address the file goes' }),
  }),
});

builder.mutationFields((t) => ({
  requestSaftExport: t.field({
    type: SaftExportRequest,
    nullable: true,
    description:
      "Starts a SAF-T Financial 1.30 export of the client account's posted ledger for the period (drafts left out). " +
      'The XML file is zipped and e-mailed to the requesting user (GET /reports/data-export with Accept: application/zip does the same).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      dateFrom: t.arg({ type: 'Date', required: true }),
      dateTo: t.arg({ type: 'Date', required: true }),
    },
    resolve: (_root, args, ctx) => requestSaftZip(ctx, args),
  }),
}));

/** What GET /reports/data-export answers a file of, after its checks: the file's name and instant. */
export interface SaftExportInfo {
  clientAccountId: number;
  dateFrom: Date;
  dateTo: Date;
  createdAt: Date;
  fileName: string;
}

const SaftExport = builder.objectRef<SaftExportInfo>('SaftExport').implement({
  description:
    'A SAF-T Financial 1.30 file of a client account and period, checked and named: GET /reports/data-export streams it as text/xml (or mails it zipped for application/zip).',
  fields: (t) => ({
    clientAccount: t.prismaField({ type: 'ClientAccount', resolve: (query, e, _a, ctx) => recordById(ctx, 'clientAccount', e.clientAccountId, query) as never }),
    clientAccountId: t.exposeInt('clientAccountId'),
    dateFrom: t.expose('dateFrom', { type: 'Date' }),
    dateTo: t.expose('dateTo', { type: 'Date' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'The instant the file is made and named by' }),
    fileName: t.exposeString('fileName', { description: 'SAF-T Financial_<orgnr>_<YYYYMMDDhhmmss>.xml (Oslo time)' }),
  }),
});

builder.queryFields((t) => ({
  saftExport: t.field({
    type: SaftExport,
    description:
      "The SAF-T Financial export of the client account's posted ledger for a period, checked (400 for an unknown client account or one without an organisation number, 403 without access) and named; the file itself is served by GET /reports/data-export (Accept: text/xml) or mailed (requestSaftExport).",
    args: {
      clientAccountId: t.arg.int({ required: true }),
      dateFrom: t.arg({ type: 'Date', required: true }),
      dateTo: t.arg({ type: 'Date', required: true }),
    },
    resolve: async (_root, args, ctx) => {
      const company = await checkSaftRequest(ctx, args);
      const createdAt = new Date();
      return { clientAccountId: company.id, dateFrom: company.dateFrom, dateTo: company.dateTo, createdAt, fileName: saftFileNameOf(company.organizationNumber, createdAt) };
    },
  }),
}));
