import { inMemory } from '../../shared/scalars.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import type PrismaTypes from '../../generated/pothos-types.ts';
import { fileServices } from './file-services.ts';
import type { FileVariant } from './file-urls.ts';
import { FILE_LIMITS_DESCRIPTION, MAX_UPLOAD_BYTES } from './files.rules.ts';
import { getFile, uploadFile } from './files.service.ts';

export const FileTypeEnum = builder.enumType('FileType', {
  description: 'What an uploaded file is for: VOUCHER (becomes a voucher), ATTACHMENT (of a voucher or document), CHAT_ATTACHMENT (for a chat message)',
  values: ['VOUCHER', 'ATTACHMENT', 'CHAT_ATTACHMENT'] as const,
});

export const PageImage = builder.objectRef<{ pageNumber: number; previewUrl: string }>('PageImage').implement({
  description: 'One page of a file: its number (1-based) and a presigned URL of that page (valid one hour)',
  fields: (t) => ({
    pageNumber: t.exposeInt('pageNumber'),
    previewUrl: t.exposeString('previewUrl'),
  }),
});

/** A presigned URL of a file (valid one hour from the response). */
export const signedUrl = (ctx: Parameters<typeof fileServices>[0], fileId: number, variant: FileVariant, page?: number): string =>
  fileServices(ctx).urls.url(fileId, variant, page);

/** page_images of a file: one entry per page of a PDF (or the one page of an image). */
export const pageImages = (ctx: Parameters<typeof fileServices>[0], file: { id: number; pageCount: number | null }) =>
  Array.from({ length: file.pageCount ?? 0 }, (_, i) => ({ pageNumber: i + 1, previewUrl: signedUrl(ctx, file.id, 'preview', i + 1) }));

/**
 * The voucher made from an uploaded file, as far as the upload's caller needs it: its id and where
 * it is in the pipeline. (The voucher itself, with all its fields, is the vouchers module's type.)
 */
export const VoucherProcessing = builder.objectRef<{ id: number; status: string; workflowStatus: string | null; workflowError: string | null }>('VoucherProcessing').implement({
  description: 'A voucher made from an upload: its id, status (PENDING until the pipeline has read it, then DRAFT) and workflow status',
  fields: (t) => ({
    id: t.exposeInt('id'),
    status: t.exposeString('status', { description: 'PENDING, DRAFT, ARCHIVED, BOOKED or DELETED' }),
    workflowStatus: t.exposeString('workflowStatus', {
      nullable: true,
      description: 'IMAGE_PROCESSING → STARTING_WORKFLOW → DATA_EXTRACTION → DUPLICATE_CHECK → CLASSIFICATION → COMPLETED (or WAITING_FOR_ANSWER for a suspected duplicate, FAILED when it needs manual handling)',
    }),
    workflowError: t.exposeString('workflowError', { nullable: true, description: 'Why the pipeline failed (workflow_status FAILED)' }),
  }),
});

/** The field builder of a stored file's object types (File, and a chat message's attachments). */
type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type StoredFileFieldBuilder = Pick<
  PothosSchemaTypes.PrismaObjectFieldBuilder<BuilderTypes, PrismaTypes['StoredFile']>,
  'exposeInt' | 'exposeString' | 'expose' | 'string' | 'field'
>;

