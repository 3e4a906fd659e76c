import { hashSource, oauthPagePolicy, serializePolicy } from '../../../http/security-headers.ts';
import { decimalOf, formatCell, formatMoney, isNumeric } from './format.ts';
import type { ReportChart, ReportTable } from './model.ts';

/**
 * The HTML page of a report: self-contained (no script, no external resource, the chart is inline
 * SVG), printable (the header row repeats on every printed page through <thead>), every text escaped.
 * Readable from a phone to a desktop: a wide table scrolls inside its own box (the page never scrolls
 * sideways), and a last column of figures (the income statement's year "Sum") sticks to the box's
 * right edge, so the figure an accountant reads first is never scrolled away.
 *
 * CSP: the app's default policy for responses (API_POLICY: default-src 'none') blocks the page's
 * <style>. The page's one <style> is a constant, so it is allowed by hash, exactly like the OAuth
 * pages: serve the page with `Content-Security-Policy: REPORT_HTML_CSP`. The page uses no style=""
 * attributes (they would need 'unsafe-inline'); the SVG's fill/stroke are presentation attributes,
 * which CSP does not govern.
 */

const STYLE = `@page{size:A4;margin:15mm 12mm}
*{box-sizing:border-box}
body{font-family:"Helvetica Neue",Helvetica,Arial,sans-serif;font-size:10pt;color:#111;margin:1.5rem;line-height:1.35}
@media (max-width:600px){body{margin:.6rem}}
h1{font-size:16pt;margin:0 0 .2rem}
.subtitle{margin:0 0 1rem;color:#444}
.legend{margin:-.7rem 0 1rem;color:#444;font-style:italic}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%}
table.sticky td:last-child,table.sticky th:last-child{position:sticky;right:0;background:#fff;box-shadow:-1px 0 0 #ccc}
table.sticky tbody tr.d:nth-child(even) td:last-child{background:#f6f6f6}
thead{display:table-header-group}
tr{break-inside:avoid;page-break-inside:avoid}
th,td{padding:.15rem .4rem;vertical-align:top;text-align:left}
th{border-bottom:1px solid #111;font-weight:bold;white-space:nowrap}
td.n,th.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
tr.g td{font-weight:bold}
tr.t td{font-weight:bold;border-top:1px solid #111;border-bottom:3px double #111}
tbody tr.d:nth-child(even){background:#f6f6f6}
.i1{padding-left:1.2rem}.i2{padding-left:2.2rem}.i3{padding-left:3.2rem}.i4{padding-left:4.2rem}.i5{padding-left:5.2rem}
figure{margin:0 0 1rem}
figcaption{font-weight:bold;margin-bottom:.3rem}
svg{max-width:100%;height:auto}
svg text{font-family:inherit;font-size:11px;fill:#333}
@media print{body{margin:0;font-size:8.5pt}tbody tr.d:nth-child(even),table.sticky tbody tr.d:nth-child(even) td:last-child{background:none}figure{break-inside:avoid}.scroll{overflow:visible}table.sticky td:last-child,table.sticky th:last-child{position:static;box-shadow:none}}`;

/** Printing a wide table (more than six columns, as the PDF does): A4 landscape, in a <style> of its own. */
const LANDSCAPE_STYLE = '@page{size:A4 landscape}';

/** The CSP sources of the page's two possible <style> elements. */
export const HTML_STYLE_HASHES = [hashSource(STYLE), hashSource(LANDSCAPE_STYLE)];

/**
 * The Content-Security-Policy header the HTML report must be served with: the OAuth pages' policy
 * (default-src 'none', no script, no form, never framed) with the page's styles allowed by hash.
 */
export const REPORT_HTML_CSP = serializePolicy({ ...oauthPagePolicy(HTML_STYLE_HASHES[0], []), 'style-src': HTML_STYLE_HASHES });

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for element content and attribute values. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

export function renderHtml(table: ReportTable): string {
  const labelIndex = Math.max(0, table.columns.findIndex((c) => c.kind === 'text'));
  const head = table.columns.map((c) => `<th scope="col"${isNumeric(c.kind) ? ' class="n"' : ''}>${escapeHtml(c.label)}</th>`).join('');
  const body = table.rows
    .map((row) => {
      const cls = row.kind === 'detail' ? 'd' : row.kind === 'group' ? 'g' : 't';
      const cells = table.columns
        .map((c, i) => {
          const classes = [isNumeric(c.kind) ? 'n' : '', i === labelIndex && row.depth > 0 ? `i${Math.min(row.depth, 5)}` : ''].filter(Boolean);
          return `<td${classes.length ? ` class="${classes.join(' ')}"` : ''}>${escapeHtml(formatCell(c.kind, row.cells[c.key] ?? null))}</td>`;
        })
        .join('');
      return `<tr class="${cls}">${cells}</tr>`;
    })
    .join('\n');

  return `<!doctype html>
<html lang="nb">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`${table.title} – ${table.subtitle}`)}</title>
<style>${STYLE}</style>
${table.columns.length > 6 ? `<style>${LANDSCAPE_STYLE}</style>\n` : ''}</head>
<body>
<header>
<h1>${escapeHtml(table.title)}</h1>
<p class="subtitle">${escapeHtml(table.subtitle)}</p>
${table.legend ? `<p class="legend">${escapeHtml(table.legend)}</p>\n` : ''}</header>
<main>
${table.chart ? renderChart(table.chart) : ''}
<div class="scroll">
<table${table.columns.at(-1)?.kind === 'money' ? ' class="sticky"' : ''}>
<thead><tr>${head}</tr></thead>
<tbody>
${body}
</tbody>
</table>
</div>
</main>
</body>
</html>
`;
}

