import { isObject, type Json, type JsonObject } from './fake-api-patch.js';

// What a real kube-apiserver refuses of an events.k8s.io/v1 Event, so the
// fake refuses it too: kubernetes pkg/apis/core/validation/events.go
// (ValidateEventCreate, ValidateEventUpdate — a PATCH is an update), and the
// decoding that runs before validation (metav1.MicroTime parses exactly six
// fractional digits). Field paths are the apiserver's internal names
// (`count`, `message`, `involvedObject`…), as in its own 422 messages, and
// lengths are Go's len: UTF-8 bytes. Without this the fake accepted Events
// the real server answers 422, and the adapter's tests were green while
// production warned every tick.

/** A field error, worded as apimachinery's `field.Error.Error()` words it. */
type FieldError = string;

const required = (path: string): FieldError => `${path}: Required value`;
const invalid = (path: string, value: Json | undefined, detail: string): FieldError =>
  `${path}: Invalid value: ${JSON.stringify(value ?? '')}: ${detail}`;

const ReportingInstanceLengthLimit = 128;
const ActionLengthLimit = 128;
const ReasonLengthLimit = 128;
const NoteLengthLimit = 1024;

const str = (value: Json | undefined): string => (typeof value === 'string' ? value : '');
/** Go's len(string): bytes, not UTF-16 code units. */
const goLen = (value: Json | undefined): number => Buffer.byteLength(str(value), 'utf8');
const obj = (value: Json | undefined): JsonObject => (isObject(value) ? value : {});

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

const isDns1123Subdomain = (value: string): boolean => value.length <= 253 && DNS1123_SUBDOMAIN.test(value);

/** validation.IsQualifiedName: an optional DNS-subdomain prefix and `/`, then a name part of at most 63. */
const qualifiedNameProblems = (value: string): string[] => {
  const parts = value.split('/');
  const name = parts.at(-1) ?? '';
  const problems: string[] = [];
  if (parts.length > 2) return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.'"];
  if (parts.length === 2 && !isDns1123Subdomain(parts[0] ?? '')) {
    problems.push('prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters');
  }
  if (name.length > 63) problems.push('name part must be no more than 63 characters');
  if (!QUALIFIED_NAME_PART.test(name)) {
    problems.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    );
  }
  return problems;
};

// ---- decoding (400 BadRequest): what cannot even become an Event object ----

/** metav1.RFC3339Micro, which MicroTime.UnmarshalJSON parses with: exactly six fractional digits. */
const RFC3339_MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const microTimeProblem = (path: string, value: Json | undefined): string | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return `${path}: json: cannot unmarshal ${typeof value} into Go value of type string`;
  if (RFC3339_MICRO.test(value)) return undefined;
  // The real apiserver names no field here: MicroTime's UnmarshalJSON returns time.Parse's error as it is.
  return `parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse ${JSON.stringify(value.slice(19))} as ".000000"`;
};

const timeProblem = (value: Json | undefined): string | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && RFC3339.test(value)) return undefined;
  return `parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05Z07:00": cannot parse`;
};

/** Why the apiserver cannot decode this body into an Event (a 400), or undefined. */
export const decodeProblem = (event: JsonObject): string | undefined => {
  const problem =
    microTimeProblem('eventTime', event.eventTime) ??
    microTimeProblem('series.lastObservedTime', obj(event.series).lastObservedTime) ??
    timeProblem(event.deprecatedFirstTimestamp) ??
    timeProblem(event.deprecatedLastTimestamp);
  if (problem === undefined) return undefined;
  return `Event in version "v1" cannot be handled as a Event: ${problem}`;
};

// ---- validation (422 Invalid) ----

const isZeroTime = (value: Json | undefined): boolean => value === undefined || value === null || value === '';

