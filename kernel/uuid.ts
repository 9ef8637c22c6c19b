// Identifiers on every API are UUIDs (docs/openapi.yaml, "Identifiers are UUIDs"). A caller may spell one in
// either case; the services mint them in lower case and compare them in lower case.

/** A UUID in its text form, 8-4-4-4-12 hexadecimal digits, in either case. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID in either case. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
