import { describe, expect, it } from 'vitest';
import { JsonNumber, jsonText, withJsonNumbers } from '../../src/shared/json-text.ts';

// spec 000: "Decimal amounts are returned as strings (except where a report row shows a JSON number)".
// The REST adapter writes every JSON answer with jsonText; a JsonNumber (the balance sheet's
// balance) becomes a number literal with the decimal's exact digits, which no double holds.
describe('jsonText', () => {
  it('writes a JsonNumber as its exact literal: 1000000000003584.01, not the double 1000000000003584', () => {
    expect(Number('1000000000003584.01')).toBe(1000000000003584);
    const text = jsonText([{ account_code: '1920', balance: new JsonNumber('1000000000003584.01') }, { balance: new JsonNumber('-0.50') }]);
    expect(text).toBe('[{"account_code":"1920","balance":1000000000003584.01},{"balance":-0.50}]');
    // still JSON, whose parser reads the nearest double
    expect(JSON.parse(text)[1].balance).toBe(-0.5);
  });

  it('without a JsonNumber it is JSON.stringify, byte for byte', () => {
    const values: unknown[] = [
      { a: 1, b: 'x', c: null, d: [true, false], e: { f: 1.5 }, g: undefined, h: new Date(0) },
      'text with "quotes", \\ and \u0000 and \u2028',
      [],
      null,
      0,
    ];
    for (const v of values) expect(jsonText(v)).toBe(JSON.stringify(v));
    expect(jsonText(undefined)).toBe('null');
  });

  it('a client text that looks like the placeholder stays text (the placeholder needs a key of the process)', () => {
    const sneaky = '\u0000not-the-key:0';
    expect(JSON.parse(jsonText({ name: sneaky, balance: new JsonNumber('1') }))).toEqual({ name: sneaky, balance: 1 });
  });

  it('plain JSON.stringify (a stored tool result, a log line) writes the nearest double; String() the text', () => {
    const n = new JsonNumber('1000000000003584.01');
    expect(JSON.stringify({ n })).toBe('{"n":1000000000003584}');
    expect(String(n)).toBe('1000000000003584.01');
  });

  it('refuses a text that is no JSON number', () => {
    for (const bad of ['', '1.', '.5', '01', '1,5', 'NaN', 'Infinity', '1 ', '+1']) expect(() => new JsonNumber(bad), bad).toThrow(TypeError);
    for (const good of ['0', '-0.00', '10', '1e5', '2.5E-3']) expect(new JsonNumber(good).text).toBe(good);
  });

  it('withJsonNumbers: the keys of an object or of each element of a list; null and other keys stay', () => {
    const out = withJsonNumbers([{ balance: '1.00', name: '2.00' }, { balance: null }], ['balance']) as Record<string, unknown>[];
    expect(out[0].balance).toBeInstanceOf(JsonNumber);
    expect(out[0].name).toBe('2.00');
    expect(out[1].balance).toBeNull();
    expect(jsonText(withJsonNumbers({ balance: '-12.30' }, ['balance']))).toBe('{"balance":-12.30}');
  });
});
