// @ts-check
// Tables for evaluation reports, as Markdown and as CSV, from a header row and rows of
// cells. Numbers are written with a fixed number of decimals (`precision`: one for every
// column, or an array with one entry per column, null meaning "as JS prints it"); other
// cells as text, null/undefined as empty. Environment-neutral.
//   markdownTable(['method', 'AUC'], [['rollout', 53.1234]], { precision: 2 })

export function formatCell(value, precision) {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'number') return String(value);
  if (!Number.isFinite(value)) return String(value);
  if (precision === null || precision === undefined) return String(value);
  const text = value.toFixed(precision);
  // -0.001 at 2 decimals is "-0.00": write it as the zero it rounds to.
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

function precisionOf(precision, column) {
  return Array.isArray(precision) ? precision[column] : precision;
}

function formatRows(headers, rows, precision) {
  return rows.map((row, r) => {
    if (row.length !== headers.length) throw new Error(`table row ${r + 1} has ${row.length} cells, the header ${headers.length}`);
    return row.map((v, c) => formatCell(v, precisionOf(precision, c)));
  });
}

const mdEscape = (text) => String(text).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

// Columns holding numbers (and blanks) only are right-aligned.
/**
 * @param {string[]} headers @param {unknown[][]} rows
 * @param {{ precision?: number | (number | null)[] }} [options]
 */
export function markdownTable(headers, rows, { precision } = {}) {
  const cells = formatRows(headers, rows, precision);
  const numeric = headers.map((_, c) => rows.length > 0
    && rows.every((row) => typeof row[c] === 'number' || row[c] === null || row[c] === undefined));
  const line = (items) => `| ${items.map(mdEscape).join(' | ')} |`;
  return [
    line(headers),
    `|${numeric.map((n) => (n ? ' ---: ' : ' --- ')).join('|')}|`,
    ...cells.map(line),
  ].join('\n');
}

// Quoted when a cell holds a comma, a quote, a line break or edge spaces (RFC 4180).
export function csvCell(text) {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * @param {string[]} headers @param {unknown[][]} rows
 * @param {{ precision?: number | (number | null)[] }} [options]
 */
export function csvTable(headers, rows, { precision } = {}) {
  const cells = formatRows(headers, rows, precision);
  return `${[headers.map(String), ...cells].map((row) => row.map(csvCell).join(',')).join('\n')}\n`;
}

// The report lines about items skipped as unreadable (eval/node/run.js writes
// them to skipped.csv); none when nothing was skipped.
export function skippedLines(summary, unit) {
  return summary.skipped ? [`${summary.skipped} ${unit}(s) could not be read or preprocessed and were skipped (skipped.csv).`, ''] : [];
}
