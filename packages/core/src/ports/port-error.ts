// Errors are values, classified, and keep the server's own words so the log
// line names the real cause (#571: "NotFound, RBAC denial or API error" was
// not an answer an operator could act on).

export type PortErrorTag = 'NotFound' | 'Forbidden' | 'Timeout' | 'Transport' | 'Malformed';

export interface PortError {
  readonly _tag: PortErrorTag;
  /** What the server (or the transport) said, secrets already removed by the adapter. */
  readonly message: string;
  /** HTTP status when there was one. */
  readonly status?: number;
}

const make =
  (tag: PortErrorTag) =>
  (message: string, status?: number): PortError =>
    status === undefined ? { _tag: tag, message } : { _tag: tag, message, status };

export const notFound = make('NotFound');
export const forbidden = make('Forbidden');
export const timeout = make('Timeout');
export const transport = make('Transport');
export const malformed = make('Malformed');

export const PORT_ERROR_TAGS: readonly PortErrorTag[] = ['NotFound', 'Forbidden', 'Timeout', 'Transport', 'Malformed'];

const isPortErrorTag = (value: unknown): value is PortErrorTag =>
  typeof value === 'string' && (PORT_ERROR_TAGS as readonly string[]).includes(value);

export const isPortError = (value: unknown): value is PortError =>
  typeof value === 'object' &&
  value !== null &&
  isPortErrorTag((value as { _tag?: unknown })._tag) &&
  typeof (value as { message?: unknown }).message === 'string';

/** `Forbidden (HTTP 403): deployments.apps "x" is forbidden: …` */
export const describePortError = (e: PortError): string =>
  `${e._tag}${e.status === undefined ? '' : ` (HTTP ${e.status})`}: ${e.message}`;
