import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Prisma } from '../../db/database.ts';
import { AppError, ForbiddenError, NotFoundError, UnprocessableError } from '../../shared/errors.ts';
import { FileProblem, HeavyWorkError } from '../../workers/heavy-work.ts';
import { FILE_POLICY, serializePolicy } from '../../http/security-headers.ts';
import type { FileServices } from './file-services.ts';
import { FILE_VARIANTS, type FileVariant } from './file-urls.ts';
import { isImage, PDF } from './files.rules.ts';

/** The path of a presigned file URL below /api/v2 (file-urls.ts makes them). */
export const FILE_URL_PATH = '/files/:id/:variant';

/** A content type a browser could run script in when opened as a page: served sandboxed. */
const isInlineSafe = (contentType: string) => contentType === PDF || isImage(contentType);

/**
 * `GET /api/v2/files/{id}/{variant}?page=&expires=&signature=`: the presigned file URLs of the File
 * type. Public: the signature is the authorisation (no bearer token), so it is mounted before the
 * bearer middleware. An altered, incomplete or foreign signature is 403, an expired one 403 saying
 * so, an unknown file or variant or a page out of range 404 — all `{error, status}`.
 *
 *   download   the file as uploaded, Content-Disposition attachment, its sniffed content type
 *   original   the same inline
 *   preview    ?page=n: of a PDF page n as a one-page PDF (pdf-lib copies the page; no rasteriser
 *              is available here, so a page is never a PNG); of an image the image (page 1 only)
 *   thumbnail  of a PDF its first page as a one-page PDF; of an image the image itself (nothing
 *              here scales images without native code)
 *
 * Every answer is `Cache-Control: private, max-age=` the seconds left of the URL's lifetime,
 * `X-Content-Type-Options: nosniff`, and a Content-Security-Policy that loads nothing (FILE_POLICY;
 * sandboxed besides for anything that is not a PDF or an image).
 */
export function fileUrlRoutes(deps: { prisma: Prisma; files: FileServices; now?: () => number }): Router {
  const router = express.Router();
  const now = deps.now ?? Date.now;
  router.get(FILE_URL_PATH, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const { id: rawId, variant: rawVariant } = req.params as { id: string; variant: string };
      const query = req.query as Record<string, unknown>;
      const text = (name: string): string | undefined => (typeof query[name] === 'string' ? (query[name] as string) : undefined);
      if (!/^[1-9]\d{0,9}$/.test(rawId) || Number(rawId) > 2147483647 || !FILE_VARIANTS.includes(rawVariant as FileVariant)) {
        throw new NotFoundError(`File URL ${req.baseUrl}${req.path}`);
      }
      const id = Number(rawId);
      const variant = rawVariant as FileVariant;
      const pageText = text('page');
      if (pageText !== undefined && !/^[1-9]\d{0,5}$/.test(pageText)) throw new ForbiddenError('This file URL is not valid (altered or incomplete); ask for the file again for a fresh URL');
      const page = pageText === undefined ? undefined : Number(pageText);
      const check = deps.files.urls.check(id, variant, page, text('expires'), text('signature'));
      if (check === 'expired') throw new ForbiddenError('This file URL has expired (they are valid for one hour); ask for the file again for a fresh URL');
      if (check === 'invalid') throw new ForbiddenError('This file URL is not valid (altered or incomplete); ask for the file again for a fresh URL');
      const file = await deps.prisma.storedFile.findUnique({ where: { id }, select: { id: true, fileName: true, contentType: true, storageKey: true, pageCount: true } });
      if (!file) throw new NotFoundError(`File ${id}`);

      let body: Buffer;
      let contentType = file.contentType;
      let fileName = file.fileName;
      if (variant === 'download' || variant === 'original') body = await deps.files.store.get(file.storageKey);
      else {
        const wanted = variant === 'thumbnail' ? 1 : (page ?? 1);
        if (!file.pageCount) throw new NotFoundError(`A ${variant} of file ${id} (a ${file.contentType} file has no pages)`);
        if (wanted > file.pageCount) throw new NotFoundError(`Page ${wanted} of file ${id} (it has ${file.pageCount})`);
        const bytes = await deps.files.store.get(file.storageKey);
        if (file.contentType === PDF) {
          try {
            body = Buffer.from(await deps.files.heavy.run('pdfPage', { bytes, page: wanted }));
          } catch (e) {
            // a file stored before a limit was lowered, or one too heavy to read within the worker's limits
            if (e instanceof FileProblem || e instanceof HeavyWorkError) throw new UnprocessableError(`Page ${wanted} of file ${id} cannot be shown: ${e instanceof FileProblem ? `the file ${e.message}` : `reading the file failed: ${e.message}`}`);
            throw e;
          }
          contentType = PDF;
          fileName = `${file.fileName.replace(/\.pdf$/i, '')}-page-${wanted}.pdf`;
        } else body = bytes;
      }

      const expires = Number(text('expires'));
      const maxAge = Math.max(0, Math.min(3600, expires - Math.floor(now() / 1000)));
      res.status(200);
      res.setHeader('Content-Type', contentType.startsWith('text/') ? `${contentType}; charset=utf-8` : contentType);
      res.setHeader('Content-Length', String(body.length));
      res.setHeader('Cache-Control', `private, max-age=${maxAge}`);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      const inline = variant !== 'download';
      res.setHeader('Content-Security-Policy', serializePolicy(inline && isInlineSafe(contentType) ? FILE_POLICY : { ...FILE_POLICY, sandbox: [] }));
      const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
      res.setHeader('Content-Disposition', `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`);
      res.end(body);
    } catch (e) {
      // bytes missing from the store are the server's problem, not the URL's
      if (!(e instanceof AppError) && (e as NodeJS.ErrnoException)?.code === 'ENOENT') return next(new Error('The bytes of a stored file are missing from the file store', { cause: e }));
      next(e);
    }
  });
  return router;
}