/** legacyValidateEvent, the half that applies to an Event with an eventTime (all of events.k8s.io/v1's). */
const legacyValidateEvent = (namespace: string, event: JsonObject): FieldError[] => {
  const errors: FieldError[] = [];
  const regarding = obj(event.regarding);
  if (isZeroTime(event.eventTime)) {
    // Validating an "old" Event: only the namespace agreement applies.
    const theirs = str(regarding.namespace);
    if (theirs === '' ? namespace !== '' && namespace !== 'default' : theirs !== namespace) {
      errors.push(invalid('involvedObject.namespace', theirs, 'does not match event.namespace'));
    }
    return errors;
  }
  if (str(regarding.namespace) === '' && namespace !== 'default' && namespace !== 'kube-system') {
    errors.push(invalid('involvedObject.namespace', '', 'does not match event.namespace'));
  }
  const controller = str(event.reportingController);
  if (controller === '') errors.push(required('reportingController'));
  for (const problem of qualifiedNameProblems(controller))
    errors.push(invalid('reportingController', controller, problem));
  if (str(event.reportingInstance) === '') errors.push(required('reportingInstance'));
  if (goLen(event.reportingInstance) > ReportingInstanceLengthLimit) {
    errors.push(invalid('reportingInstance', '', `can have at most ${ReportingInstanceLengthLimit} characters`));
  }
  if (str(event.action) === '') errors.push(required('action'));
  if (goLen(event.action) > ActionLengthLimit) {
    errors.push(invalid('action', '', `can have at most ${ActionLengthLimit} characters`));
  }
  if (str(event.reason) === '') errors.push(required('reason'));
  if (goLen(event.reason) > ReasonLengthLimit) {
    errors.push(invalid('reason', '', `can have at most ${ReasonLengthLimit} characters`));
  }
  if (goLen(event.note) > NoteLengthLimit) {
    errors.push(invalid('message', '', `can have at most ${NoteLengthLimit} characters`));
  }
  return errors;
};

const validateV1EventSeries = (event: JsonObject): FieldError[] => {
  if (event.series === undefined || event.series === null) return [];
  const series = obj(event.series);
  const errors: FieldError[] = [];
  if (!(typeof series.count === 'number' && series.count >= 2)) {
    errors.push(invalid('series.count', '', 'should be at least 2'));
  }
  if (isZeroTime(series.lastObservedTime)) errors.push(required('series.lastObservedTime'));
  return errors;
};

/** ValidateEventCreate for a request to events.k8s.io/v1. */
export const validateEventCreate = (namespace: string, event: JsonObject): FieldError[] => {
  const errors = legacyValidateEvent(namespace, event);
  const name = str(obj(event.metadata).name);
  if (name === '') errors.push(required('metadata.name'));
  else if (!isDns1123Subdomain(name)) {
    errors.push(
      invalid(
        'metadata.name',
        name,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
      ),
    );
  }
  errors.push(...validateV1EventSeries(event));
  if (isZeroTime(event.eventTime)) errors.push(required('eventTime'));
  if (event.type !== 'Normal' && event.type !== 'Warning') {
    errors.push(invalid('type', '', `has invalid value: ${str(event.type)}`));
  }
  if (!isZeroTime(event.deprecatedFirstTimestamp)) errors.push(invalid('firstTimestamp', '', 'needs to be unset'));
  if (!isZeroTime(event.deprecatedLastTimestamp)) errors.push(invalid('lastTimestamp', '', 'needs to be unset'));
  if (typeof event.deprecatedCount === 'number' && event.deprecatedCount !== 0) {
    errors.push(invalid('count', '', 'needs to be unset'));
  }
  const source = obj(event.deprecatedSource);
  if (str(source.component) !== '' || str(source.host) !== '') errors.push(invalid('source', '', 'needs to be unset'));
  return errors;
};

/** JSON with sorted keys and Go's zero values dropped: equal here ⇔ reflect.DeepEqual there, for these fields. */
const canonical = (value: Json | undefined): string => {
  if (value === undefined || value === null || value === '' || value === 0) return 'zero';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => [k, canonical(value[k])] as const)
      .filter(([, v]) => v !== 'zero');
    return entries.length === 0 ? 'zero' : `{${entries.map(([k, v]) => `${k}:${v}`).join(',')}}`;
  }
  return JSON.stringify(value);
};

