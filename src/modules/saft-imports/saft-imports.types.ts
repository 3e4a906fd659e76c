import { builder, tenantScoped } from '../../builder.ts';
import { recordById } from '../../shared/record-by-id.ts';
import { cursorArgs } from '../../shared/page-type.ts';
import { pageType } from '../../shared/page-type.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { MAX_SAFT_UPLOAD_BYTES, SAFT_IMPORT_STATUSES } from './saft-imports.rules.ts';
import { getSaftImport, listSaftImports, SAFT_IMPORT_PAGE_LIMITS, startSaftImport } from './saft-imports.service.ts';

export const SaftImportStatusEnum = builder.enumType('SaftImportStatus', {
  description: 'QUEUED (checked and waiting for its job), RUNNING, COMPLETED (written, or a dry run checked) or FAILED (nothing written; see errors)',
  values: SAFT_IMPORT_STATUSES,
});

type Row = Awaited<ReturnType<typeof getSaftImport>>;

const Progress = builder.objectRef<{ processed: number; total: number }>('SaftImportProgress').implement({
  fields: (t) => ({
    processed: t.exposeInt('processed', { description: 'Transactions mapped and posted so far' }),
    total: t.exposeInt('total', { description: 'Transactions in the file' }),
  }),
});

const ImportError = builder.objectRef<{ message: string; status: number }>('SaftImportError').implement({
  fields: (t) => ({
    message: t.exposeString('message', { description: 'Where (Transaction <id> (journal <id>), Account <id>, file) and what' }),
    status: t.exposeInt('status', { description: '400 a rule, 409 a conflict, 500 unexpected' }),
  }),
});

export const SaftImport = builder.objectRef<Row>('SaftImport').implement({
  ...tenantScoped,
  description: 'A SAF-T Financial import into a client account, run as a job: all or nothing.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccountId: t.exposeInt('clientAccountId'),
    clientAccount: t.prismaField({ type: 'ClientAccount', resolve: (query, r, _a, ctx) => recordById(ctx, 'clientAccount', r.clientAccountId, query) as never }),
    status: t.field({ type: SaftImportStatusEnum, resolve: (r) => r.status as (typeof SAFT_IMPORT_STATUSES)[number] }),
    fileName: t.exposeString('fileName'),
    fileHash: t.exposeString('fileHash', { description: 'SHA-256 of the XML: the same file again is 409' }),
    dryRun: t.exposeBoolean('dryRun'),
    allowOtherOrganization: t.exposeBoolean('allowOtherOrganization'),
    progress: t.field({ type: Progress, resolve: (r) => ({ processed: r.processed, total: r.total }) }),
    summary: t.field({ type: 'JSON', nullable: true, description: 'What was (or, in a dry run, would be) written: accounts, business partners, entries …', resolve: (r) => r.summary }),
    errors: t.field({ type: [ImportError], resolve: (r) => (r.errors as { message: string; status: number }[] | null) ?? [] }),
    createdAt: t.field({ type: 'DateTime', resolve: (r) => r.createdAt }),
    finishedAt: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.finishedAt }),
  }),
});

const SaftImportStarted = builder.objectRef<{ id: number; status: string }>('SaftImportStarted').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    status: t.field({ type: SaftImportStatusEnum, resolve: (r) => r.status as (typeof SAFT_IMPORT_STATUSES)[number] }),
  }),
});

const SaftImportPage = pageType('SaftImportPage', SaftImport);

builder.queryFields((t) => ({
  saftImport: t.field({
    type: SaftImport,
    nullable: true,
    description: 'One SAF-T import: its status, progress, summary and errors.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => getSaftImport(ctx, args),
  }),
  saftImports: t.field({
    type: SaftImportPage,
    extensions: pageCost(SAFT_IMPORT_PAGE_LIMITS),
    description: 'The SAF-T imports of a client account, newest first.',
    args: { clientAccountId: t.arg.int({ required: true }), ...cursorArgs(t), page: t.arg.int(), perPage: t.arg.int() },
    resolve: (_root, args, ctx) => listSaftImports(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  importSaftFile: t.field({
    type: SaftImportStarted,
    description:
      `Imports a SAF-T Financial 1.30 file (XML, or a ZIP holding one; at most ${MAX_SAFT_UPLOAD_BYTES} bytes) into a client account: checked first ` +
      '(XSD, totals, balance, references, organisation number, a file imported before, posted entries in its period: 400/409 at once, nothing written), then run as a job (QUEUED). ' +
      'The account’s managers only. REST: POST /saft-imports as multipart/form-data.',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      fileName: t.arg.string({ required: true }),
      contentBase64: t.arg({ type: 'FileContent', required: true, description: 'The file (REST multipart: the part `file`)' }),
      dryRun: t.arg.boolean({ description: 'true: check and map everything, write nothing; the summary and every problem are the answer' }),
      allowOtherOrganization: t.arg.boolean({ description: 'true: take a file of another organisation number than the client account’s' }),
    },
    resolve: (_root, args, ctx) => startSaftImport(ctx, { ...args, content: args.contentBase64 }),
  }),
}));
