import { builder, tenantScoped } from '../../builder.ts';
import { fileServices } from './file-services.ts';
import type { FileVariant } from './file-urls.ts';

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

/** An uploaded file (spec 001: file records with thumbnail_url, preview_url, download_url). */
export const FileRecord = builder.prismaObject('StoredFile', {
  ...tenantScoped,
  name: 'File',
  description: 'An uploaded file. Its URLs are presigned and expire one hour after the response.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccountId: t.exposeInt('clientAccountId'),
    type: t.expose('type', { type: FileTypeEnum }),
    fileName: t.exposeString('fileName'),
    contentType: t.exposeString('contentType', { description: 'Sniffed from the bytes when uploaded' }),
    size: t.exposeInt('size', { description: 'Bytes' }),
    pageCount: t.exposeInt('pageCount', { nullable: true, description: 'Pages of a PDF, 1 for an image, null for other files' }),
    voucherId: t.exposeInt('voucherId', { nullable: true, description: 'The voucher this file is attached to' }),
    documentId: t.exposeInt('documentId', { nullable: true, description: 'The document this file is attached to' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    downloadUrl: t.string({ description: 'The file as uploaded, as an attachment (presigned, one hour)', resolve: (f, _a, ctx) => signedUrl(ctx, f.id, 'download') }),
    originalUrl: t.string({ description: 'The file as uploaded, inline (presigned, one hour)', resolve: (f, _a, ctx) => signedUrl(ctx, f.id, 'original') }),
    previewUrl: t.string({ description: 'The first page (presigned, one hour)', resolve: (f, _a, ctx) => signedUrl(ctx, f.id, 'preview', 1) }),
    thumbnailUrl: t.string({ description: 'A small image of the first page (presigned, one hour)', resolve: (f, _a, ctx) => signedUrl(ctx, f.id, 'thumbnail') }),
    pageImages: t.field({ type: [PageImage], resolve: (f, _a, ctx) => pageImages(ctx, f) }),
  }),
});
