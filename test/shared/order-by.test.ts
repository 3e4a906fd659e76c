import { describe, expect, it } from 'vitest';
import { orderTerms, parseOrder } from '../../src/shared/pagination.ts';

// One order_by rule for every list (README "REST conventions"): spec 001 writes orders as
// "-created_at" (items), "booking_date asc, amount asc" (bank transactions) and "a field plus asc or
// desc" (vouchers); a REST array arrives split on commas, semicolons and spaces.
const ALLOWED = { id: 'id', booking_date: 'bookingDate', amount: 'amount', created_at: 'createdAt' };

describe('parseOrder: the order_by every list takes', () => {
  it.each<[string, string[], { field: string; direction: string }[]]>([
    ['a field alone is ascending', ['amount'], [{ field: 'amount', direction: 'asc' }]],
    ['- prefix is descending', ['-created_at'], [{ field: 'createdAt', direction: 'desc' }]],
    ['+ prefix is ascending', ['+created_at'], [{ field: 'createdAt', direction: 'asc' }]],
    ['field:desc', ['booking_date:desc'], [{ field: 'bookingDate', direction: 'desc' }]],
    ['"booking_date asc, amount asc" as one string', ['booking_date asc, amount asc'], [{ field: 'bookingDate', direction: 'asc' }, { field: 'amount', direction: 'asc' }]],
    ['"booking_date desc amount" split into a REST array', ['booking_date', 'desc', 'amount'], [{ field: 'bookingDate', direction: 'desc' }, { field: 'amount', direction: 'asc' }]],
    ['the direction word in any case', ['amount DESC'], [{ field: 'amount', direction: 'desc' }]],
    ['camelCase and upper-case names', ['bookingDate', 'CREATED_AT desc'], [{ field: 'bookingDate', direction: 'asc' }, { field: 'createdAt', direction: 'desc' }]],
    ['semicolons separate too', ['-amount;id'], [{ field: 'amount', direction: 'desc' }, { field: 'id', direction: 'asc' }]],
    ['nothing is no order', [' , '], []],
  ])('%s', (_rule, values, expected) => {
    expect(parseOrder(values, ALLOWED)).toEqual(expected);
  });

  it.each<[string, string[], RegExp]>([
    ['an unknown field', ['colour'], /^cannot order by 'colour'; allowed: id, booking_date, amount, created_at/],
    ['names every plain object has are no fields', ['constructor'], /^cannot order by 'constructor'/],
    ['__proto__ is no field', ['__proto__'], /^cannot order by '__proto__'/],
    ['a direction word that is no direction', ['amount sideways'], /^cannot order by 'sideways'/],
    ['a direction with nothing before it', ['desc'], /^'desc' must follow the field it orders/],
    ['two directions for one field', ['amount asc desc'], /^'desc' must follow the field it orders/],
    ['a sign and a direction word', ['-amount desc'], /^'desc' must follow the field it orders/],
    ['a sign and a :direction', ['-amount:asc'], /^cannot order by '-amount:asc'/],
    ['a field twice', ['amount', '-amount'], /^names amount twice$/],
    ['more names than the list has fields', Array(5).fill('amount'), /^names at most 4 fields$/],
  ])('%s is refused', (_rule, values, message) => {
    expect(parseOrder(values, ALLOWED)).toMatch(message);
  });
});

describe('orderTerms: the order a list sorts by', () => {
  it.each<[string, string[] | null]>([
    ['none given', null],
    ['an empty list', []],
    ['only separators (order_by=,,, or a space)', [' ', ',,,', ';']],
  ])('the default when %s names no term', (_case, values) => {
    expect(orderTerms(values, ALLOWED, ['-created_at'])).toEqual([{ field: 'createdAt', direction: 'desc' }]);
  });

  it('the terms given otherwise', () => {
    expect(orderTerms(['amount desc'], ALLOWED, ['-created_at'])).toEqual([{ field: 'amount', direction: 'desc' }]);
  });
});
