import { join } from 'node:path';
import type { Config } from '../../config.ts';
import type { Prisma } from '../../db/database.ts';
import type { RequestContext } from '../../shared/context.ts';
import { FileUrlSigner, loadFileUrlKey } from './file-urls.ts';
import { DiskFileStore, type FileStore } from './storage.ts';

/** The file store and the URL signer, which services reach through their context (ctx.files). */
export interface FileServices {
  store: FileStore;
  urls: FileUrlSigner;
}

/** The app's and the job runner's file services: the disk store under $DATA_DIR/files and the shared URL key. */
export async function createFileServices(config: Pick<Config, 'dataDir' | 'baseUrl'>, prisma: Prisma): Promise<FileServices> {
  return { store: new DiskFileStore(join(config.dataDir, 'files')), urls: new FileUrlSigner(await loadFileUrlKey(prisma), config.baseUrl) };
}

export function fileServices(ctx: RequestContext): FileServices {
  if (!ctx.files) throw new Error('This context has no file services (createRequestContext/systemContext without files)');
  return ctx.files;
}