/** A timestamp at the precision the apiserver keeps it (metav1.Time: seconds; MicroTime: microseconds). */
const atPrecision =
  (digits: 0 | 6) =>
  (value: Json | undefined): string => {
    if (typeof value !== 'string') return 'zero';
    const match = /^(.{19})(\.\d+)?(.*)$/.exec(value);
    if (match === null) return value;
    const seconds = Math.floor(Date.parse(`${match[1]}${match[3] === '' ? 'Z' : match[3]}`) / 1000);
    return `${seconds}${digits === 0 ? '' : `.${(match[2] ?? '.').slice(1).padEnd(6, '0').slice(0, 6)}`}`;
  };

/** Immutable once created: [events.k8s.io/v1 field, the internal path the apiserver names, comparable form]. */
const IMMUTABLE: readonly (readonly [string, string, (value: Json | undefined) => string])[] = [
  ['regarding', 'involvedObject', canonical],
  ['reason', 'reason', canonical],
  ['note', 'message', canonical],
  ['deprecatedSource', 'source', canonical],
  ['deprecatedFirstTimestamp', 'firstTimestamp', atPrecision(0)],
  ['deprecatedLastTimestamp', 'lastTimestamp', atPrecision(0)],
  ['deprecatedCount', 'count', canonical],
  ['type', 'type', canonical],
  ['eventTime', 'eventTime', atPrecision(6)],
  ['action', 'action', canonical],
  ['related', 'related', (value) => (value === undefined || value === null ? 'nil' : canonical(value))],
  ['reportingController', 'reportingController', canonical],
  ['reportingInstance', 'reportingInstance', canonical],
];

const seriesForm = (value: Json | undefined): string => {
  if (value === undefined || value === null) return 'nil';
  const series = obj(value);
  return `${canonical(series.count)}@${atPrecision(6)(series.lastObservedTime)}`;
};

/** ValidateEventUpdate for a request to events.k8s.io/v1 (a PATCH is validated as the update it makes). */
export const validateEventUpdate = (namespace: string, updated: JsonObject, old: JsonObject): FieldError[] => {
  const errors = legacyValidateEvent(namespace, updated);
  for (const key of ['name', 'namespace', 'uid'] as const) {
    const now = obj(updated.metadata)[key];
    if (canonical(now) !== canonical(obj(old.metadata)[key])) {
      errors.push(invalid(`metadata.${key}`, now, 'field is immutable'));
    }
  }
  if (seriesForm(updated.series) !== seriesForm(old.series)) errors.push(...validateV1EventSeries(updated));
  for (const [field, path, form] of IMMUTABLE) {
    if (form(updated[field]) !== form(old[field]))
      errors.push(invalid(path, shown(field, updated[field]), 'field is immutable'));
  }
  return errors;
};

/**
 * How an immutable field's value is echoed: as the internal object holds it, so a deprecated
 * timestamp (a metav1.Time) comes back in whole seconds, `2026-11-30T12:15:00Z`, whatever was sent
 * (the real apiserver showed it; the fake once echoed the raw string).
 */
const shown = (field: string, value: Json | undefined): Json | undefined =>
  (field === 'deprecatedFirstTimestamp' || field === 'deprecatedLastTimestamp') && typeof value === 'string'
    ? new Date(Math.floor(Date.parse(value) / 1000) * 1000).toISOString().replace('.000Z', 'Z')
    : value;

/**
 * apierrors.NewInvalid's message: one error as is, several as a bracketed list. The kind is the
 * internal core `Event`, not `Event.events.k8s.io`: events.k8s.io/v1 is served from core's Events
 * (the real apiserver says `Event "<name>" is invalid`; the fake once qualified it).
 */
export const invalidMessage = (name: string, errors: readonly FieldError[]): string =>
  `Event ${JSON.stringify(name)} is invalid: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`;