// ---- the chart ----

const n = (x: number): string => String(Math.round(x * 10) / 10);

/** A rounded-up scale maximum (1, 2, 2.5, 5 × 10^k) so the axis ends on a readable figure. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const exp = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * exp >= value) return step * exp;
  return 10 * exp;
}

function renderChart(chart: ReportChart): string {
  const svg = chart.kind === 'bars' ? barsSvg(chart) : splitSvg(chart);
  return `<figure>
<figcaption>${escapeHtml(chart.title)}</figcaption>
${svg}
</figure>`;
}

/** Bars of a series around a zero line, labels under the bars, the value in each bar's tooltip. */
function barsSvg(chart: Extract<ReportChart, { kind: 'bars' }>): string {
  const width = 640;
  const height = 220;
  const left = 80;
  const right = 10;
  const top = 12;
  const bottom = 26;
  const values = chart.bars.map((b) => Number(b.value));
  const max = niceMax(Math.max(0, ...values));
  const min = -niceMax(Math.max(0, ...values.map((v) => -v))) * (values.some((v) => v < 0) ? 1 : 0);
  const span = max - min || 1;
  const plotH = height - top - bottom;
  const y = (v: number) => top + ((max - v) / span) * plotH;
  const slot = (width - left - right) / Math.max(1, chart.bars.length);
  const barW = slot * 0.7;
  const zero = y(0);

  const bars = chart.bars
    .map((b, i) => {
      const x = left + i * slot + (slot - barW) / 2;
      const value = values[i];
      const y1 = Math.min(y(value), zero);
      const h = Math.abs(y(value) - zero);
      const fill = value < 0 ? '#c0392b' : '#2e7d32';
      return `<g><title>${escapeHtml(`${b.label}: ${formatMoney(b.value)}`)}</title><rect x="${n(x)}" y="${n(y1)}" width="${n(barW)}" height="${n(h)}" fill="${fill}"/>` +
        `<text x="${n(x + barW / 2)}" y="${height - 8}" text-anchor="middle">${escapeHtml(b.label)}</text></g>`;
    })
    .join('');
  const axis = [max, 0, ...(min < 0 ? [min] : [])]
    .map((v) => `<text x="${left - 6}" y="${n(y(v) + 4)}" text-anchor="end">${escapeHtml(formatMoney(v))}</text>`)
    .join('');

  return `<svg role="img" aria-labelledby="chart-title" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">
<title id="chart-title">${escapeHtml(chart.title)}</title>
${axis}
${bars}
<line x1="${left}" y1="${n(zero)}" x2="${width - right}" y2="${n(zero)}" stroke="#111" stroke-width="1"/>
</svg>`;
}

const PART_COLOURS = ['#1f5f8b', '#4a90c2', '#8cbce0', '#2e7d32', '#66a86a', '#a5d6a7', '#8d6e63', '#bcaaa4'];

/** Two stacked columns (assets, equity and liabilities) on one scale, each part labelled with its value. */
function splitSvg(chart: Extract<ReportChart, { kind: 'split' }>): string {
  const width = 640;
  const height = 260;
  const top = 24;
  const bottom = 10;
  const colW = 90;
  const slot = width / Math.max(1, chart.sides.length);
  const totals = chart.sides.map((s) => s.parts.reduce((sum, p) => sum + Math.max(0, Number(p.value)), 0));
  const max = Math.max(...totals, 0) || 1;
  const plotH = height - top - bottom;

  const columns = chart.sides
    .map((side, si) => {
      const x = si * slot + 10;
      let yAt = height - bottom;
      const total = side.parts.reduce((sum, p) => sum.plus(decimalOf(p.value)), decimalOf(0)).toFixed(2);
      const parts = side.parts
        .map((part, pi) => {
          const h = (Math.max(0, Number(part.value)) / max) * plotH;
          yAt -= h;
          const fill = PART_COLOURS[(si * 3 + pi) % PART_COLOURS.length];
          const label = `${part.label}: ${formatMoney(part.value)}`;
          // The legend beside the column lists the parts in the stack's order (the first at the bottom), a swatch of the part's colour each.
          const ly = top + 10 + (side.parts.length - 1 - pi) * 18;
          return `<g><title>${escapeHtml(label)}</title><rect x="${x}" y="${n(yAt)}" width="${colW}" height="${n(h)}" fill="${fill}" stroke="#fff"/>` +
            `<rect x="${x + colW + 8}" y="${ly - 9}" width="10" height="10" fill="${fill}"/><text x="${x + colW + 22}" y="${ly}">${escapeHtml(label)}</text></g>`;
        })
        .join('');
      return `<text x="${x}" y="16" font-weight="bold">${escapeHtml(`${side.label}: ${formatMoney(total)}`)}</text>${parts}`;
    })
    .join('\n');

  return `<svg role="img" aria-labelledby="chart-title" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">
<title id="chart-title">${escapeHtml(chart.title)}</title>
${columns}
</svg>`;
}
