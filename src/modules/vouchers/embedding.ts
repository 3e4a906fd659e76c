/**
 * A deterministic text embedding for "similar vouchers" (GET /vouchers?similar_to=): feature hashing
 * (the "hashing trick") of a voucher's text into EMBEDDING_DIMENSIONS numbers, with no model to
 * download. Features are the words and the character trigrams of each word (padded with spaces, so
 * "kaffe" gives " ka", "kaf", "aff", "ffe", "fe "); each is hashed (FNV-1a) to a dimension and a sign,
 * counts are damped (1 + ln count) so a repeated word does not dominate, and the vector is scaled to
 * length 1. Cosine similarity is then the dot product: two receipts from the same shop that differ in
 * date and amount share most trigrams and land close (≈ 0.8–0.95); unrelated documents share few
 * (≈ 0–0.3). It knows no synonyms or languages: it is a near-duplicate finder, not semantics.
 */

export const EMBEDDING_DIMENSIONS = 256;

/** weight of a whole word relative to one of its trigrams */
const WORD_WEIGHT = 2;

/** FNV-1a, 32 bits, over UTF-16 code units. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Lower-case words of letters and digits (æøå and other letters included); numbers keep their digits only. */
export function words(text: string): string[] {
  return text.normalize('NFC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The embedding of a text: EMBEDDING_DIMENSIONS numbers of length 1, or all zeros for a text without
 * words (nothing to compare).
 */
export function embedVoucherText(text: string): number[] {
  const counts = new Map<string, number>();
  const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
  for (const word of words(text).slice(0, 20_000)) {
    add(`w:${word}`, WORD_WEIGHT);
    const padded = ` ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 1);
  }
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  for (const [feature, count] of counts) {
    const h = fnv1a(feature);
    const sign = h & 0x80000000 ? -1 : 1;
    vector[h % EMBEDDING_DIMENSIONS] += sign * (1 + Math.log(count));
  }
  const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0));
  return norm === 0 ? vector : vector.map((v) => v / norm);
}

/** Cosine similarity of two embeddings (their dot product, as both have length 1; 0 when either is all zeros). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) dot += a[i] * b[i];
  return dot;
}
