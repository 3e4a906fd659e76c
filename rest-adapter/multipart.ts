import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import multer from 'multer';
import { ContentTooLargeError, ValidationError } from '../src/shared/errors.ts';
import { keepRawBody } from '../src/http/idempotency.ts';
import { SpooledUpload } from '../src/shared/scalars.ts';
import { operationPaths, type MultipartOptions, type Operation } from './operation.ts';

/** Marks a request whose body came from a form: its text fields are parsed like query parameters. */
const FORM = Symbol('rest-adapter.form');

export const isFormRequest = (req: Request): boolean => (req as Request & { [FORM]?: boolean })[FORM] === true;

const MULTIPART = /^multipart\/form-data\b/i;

/** multer's and busboy's refusals as the API's errors: 413 for a file over the limit, 400 for everything else. */
function formError(err: unknown, options: MultipartOptions): Error {
  const e = err as { code?: string; field?: string; message?: string };
  if (e?.code === 'LIMIT_FILE_SIZE') {
    return new ContentTooLargeError(`${options.fileField}: the file is larger than ${options.maxBytes} bytes (${Math.round(options.maxBytes / 1024 / 1024)} MB), the most this operation takes`);
  }
  if (e?.code === 'LIMIT_UNEXPECTED_FILE' || e?.code === 'LIMIT_FILE_COUNT') {
    return ValidationError.field(e.field && e.field !== options.fileField ? e.field : options.fileField, `send exactly one file, in the form field '${options.fileField}'`);
  }
  return new ValidationError(`The multipart/form-data body cannot be read: ${String(e?.message ?? err).slice(0, 200)}`);
}

/** SHA-256 of an uploaded file, in memory or spooled to disk (read in pieces). */
async function fileHash(file: Express.Multer.File): Promise<string> {
  const hash = createHash('sha256');
  if (!file.path) return hash.update(file.buffer).digest('hex');
  for await (const chunk of createReadStream(file.path) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/**
 * The multipart/form-data bodies of the operations that take one (`multipart` in the operation
 * table, e.g. POST /files): parsed with multer into memory (or, `toDisk`, a temporary file removed
 * when the response is sent) within the operation's size limit (413 beyond it, without storing
 * anything), then turned into the body the operation's variables read —
 * the text fields as they are (parsed by their GraphQL types like query parameters) and the file's
 * bytes in `contentField` (a Buffer: the FileContent scalar takes it as it is), its name in
 * `fileNameField` unless the form gives that field. Mounted after the bearer middleware (no body is
 * read for a request without a valid token) and before the JSON parser and the Idempotency-Key
 * middleware: the key's fingerprint covers the fields and the SHA-256 of the file.
 */
export function operationBodies(table: readonly Operation[]): Router {
  const router = express.Router();
  for (const op of table) {
    // a body of the operation's own kind (bodyParser) is read on its route only
    if (op.bodyParser) router[op.method.toLowerCase() as 'post'](operationPaths(op), op.bodyParser);
    const options = op.multipart;
    if (!options) continue;
    // defParamCharset (multer 2): file names without a charset are UTF-8, as browsers send them (@types/multer lacks it)
    const upload = multer({
      storage: options.toDisk ? multer.diskStorage({ destination: tmpdir() }) : multer.memoryStorage(),
      defParamCharset: 'utf8',
      limits: { fileSize: options.maxBytes, files: 1, fields: 20, fieldSize: 4096, parts: 21, fieldNameSize: 100 },
    } as multer.Options).single(options.fileField);
    router[op.method.toLowerCase() as 'post'](operationPaths(op), (req: Request, res: Response, next: NextFunction) => {
      if (!MULTIPART.test(String(req.headers['content-type'] ?? ''))) return next();
      upload(req, res, (err?: unknown) => {
        // a spooled file lives as long as the request (multer removes a partial one itself)
        const spooled = req.file?.path;
        if (spooled) res.once('close', () => void rm(spooled, { force: true }));
        if (err) return next(formError(err, options));
        const fields = { ...(req.body as Record<string, unknown> | undefined) };
        if (fields[options.contentField] !== undefined) return next(ValidationError.field(options.contentField, `send the file in the form field '${options.fileField}' instead`));
        if (!req.file) return next(ValidationError.field(options.fileField, `is required: send the file in the form field '${options.fileField}'`));
        const file = req.file;
        if (fields[options.fileNameField] === undefined || fields[options.fileNameField] === '') fields[options.fileNameField] = file.originalname || 'file';
        fileHash(file)
          .then((hash) => {
            const fingerprint = { fields: Object.keys(fields).sort().map((k) => [k, fields[k]]), file: hash };
            keepRawBody(req, res, Buffer.from(JSON.stringify(fingerprint)));
            req.body = { ...fields, [options.contentField]: spooled ? new SpooledUpload(spooled, file.size) : file.buffer };
            (req as Request & { [FORM]?: boolean })[FORM] = true;
            next();
          })
          .catch(next);
      });
    });
  }
  return router;
}
