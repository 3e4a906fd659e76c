// Units of measure for invoice and order lines, with their UN/ECE Recommendation 20 code (the code an
// EHF/Peppol BIS Billing 3.0 invoice carries in `unitCode`) and, for packages, the Recommendation 21
// package-type code. Recommendation 20 includes every Recommendation 21 code with an "X" prefix
// (box: Rec 21 "BX" is Rec 20 "XBX"), which is how Peppol accepts package units.
//
// `symbol` is the short label shown to Norwegian users ('stk', 'time', 'kg'); `description` is the
// English name of the code in the recommendation (our own wording where that name is long).

export interface UnitDefinition {
  symbol: string;
  unEceRec20Code: string;
  unEceRec21Code: string | null;
  description: string;
}

function unit(symbol: string, unEceRec20Code: string, description: string, unEceRec21Code: string | null = null): UnitDefinition {
  return Object.freeze({ symbol, unEceRec20Code, unEceRec21Code, description });
}

function pkg(symbol: string, unEceRec21Code: string, description: string): UnitDefinition {
  return unit(symbol, `X${unEceRec21Code}`, description, unEceRec21Code);
}

export const UNITS: readonly UnitDefinition[] = Object.freeze([
  // Counts
  unit('stk', 'H87', 'piece'),
  unit('enh', 'EA', 'each'),
  unit('ant', 'C62', 'one (unit without a specific name)'),
  unit('sett', 'SET', 'set'),
  unit('par', 'PR', 'pair'),
  unit('dus', 'DZN', 'dozen'),
  unit('rs', 'LS', 'lump sum'),
  // Time
  unit('min', 'MIN', 'minute'),
  unit('time', 'HUR', 'hour'),
  unit('dag', 'DAY', 'day'),
  unit('uke', 'WEE', 'week'),
  unit('mnd', 'MON', 'month'),
  unit('år', 'ANN', 'year'),
  // Mass
  unit('g', 'GRM', 'gram'),
  unit('kg', 'KGM', 'kilogram'),
  unit('tonn', 'TNE', 'tonne (metric ton)'),
  // Volume
  unit('ml', 'MLT', 'millilitre'),
  unit('cl', 'CLT', 'centilitre'),
  unit('dl', 'DLT', 'decilitre'),
  unit('l', 'LTR', 'litre'),
  unit('m³', 'MTQ', 'cubic metre'),
  // Length and area
  unit('mm', 'MMT', 'millimetre'),
  unit('cm', 'CMT', 'centimetre'),
  unit('m', 'MTR', 'metre'),
  unit('km', 'KMT', 'kilometre'),
  unit('m²', 'MTK', 'square metre'),
  // Energy
  unit('kWh', 'KWH', 'kilowatt hour'),
  // Packages (Rec 21 code, Rec 20 = "X" + Rec 21)
  pkg('eske', 'BX', 'box'),
  pkg('pakke', 'PK', 'package'),
  pkg('pall', 'PX', 'pallet'),
  pkg('flaske', 'BO', 'bottle, non-protected, cylindrical'),
  pkg('boks', 'CX', 'can, cylindrical'),
  pkg('pose', 'BG', 'bag'),
  pkg('sekk', 'SA', 'sack'),
  pkg('rull', 'RO', 'roll'),
  pkg('kartong', 'CT', 'carton'),
  pkg('kit', 'KI', 'kit'),
  pkg('kasse', 'CS', 'case'),
  pkg('fat', 'DR', 'drum'),
  pkg('tube', 'TU', 'tube'),
]);
