import { describe, expect, it } from 'vitest';
import { cosineSimilarity, EMBEDDING_DIMENSIONS, embedVoucherText } from '../../src/modules/vouchers/embedding.ts';

// The similarity embedding (src/modules/vouchers/embedding.ts): feature hashing of words and
// character trigrams, L2-normalised, so near-duplicate receipts are close and unrelated ones far.
const receipt = (date: string, amount: string, item: string) =>
  `REMA 1000 Grünerløkka\nOrg.nr 912 345 678 MVA\nKvittering\n${date} 14:32\n${item} 1 stk\nMelk 1 l 21,90\nBrød grovt 39,90\nSum ${amount}\nBankkort ****1234\nTakk for handelen!`;

describe('embedVoucherText', () => {
  it(`is ${EMBEDDING_DIMENSIONS} numbers of length 1`, () => {
    const v = embedVoucherText(receipt('12.03.2026', '1 234,50', 'Kaffe'));
    expect(v).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(Math.sqrt(v.reduce((s, x) => s + x * x, 0))).toBeCloseTo(1, 10);
  });

  it('is deterministic: the same text gives the same vector', () => {
    expect(embedVoucherText('Faktura 1001 Kaffe AS')).toEqual(embedVoucherText('Faktura 1001 Kaffe AS'));
  });

  it('case and spacing do not matter', () => {
    expect(cosineSimilarity(embedVoucherText('Faktura  KAFFE   as'), embedVoucherText('faktura kaffe AS'))).toBeCloseTo(1, 10);
  });

  it('near-duplicate receipts (same shop, another day and amount) are close', () => {
    const a = embedVoucherText(receipt('12.03.2026', '1 234,50', 'Kaffe'));
    const b = embedVoucherText(receipt('13.03.2026', '987,00', 'Kaffe'));
    expect(cosineSimilarity(a, b)).toBeGreaterThan(0.85);
  });

  it('unrelated documents are far apart', () => {
    const a = embedVoucherText(receipt('12.03.2026', '1 234,50', 'Kaffe'));
    const invoice = embedVoucherText(
      'Faktura 10021\nNordlys Regnskap AS\nKunde: Bergen Bygg og Anlegg\nRegnskapstjenester for februar, timer 12,5\nForfallsdato 30.04.2026\nKontonummer 1503.12.34567',
    );
    expect(cosineSimilarity(a, invoice)).toBeLessThan(0.35);
    // the nearer pair is nearer than the unrelated one by far
    const b = embedVoucherText(receipt('14.03.2026', '45,00', 'Te'));
    expect(cosineSimilarity(a, b) - cosineSimilarity(a, invoice)).toBeGreaterThan(0.4);
  });

  it('Norwegian letters are features (æøå are not dropped)', () => {
    expect(cosineSimilarity(embedVoucherText('blåbær'), embedVoucherText('blabar'))).toBeLessThan(0.5);
  });

  it('a text without words: all zeros (nothing to compare), never NaN', () => {
    const v = embedVoucherText('  -- ** ');
    expect(v).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(v.every((x) => x === 0)).toBe(true);
  });
});
