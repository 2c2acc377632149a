// The registry's (or token server's) own words, so the WARN line names the
// real cause (#571). Distribution answers `{"errors":[{"code","message",…}]}`;
// Docker Hub's token endpoint answers `{"details": "…"}`; OAuth servers
// `{"error_description": "…"}`. A HEAD has no body: this is for GETs only.

const MAX_TEXT = 200;

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

const parse = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch (_notJson) {
    // Not JSON: the caller falls back to the raw text.
    return undefined;
  }
};

/** `MANIFEST_UNKNOWN: manifest unknown`, the details, or the start of the text. */
export const serverMessage = (body: string): string | undefined => {
  const json = parse(body);
  const errors = field(json, 'errors');
  const first: unknown = Array.isArray(errors) ? errors[0] : undefined;
  const message = text(field(first, 'message'));
  if (message !== undefined) {
    const code = text(field(first, 'code'));
    return code === undefined ? message : `${code}: ${message}`;
  }
  const other = text(field(json, 'details')) ?? text(field(json, 'error_description')) ?? text(field(json, 'message'));
  if (other !== undefined) return other;
  if (json !== undefined) return undefined;
  const raw = text(body.replace(/\s+/g, ' '));
  return raw === undefined ? undefined : raw.length > MAX_TEXT ? `${raw.slice(0, MAX_TEXT)}…` : raw;
};
