export const BUNDLE: string;
export function bundle(outfile?: string): Promise<void>;
