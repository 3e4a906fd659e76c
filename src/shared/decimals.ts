import { Decimal } from '@prisma/client/runtime/client';
import { ValidationError } from './errors.ts';

/** Rejects values that a Decimal(precision, scale) column would round or overflow: exact to the øre. */
export function checkDecimal(field: string, value: Decimal | string | number, col: { precision: number; scale: number }): Decimal {
  const d = value instanceof Decimal ? value : new Decimal(value);
  if (!d.isFinite()) throw ValidationError.field(field, 'must be a finite number');
  if (d.decimalPlaces() > col.scale) throw ValidationError.field(field, `must have at most ${col.scale} decimals`);
  const integerDigits = d.abs().truncated().toFixed(0).replace(/^0$/, '').length;
  if (integerDigits > col.precision - col.scale) {
    throw ValidationError.field(field, `must be less than 10^${col.precision - col.scale} in magnitude`);
  }
  return d;
}
