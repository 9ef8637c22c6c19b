// Finds keys that appear twice in one JSON object. JSON.parse keeps the last of two equal keys without a word,
// so a line such as {"service":"gateway","service":"engine"} parses as the engine's: this scan reads the text
// itself and reports every object's repeated keys, at any depth.

/** A key written twice in one object: `path` names the object (`""` for the top level, `err.cause` below it). */
export interface RepeatedKey {
  path: string;
  key: string;
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

class Scanner {
  at = 0;
  readonly repeated: RepeatedKey[] = [];

  constructor(private readonly text: string) {}

  fail(what: string): never {
    throw new SyntaxError(`${what} at position ${String(this.at)} of ${JSON.stringify(this.text.slice(0, 200))}`);
  }

  space(): void {
    while (this.at < this.text.length && WHITESPACE.has(this.text.charAt(this.at))) this.at++;
  }

  expect(char: string): void {
    this.space();
    if (this.text.charAt(this.at) !== char) this.fail(`expected ${JSON.stringify(char)}`);
    this.at++;
  }

  /** A string token, decoded (so `"a"` and `"\u0061"` are the same key). */
  string(): string {
    this.space();
    const start = this.at;
    if (this.text.charAt(this.at) !== '"') this.fail("expected a string");
    this.at++;
    while (this.at < this.text.length) {
      const char = this.text.charAt(this.at);
      if (char === "\\") this.at += 2;
      else if (char === '"') {
        this.at++;
        return JSON.parse(this.text.slice(start, this.at)) as string;
      } else this.at++;
    }
    return this.fail("unterminated string");
  }

  value(path: string): void {
    this.space();
    const char = this.text.charAt(this.at);
    if (char === "{") this.object(path);
    else if (char === "[") this.array(path);
    else if (char === '"') this.string();
    else {
      SCALAR.lastIndex = this.at;
      if (!SCALAR.test(this.text)) this.fail("expected a value");
      this.at = SCALAR.lastIndex;
    }
  }

  object(path: string): void {
    this.expect("{");
    const seen = new Set<string>();
    this.space();
    if (this.text.charAt(this.at) === "}") {
      this.at++;
      return;
    }
    for (;;) {
      const key = this.string();
      if (seen.has(key)) this.repeated.push({ path, key });
      seen.add(key);
      this.expect(":");
      this.value(path === "" ? key : `${path}.${key}`);
      this.space();
      const next = this.text.charAt(this.at++);
      if (next === "}") return;
      if (next !== ",") this.fail('expected "," or "}"');
    }
  }

  array(path: string): void {
    this.expect("[");
    this.space();
    if (this.text.charAt(this.at) === "]") {
      this.at++;
      return;
    }
    for (let index = 0; ; index++) {
      this.value(`${path}[${String(index)}]`);
      this.space();
      const next = this.text.charAt(this.at++);
      if (next === "]") return;
      if (next !== ",") this.fail('expected "," or "]"');
    }
  }
}

/** Every key written twice in one object of `json`, in the order met; throws a SyntaxError if it is not JSON. */
export function repeatedKeys(json: string): RepeatedKey[] {
  const scanner = new Scanner(json);
  scanner.value("");
  scanner.space();
  if (scanner.at !== json.length) scanner.fail("unexpected text after the value");
  return scanner.repeated;
}
