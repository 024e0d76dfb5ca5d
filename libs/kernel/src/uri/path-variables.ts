/**
 * Path variables of the contract's URI pipeline: `{calendar:today}` → `2026/08/22` and its siblings,
 * in UTC, so an agent can file things by date without knowing it (docs/sessions.md "Messages"). Pure:
 * the caller passes the time. Unknown variables stay as written. One linear pass.
 */
const PATTERN = /\{calendar:(today|yesterday|tomorrow|year|month|day|ym|quarter|yq|week|yw)\}/g;

const pad = (n: number) => String(n).padStart(2, '0');
const ymd = (d: Date) => `${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}`;
const shift = (d: Date, days: number) => new Date(d.getTime() + days * 86_400_000);

/** ISO 8601 week and its year (the week with the year's first Thursday is week 1). */
function isoWeek(d: Date): { year: number; week: number } {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const day = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - day);
  const start = Date.UTC(t.getUTCFullYear(), 0, 1);
  return { year: t.getUTCFullYear(), week: Math.ceil(((t.getTime() - start) / 86_400_000 + 1) / 7) };
}

function value(name: string, now: Date): string {
  const year = String(now.getUTCFullYear());
  const quarter = `Q${Math.floor(now.getUTCMonth() / 3) + 1}`;
  const w = isoWeek(now);
  switch (name) {
    case 'today':
      return ymd(now);
    case 'yesterday':
      return ymd(shift(now, -1));
    case 'tomorrow':
      return ymd(shift(now, 1));
    case 'year':
      return year;
    case 'month':
      return pad(now.getUTCMonth() + 1);
    case 'day':
      return pad(now.getUTCDate());
    case 'ym':
      return `${year}/${pad(now.getUTCMonth() + 1)}`;
    case 'quarter':
      return quarter;
    case 'yq':
      return `${year}/${quarter}`;
    case 'week':
      return `W${pad(w.week)}`;
    default: // yw
      return `${w.year}/W${pad(w.week)}`;
  }
}

export function expandPathVariables(text: string, now: Date): string {
  return text.includes('{calendar:') ? text.replace(PATTERN, (_, name: string) => value(name, now)) : text;
}
