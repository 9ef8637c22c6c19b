// Free text the API stores for people to read (labels, calendar titles). No control character: C0 (U+0000–U+001F),
// DEL (U+007F) or C1 (U+0080–U+009F). They are never meant there, and PostgreSQL text cannot hold NUL at all (a NUL
// reached the database as a 500). No bidirectional formatting character either: an override or isolate
// (U+202A–U+202E, U+2066–U+2069) or a direction mark (U+200E, U+200F, U+061C) makes a label display differently
// from what it holds ("Trojan Source"), e.g. a key named to look like another one. No lone surrogate: it is no
// character and would not read back as it was written. Lengths count characters (code points), not UTF-16 units.

/** Whether `text` holds a C0 or C1 control character or DEL. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

/** Whether `text` holds a bidirectional override, embedding, isolate or direction mark. */
export function hasBidiControl(text: string): boolean {
  return BIDI.test(text);
}

/**
 * Whether `text` holds a lone UTF-16 surrogate (JSON's "\ud800" escape parses into one): it is no character,
 * and storing it as UTF-8 turns it into U+FFFD, so the text read back differs from the text accepted.
 */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** Characters (Unicode code points, as PostgreSQL counts them), not UTF-16 units: an emoji is one. */
export function characterCount(text: string): number {
  // Each low surrogate that completes a pair belongs to the character before it.
  let count = text.length;
  for (let i = 1; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xdc00 && unit <= 0xdfff) {
      const before = text.charCodeAt(i - 1);
      if (before >= 0xd800 && before <= 0xdbff) count--;
    }
  }
  return count;
}

/** Why `text` cannot be stored for people to read ("must not contain …"), or undefined when it can. */
export function unreadableText(text: string): string | undefined {
  if (hasControlCharacter(text)) return CONTROL_MESSAGE;
  if (hasBidiControl(text)) return BIDI_MESSAGE;
  if (hasLoneSurrogate(text)) return SURROGATE_MESSAGE;
  return undefined;
}

export const CONTROL_MESSAGE = "must not contain control characters";
export const BIDI_MESSAGE =
  "must not contain bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)";

export const SURROGATE_MESSAGE = "must not contain an unpaired surrogate (U+D800–U+DFFF): it is not a character";

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
