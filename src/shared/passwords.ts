import { hash, verify } from '@node-rs/argon2';

/** argon2id (memory-hard) with the library's defaults: 19 MiB, 2 passes; stored as a PHC string. */
export const hashPassword = (password: string): Promise<string> => hash(password);

// A real hash to compare against when the user does not exist, so timing does not reveal emails.
let dummy: Promise<string> | undefined;

export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (!passwordHash) {
    await verify(await (dummy ??= hash('not-a-real-password')), password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
