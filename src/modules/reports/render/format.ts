import { formatDate, formatInteger, formatMoney } from '../../../shared/norwegian-format.ts';
import type { Cell, CellKind } from './model.ts';

// A report table's cells as text (the Norwegian formats are src/shared/norwegian-format.ts).

/** A table cell as the HTML page and the PDF print it; null is empty. */
export function formatCell(kind: CellKind, value: Cell): string {
  if (value === null || value === undefined || value === '') return '';
  switch (kind) {
    case 'money':
      return formatMoney(value);
    case 'integer':
      return typeof value === 'number' ? formatInteger(value) : String(value);
    case 'date':
      return formatDate(String(value));
    case 'text':
      return String(value);
  }
}

/** Right-aligned kinds: the figures. */
export const isNumeric = (kind: CellKind): boolean => kind === 'money' || kind === 'integer';
