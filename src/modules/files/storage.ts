import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Where uploaded files' bytes live. Records (files table) name their bytes by key; the store knows
 * nothing else. The default keeps them on disk under $DATA_DIR/files; another store (an object
 * store) only has to implement these four calls.
 */
export interface FileStore {
  /** writes the bytes under a new key for the client account and returns the key */
  put(clientAccountId: number, bytes: Buffer): Promise<string>;
  get(key: string): Promise<Buffer>;
  stream(key: string): Readable;
  /** removes the bytes; a missing key is no error */
  delete(key: string): Promise<void>;
}

const KEY = /^\d+\/[0-9a-f-]{36}$/;

/** Files on local disk: `<root>/<client account>/<uuid>`, written to a temporary name and renamed, so a reader never sees half a file. */
export class DiskFileStore implements FileStore {
  constructor(private readonly root: string) {}

  private path(key: string): string {
    if (!KEY.test(key)) throw new Error(`Not a file key: ${key}`);
    return join(this.root, key);
  }

  async put(clientAccountId: number, bytes: Buffer): Promise<string> {
    const key = `${clientAccountId}/${randomUUID()}`;
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.partial`;
    await writeFile(partial, bytes);
    await rename(partial, path);
    return key;
  }

  get(key: string): Promise<Buffer> {
    return readFile(this.path(key));
  }

  stream(key: string): Readable {
    return createReadStream(this.path(key));
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}