/** What every view of a stored file shows: its record and its presigned URLs. */
export const storedFileFields = (t: StoredFileFieldBuilder) => ({
  id: t.exposeInt('id'),
  clientAccountId: t.exposeInt('clientAccountId'),
  type: t.expose('type', { type: FileTypeEnum }),
  fileName: t.exposeString('fileName'),
  contentType: t.exposeString('contentType', { description: 'Sniffed from the bytes when uploaded' }),
  size: t.exposeInt('size', { description: 'Bytes' }),
  pageCount: t.exposeInt('pageCount', { nullable: true, description: 'Pages of a PDF, 1 for an image, null for other files' }),
  createdAt: t.expose('createdAt', { type: 'DateTime' }),
  createdBy: t.field({ type: UserRef, nullable: true, resolve: (f, _a, ctx) => loadUser(ctx, f.createdById) }),
  createdById: t.exposeInt('createdById', { nullable: true }),
  downloadUrl: t.string({ description: 'The file as uploaded, as an attachment (presigned, one hour)', resolve: (f, _a, ctx) => signedUrl(ctx, f.id, 'download') }),
  originalUrl: t.string({ description: 'The file as uploaded, inline (presigned, one hour)', resolve: (f, _a, ctx) => signedUrl(ctx, f.id, 'original') }),
  previewUrl: t.string({
    nullable: true,
    description: 'The first page: of a PDF as a one-page PDF, of an image the image (presigned, one hour); null for a file without pages',
    resolve: (f, _a, ctx) => (f.pageCount ? signedUrl(ctx, f.id, 'preview', 1) : null),
  }),
  thumbnailUrl: t.string({
    nullable: true,
    description: 'The first page small: of a PDF the first page as a one-page PDF, of an image the image itself (no image scaling here); null for a file without pages (presigned, one hour)',
    resolve: (f, _a, ctx) => (f.pageCount ? signedUrl(ctx, f.id, 'thumbnail') : null),
  }),
  pageImages: t.field({ type: [PageImage], description: 'Each page of a PDF (a one-page PDF each), or the one page of an image', resolve: (f, _a, ctx) => pageImages(ctx, f) }),
});

/** An uploaded file (spec 001: file records with thumbnail_url, preview_url, download_url). */
export const FileRecord = builder.prismaObject('StoredFile', {
  ...tenantScoped,
  name: 'File',
  description: 'An uploaded file. Its URLs are presigned and expire one hour after the response.',
  fields: (t) => ({
    ...storedFileFields(t),
    clientAccount: t.relation('clientAccount'),
    voucher: t.relation('voucher', { nullable: true }),
    voucherId: t.exposeInt('voucherId', { nullable: true, description: 'The voucher this file is attached to' }),
    document: t.relation('document', { nullable: true }),
    documentId: t.exposeInt('documentId', { nullable: true, description: 'The document this file is attached to' }),
    chatMessage: t.relation('chatMessage', { nullable: true }),
    chatMessageId: t.exposeInt('chatMessageId', { nullable: true, description: 'The chat message this file is attached to' }),
    createdVoucherId: t.int({
      nullable: true,
      description: 'The voucher made from this file (uploaded with type VOUCHER): the file is its own file, not an attachment (that is voucherId)',
      select: { primaryOf: { select: { id: true } } },
      resolve: (f) => f.primaryOf?.id ?? null,
    }),
    createdVoucher: t.field({
      type: VoucherProcessing,
      nullable: true,
      description: 'Where the voucher made from this file is: its status and the pipeline\'s workflow status (poll it after an upload)',
      select: { primaryOf: { select: { id: true, status: true, workflowStatus: true, workflowError: true } } },
      resolve: (f) => f.primaryOf ?? null,
    }),
  }),
});

builder.queryFields((t) => ({
  file: t.prismaField({
    nullable: true,
    type: 'StoredFile',
    description: 'One uploaded file with fresh presigned URLs.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getFile(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  uploadFile: t.prismaField({
    type: 'StoredFile',
    description:
      `Uploads a file of a client account (REST: POST /files as multipart/form-data). What the file is is sniffed from its bytes: ` +
      `VOUCHER and CHAT_ATTACHMENT take PDF, JPEG, PNG, HEIC/HEIF and WebP; ATTACHMENT also XML, CSV, plain text and office files. ` +
      `At most ${MAX_UPLOAD_BYTES} bytes (25 MB; through GraphQL and MCP the request body's 1 MB limit comes first). ${FILE_LIMITS_DESCRIPTION} ` +
      `A VOUCHER upload creates a voucher (createdVoucher) and starts its pipeline.`,
    args: {
      clientAccountId: t.arg.int({ required: true }),
      type: t.arg({ type: FileTypeEnum, required: true, description: 'VOUCHER, ATTACHMENT or CHAT_ATTACHMENT' }),
      fileName: t.arg.string({ required: true, description: 'The file\'s name (its last path segment is kept, at most 255 characters)' }),
      contentBase64: t.arg({ type: 'FileContent', required: true, description: 'The file\'s bytes as base64' }),
      voucherId: t.arg.int({ description: 'ATTACHMENT only: the voucher (of the same client account) the file is attached to' }),
    },
    resolve: (query, _root, args, ctx) => uploadFile(ctx, { ...args, contentBase64: inMemory(args.contentBase64) }, query),
  }),
}));
