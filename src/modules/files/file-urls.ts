import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Prisma } from '../../db/database.ts';
import { sharedSecret } from '../../shared/server-secrets.ts';

/** What a signed file URL serves: the file as stored (download, original), a page image (preview) or a small image (thumbnail). */
export type FileVariant = 'download' | 'original' | 'preview' | 'thumbnail';
export const FILE_VARIANTS: readonly FileVariant[] = ['download', 'original', 'preview', 'thumbnail'];

/** Spec 001: "file download URLs expire after one hour". */
export const FILE_URL_LIFETIME_SECONDS = 3600;

export type UrlCheck = 'ok' | 'expired' | 'invalid';

/**
 * Presigned file URLs: `{base}/api/v2/files/{id}/{variant}?page=&expires=&signature=`, the signature an
 * HMAC-SHA256 of the file id, variant, page and expiry under a key every process shares
 * (server_secrets `files.url_key`). Anyone holding the URL may fetch the file until it expires; an
 * altered or expired URL is refused.
 */
export class FileUrlSigner {
  constructor(
    private readonly key: Buffer,
    private readonly baseUrl: string,
    private readonly now: () => number = Date.now,
  ) {}

  private signature(fileId: number, variant: FileVariant, page: number | undefined, expires: number): string {
    return createHmac('sha256', this.key).update(`${fileId}:${variant}:${page ?? ''}:${expires}`).digest('base64url');
  }

  /** a URL valid for FILE_URL_LIFETIME_SECONDS from now */
  url(fileId: number, variant: FileVariant, page?: number): string {
    const expires = Math.floor(this.now() / 1000) + FILE_URL_LIFETIME_SECONDS;
    const query = new URLSearchParams();
    if (page !== undefined) query.set('page', String(page));
    query.set('expires', String(expires));
    query.set('signature', this.signature(fileId, variant, page, expires));
    return `${this.baseUrl}/api/v2/files/${fileId}/${variant}?${query}`;
  }

  check(fileId: number, variant: FileVariant, page: number | undefined, expires: string | undefined, signature: string | undefined): UrlCheck {
    if (!expires || !/^\d{1,12}$/.test(expires) || !signature) return 'invalid';
    const expected = Buffer.from(this.signature(fileId, variant, page, Number(expires)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 < this.now() ? 'expired' : 'ok';
  }
}

export async function loadFileUrlKey(prisma: Prisma): Promise<Buffer> {
  return Buffer.from(await sharedSecret(prisma, 'files.url_key', () => randomBytes(32).toString('base64url')), 'base64url');
}
