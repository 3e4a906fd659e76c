/** `%text%` for ILIKE, the pattern characters of the text (%, _ and \) taken literally. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The words of a free-text search (split at whitespace), each to be found on its own; at most `max`. */
export const searchWords = (text: string | null | undefined, max = 10): string[] => (text ?? '').split(/\s+/).filter(Boolean).slice(0, max);
