import { describe, expect, it } from 'vitest';
import { Decimal, formatDate, formatFixed, formatInstant } from '../../src/shared/scalars.ts';

// Issue 9: Decimal columns print with formatFixed instead of toFixed on the hot path; "every response
// stays byte-identical", so it must give toFixed's text for every value.
describe('formatFixed(d, scale) is d.toFixed(scale)', () => {
  const values = [
    '0', '-0', '1', '-1', '99.9', '99.900000', '-1.5', '0.5', '0.05', '2.123456789', '2.1234565', '-2.1234565',
    '1e-9', '0.0000001', '-0.0000001', '123456789012345678901234', '1e21', '-1e21', '999999999999.999999',
    '0.000000', '25', '25.00', '12.345', '-0.004', '0.995',
  ];
  it.each(values.flatMap((v) => [0, 2, 6].map((scale) => [v, scale] as const)))('%s to %i decimals', (value, scale) => {
    const d = new Decimal(value);
    expect(formatFixed(d, scale)).toBe(d.toFixed(scale));
  });

  it('agrees with toFixed on 20,000 generated values of a Decimal(18, 6) column', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 20_000; i++) {
      const digits = String(next()).slice(0, 1 + (next() % 10));
      const decimals = next() % 7;
      const text = `${next() % 2 ? '-' : ''}${digits.slice(0, Math.max(1, digits.length - decimals))}${decimals ? `.${digits.slice(-decimals).padStart(decimals, '0')}` : ''}`;
      const d = new Decimal(text);
      for (const scale of [2, 6]) expect(formatFixed(d, scale)).toBe(d.toFixed(scale));
    }
  });
});

describe('formatInstant and formatDate print as toISOString does', () => {
  const instants = [
    '2026-01-31T12:00:00.000Z', '1970-01-01T00:00:00.000Z', '1999-12-31T23:59:59.999Z', '2024-02-29T00:00:00.001Z',
    '1000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '0999-12-31T23:59:59.999Z', '+010000-01-01T00:00:00.000Z', '-000001-06-15T10:20:30.040Z',
  ];
  it.each(instants)('%s', (iso) => {
    const d = new Date(iso);
    expect(formatInstant(d)).toBe(d.toISOString());
    expect(formatDate(d)).toBe(d.toISOString().slice(0, 10));
  });

  it('agrees with toISOString on 20,000 instants from 1900 to 2100', () => {
    for (let i = 0; i < 20_000; i++) {
      const d = new Date(Date.UTC(1900, 0, 1) + Math.floor(((i * 2654435761) % 2 ** 32) / 2 ** 32 * 6_311_433_600_000));
      expect(formatInstant(d)).toBe(d.toISOString());
      expect(formatDate(d)).toBe(d.toISOString().slice(0, 10));
    }
  });
});
