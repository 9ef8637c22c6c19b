// PGlite has one session: it is lent to one connection at a time, the others wait in line (docs/embedded-database.md).
import type { PGlite } from "@electric-sql/pglite";

export type Turn = () => Promise<void>;

/**
 * Who holds PGlite's one session and who waits for it. A turn runs with the session until it hands it back;
 * waiting turns run in arrival order.
 */
export class Session {
  private holder: object | undefined;
  private readonly line: { owner: object; turn: Turn }[] = [];

  constructor(private readonly db: PGlite) {}

  get waiting(): number {
    return this.line.length;
  }

  heldBy(owner: object): boolean {
    return this.holder === owner;
  }

  /** Runs `turn` as soon as the session is free or already held by `owner`. */
  request(owner: object, turn: Turn): void {
    if (this.holder === undefined || this.holder === owner) {
      this.holder = owner;
      void turn();
      return;
    }
    if (!this.line.some((waiting) => waiting.owner === owner)) this.line.push({ owner, turn });
  }

  release(owner: object): void {
    if (this.holder !== owner) return;
    this.holder = undefined;
    const next = this.line.shift();
    if (next === undefined) return;
    this.holder = next.owner;
    void next.turn();
  }

  forget(owner: object): void {
    for (let i = this.line.length - 1; i >= 0; i--) if (this.line[i]?.owner === owner) this.line.splice(i, 1);
  }

  exec(bytes: Uint8Array): Promise<Uint8Array> {
    return this.db.runExclusive(() => this.db.execProtocolRaw(bytes));
  }
}
