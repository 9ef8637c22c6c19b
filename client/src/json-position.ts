// Where a text stops being JSON, so an error can name a line and column of a file without quoting it (the
// SyntaxError of JSON.parse quotes the text around the fault, which in a profile file is a secret).

/** The offset of the first character at which `text` is not JSON (`text.length` when it ends too soon), or -1. */
export function jsonErrorOffset(text: string): number {
  const scan = new Scanner(text);
  try {
    scan.document();
    return -1;
  } catch (error) {
    if (error instanceof Fault) return error.offset;
    throw error;
  }
}

/** 1-based line and column of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lines = before.split("\n");
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
}

class Fault extends Error {
  constructor(readonly offset: number) {
    super(`not JSON at offset ${String(offset)}`);
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/** A JSON syntax check without recursion: containers open on a stack. */
class Scanner {
  private at = 0;
  private readonly open: string[] = [];

  constructor(private readonly text: string) {}

  document(): void {
    this.value();
    for (;;) {
      this.space();
      const top = this.open.at(-1);
      if (top === undefined) {
        if (this.at !== this.text.length) throw new Fault(this.at);
        return;
      }
      const char = this.text[this.at];
      if (char === ",") {
        this.at++;
        if (top === "{") this.key();
        this.value();
      } else if (char === (top === "{" ? "}" : "]")) {
        this.at++;
        this.open.pop();
      } else {
        throw new Fault(this.at);
      }
    }
  }

  /** One value; a container is left open once its first member is read. */
  private value(): void {
    for (;;) {
      this.space();
      const char = this.text[this.at];
      if (char === "{" || char === "[") {
        this.at++;
        this.space();
        if (this.text[this.at] === (char === "{" ? "}" : "]")) {
          this.at++;
          return;
        }
        this.open.push(char);
        if (char === "{") this.key();
        continue;
      }
      if (char === '"') this.string();
      else if (!this.literal() && !this.match(NUMBER)) throw new Fault(this.at);
      return;
    }
  }

  private key(): void {
    this.space();
    if (this.text[this.at] !== '"') throw new Fault(this.at);
    this.string();
    this.space();
    if (this.text[this.at] !== ":") throw new Fault(this.at);
    this.at++;
  }

  private string(): void {
    this.at++;
    for (;;) {
      const char = this.text[this.at];
      if (char === undefined || char < " ") throw new Fault(this.at);
      if (char === '"') {
        this.at++;
        return;
      }
      if (char === "\\") {
        if (!this.match(ESCAPE)) throw new Fault(this.at);
      } else {
        this.at++;
      }
    }
  }

  private literal(): boolean {
    for (const word of ["true", "false", "null"]) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return true;
      }
    }
    return false;
  }

  private match(pattern: RegExp): boolean {
    pattern.lastIndex = this.at;
    if (!pattern.test(this.text)) return false;
    this.at = pattern.lastIndex;
    return true;
  }

  private space(): void {
    while (this.at < this.text.length && " \t\n\r".includes(this.text[this.at] ?? "")) this.at++;
  }
}
