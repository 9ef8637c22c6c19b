// Free text the API stores for people to read (labels, calendar titles): no C0 control characters or DEL. They
// are never meant there, and PostgreSQL text cannot hold NUL at all (a NUL reached the database as a 500).

/** Whether `text` holds a C0 control character (U+0000–U+001F) or DEL (U+007F). */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

const CONTROL = /[\u0000-\u001f\u007f]/;
