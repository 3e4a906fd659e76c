import { randomUUID } from 'node:crypto';

/**
 * JSON text with number literals written digit for digit. spec 000: "Decimal amounts are returned as
 * strings (except where a report row shows a JSON number)"; the one such row is spec 001's balance
 * sheet, `balance (number)`. A JS double cannot hold every balance (1000000000003584.01 is the double
 * 1000000000003584), so the number goes into the answer as a `JsonNumber` holding the decimal's text,
 * and `jsonText` writes that text as the literal. Node 20 has no JSON.rawJSON without a flag.
 */

/** JSON's number grammar (RFC 8259 §6). */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** The literals of the jsonText call under way (JSON.stringify is synchronous: one at a time). */
let literals: string[] | undefined;

/**
 * Stands for a literal while JSON.stringify runs: a string starting with NUL and a random key of this
 * process, so no text of a client (which cannot know the key) is taken for one. JSON.stringify writes
 * the NUL as the six characters \u0000.
 */
const KEY = randomUUID();
const PLACEHOLDER = new RegExp(`"\\\\u0000${KEY}:(\\d+)"`, 'g');

/**
 * A decimal that goes on the wire as a JSON number with exactly its digits. `jsonText` writes its
 * text as the literal; plain JSON.stringify (a stored tool result, a log line) writes the nearest
 * double; String() gives the text, so a reader that parses decimals exactly (the report files) gets
 * every digit.
 */
export class JsonNumber {
  constructor(readonly text: string) {
    if (!JSON_NUMBER.test(text)) throw new TypeError(`JsonNumber: ${JSON.stringify(text.slice(0, 40))} is not a JSON number`);
  }

  toString(): string {
    return this.text;
  }

  toJSON(): number | string {
    if (!literals) return Number(this.text);
    literals.push(this.text);
    return `\u0000${KEY}:${literals.length - 1}`;
  }
}

/**
 * JSON.stringify(value), with each JsonNumber written as its exact literal. Without one the text is
 * JSON.stringify's (nothing else is touched).
 */
export function jsonText(value: unknown): string {
  const outer = literals;
  const own: string[] = [];
  literals = own;
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } finally {
    literals = outer;
  }
  return own.length ? text.replace(PLACEHOLDER, (_, i: string) => own[Number(i)]) : text;
}

/**
 * The value with the decimal strings under `keys` as JsonNumbers: keys of the object, or of each
 * element when it is a list (an operation's `numbers`, rest-adapter/operation.ts). null stays null.
 */
export function withJsonNumbers(value: unknown, keys: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => withJsonNumbers(v, keys));
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key of keys) {
    const v = out[key];
    if (typeof v === 'string') out[key] = new JsonNumber(v);
  }
  return out;
}
