import type { FileType } from '../../generated/prisma/client.ts';
import { DEFAULT_FILE_LIMITS } from './file-limits.ts';

/** The largest upload (POST /files): a larger file is refused with 413 before it is stored. */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

export const PDF = 'application/pdf';

/**
 * The file limits (file-limits.ts) in the words of the upload's GraphQL and OpenAPI descriptions: the
 * defaults, each with the variable that changes it.
 */
export const FILE_LIMITS_DESCRIPTION = (() => {
  const d = DEFAULT_FILE_LIMITS;
  const n = (v: number) => v.toLocaleString('en-US');
  return (
    `Beyond a limit is 400 naming it, and nothing is stored: a PDF of at most ${n(d.maxPdfPages)} pages (MAX_PDF_PAGES); ` +
    `compressed parts (a PDF's streams, a ZIP's or office file's entries) inflating to at most ${d.maxInflatedBytes / 1024 / 1024} MB together (MAX_INFLATED_MB); ` +
    `a JPEG or PNG of at most ${n(d.maxImagePixels)} pixels (MAX_IMAGE_PIXELS); a ZIP of at most ${n(d.maxZipEntries)} entries (MAX_ZIP_ENTRIES) (the defaults).`
  );
})();

/** Images and PDFs: what a voucher or a chat message can be made of (pages that can be shown). */
export const PAGE_TYPES: readonly string[] = [PDF, 'image/jpeg', 'image/png', 'image/heic', 'image/heif', 'image/webp'];

/**
 * What an ATTACHMENT may be besides pages: structured data (XML such as EHF/PEPPOL invoices, CSV,
 * plain text) and office files, each as file-type recognises it from the bytes (text has no magic
 * bytes: see sniffText).
 */
export const ATTACHMENT_TYPES: readonly string[] = [
  ...PAGE_TYPES,
  'application/xml',
  'text/csv',
  'text/plain',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.presentation',
  // the legacy binary Office formats (.xls, .doc): an OLE compound file is all the bytes tell
  'application/x-cfb',
  'application/rtf',
  'application/zip',
];

/** The content types a file of this type may have (sniffed, never from the upload's header). */
export function allowedContentTypes(type: FileType): readonly string[] {
  return type === 'ATTACHMENT' ? ATTACHMENT_TYPES : PAGE_TYPES;
}

/** Every content type a stored file can have: what a signed URL may serve. */
export const SERVABLE_TYPES: readonly string[] = ATTACHMENT_TYPES;

export const isImage = (contentType: string): boolean => contentType.startsWith('image/');
export const isPaged = (contentType: string): boolean => PAGE_TYPES.includes(contentType);

/**
 * Bytes file-type does not recognise may still be text: valid UTF-8 (a BOM allowed) without NUL or
 * other control characters than tab, CR, LF and form feed. CSV when the name ends in .csv (the only
 * thing that tells CSV from other text; both are served as text, so the name cannot make it more
 * than text), plain text otherwise. null: not text.
 */
export function sniffText(bytes: Buffer, fileName: string): 'text/csv' | 'text/plain' | null {
  if (!bytes.length) return null;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text)) return null;
  return /\.csv$/i.test(fileName) ? 'text/csv' : 'text/plain';
}

/** file-type's answer as the content type we store (XML under one name whatever its flavour). */
export function normaliseSniffed(mime: string): string {
  if (mime === 'text/xml') return 'application/xml';
  return mime;
}

/** A file name as stored: the last path segment, control characters dropped, at most 255 characters; empty becomes 'file'. */
export function cleanFileName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const last = name.split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return (last || 'file').slice(0, 255);
}
