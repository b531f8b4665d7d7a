/**
 * RFC 4180 CSV (`cdr export`, CONTRACT §8): a field containing a comma, a double quote, CR
 * or LF is wrapped in double quotes with inner quotes doubled; anything else is written as is.
 * `null` is an empty field. Records end with CRLF, as RFC 4180 §2 specifies.
 */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV record (see {@link csvField}), CRLF-terminated. */
export function csvRecord(values: readonly (string | number | null | undefined)[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
