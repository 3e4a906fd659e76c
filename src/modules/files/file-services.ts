import { join } from 'node:path';
import type { Config } from '../../config.ts';
import type { Prisma } from '../../db/database.ts';
import type { RequestContext } from '../../shared/context.ts';
import type { Logger } from '../../shared/logger.ts';
import { heavyWork, type HeavyWork } from '../../workers/heavy-work.ts';
import { FileUrlSigner, loadFileUrlKey } from './file-urls.ts';
import { DiskFileStore, type FileStore } from './storage.ts';

/** The file store, the URL signer and the pool that reads and renders files, which services reach through their context (ctx.files). */
export interface FileServices {
  store: FileStore;
  /** $DATA_DIR: for files a service works on by path (a SAF-T import's XML, saft-imports/), shared by the processes sharing it */
  dataDir: string;
  /** the most XML a SAF-T import takes (SAFT_IMPORT_MAX_XML_MB) */
  saftImportMaxXmlBytes: number;
  urls: FileUrlSigner;
  /** where files are read and rendered: worker threads with memory and time limits (src/workers/heavy-work.ts) */
  heavy: HeavyWork;
}

/** The app's and the job runner's file services: the disk store under $DATA_DIR/files, the shared URL key, the process's heavy-work pool. */
/** Where the file store keeps its files: DATA_DIR/files (a backup copies this directory, src/backup). */
export const fileStoreDir = (config: Pick<Config, 'dataDir'>): string => join(config.dataDir, 'files');

export async function createFileServices(config: Pick<Config, 'dataDir' | 'baseUrl' | 'heavyWork' | 'saftImportMaxXmlBytes'>, prisma: Prisma, logger?: Logger): Promise<FileServices> {
  return {
    store: new DiskFileStore(fileStoreDir(config)),
    dataDir: config.dataDir,
    saftImportMaxXmlBytes: config.saftImportMaxXmlBytes,
    urls: new FileUrlSigner(await loadFileUrlKey(prisma), config.baseUrl),
    heavy: heavyWork(config.heavyWork, logger),
  };
}

export function fileServices(ctx: RequestContext): FileServices {
  if (!ctx.files) throw new Error('This context has no file services (createRequestContext/systemContext without files)');
  return ctx.files;
}
