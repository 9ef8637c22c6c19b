// Free text the API stores for people to read (labels, calendar titles). No control character: C0 (U+0000–U+001F),
// DEL (U+007F) or C1 (U+0080–U+009F). They are never meant there, and PostgreSQL text cannot hold NUL at all (a NUL
// reached the database as a 500). No bidirectional formatting character either: an override or isolate
// (U+202A–U+202E, U+2066–U+2069) or a direction mark (U+200E, U+200F, U+061C) makes a label display differently
// from what it holds ("Trojan Source"), e.g. a key named to look like another one.

/** Whether `text` holds a C0 or C1 control character or DEL. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

/** Whether `text` holds a bidirectional override, embedding, isolate or direction mark. */
export function hasBidiControl(text: string): boolean {
  return BIDI.test(text);
}

/** Why `text` cannot be stored for people to read ("must not contain …"), or undefined when it can. */
export function unreadableText(text: string): string | undefined {
  if (hasControlCharacter(text)) return CONTROL_MESSAGE;
  if (hasBidiControl(text)) return BIDI_MESSAGE;
  return undefined;
}

export const CONTROL_MESSAGE = "must not contain control characters";
export const BIDI_MESSAGE =
  "must not contain bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)";

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
