export type ProgramName = 'server' | 'admin';
export const ENTRIES: Record<ProgramName, string>;
export const BUNDLE: string;
export function bundlePath(name: ProgramName): string;
export function bundle(outfile?: string, name?: ProgramName): Promise<void>;
export function isStale(name: ProgramName): boolean;
export function bundleStale(names?: ProgramName[]): Promise<ProgramName[]>;
