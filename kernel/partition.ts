// Account → partition → shard. The partition of an account never changes (it is stored with the account);
// engine processes own { p : p % ENGINE_COUNT == ENGINE_INDEX } (docs/scale-out.md) and spread them over their
// shards, so resharding moves whole partitions.
import { randomFillSync } from "node:crypto";

/** Fixed number of partitions; accounts are stored with theirs, so this never changes. */
export const PARTITIONS = 256;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * FNV-1a, 32 bits, over the UTF-8 bytes of `text`. Ids are ASCII, where a character is its own byte: hashed
 * from the string directly, without encoding it into a new Buffer on every call (the shards and the gateway
 * route every request through this).
 */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return fnv1a32Bytes(Buffer.from(text, "utf8"));
    hash ^= code;
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

function fnv1a32Bytes(bytes: Uint8Array): number {
  let hash = FNV_OFFSET;
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** The partition of an account id (ids are canonical lower-case UUIDs). */
export function partitionOf(accountId: string): number {
  return fnv1a32(accountId) % PARTITIONS;
}

/** The engine process (of `engines`) that owns a partition: engine k owns { p : p % engines == k }. */
export function engineOfPartition(partition: number, engines: number): number {
  return partition % engines;
}

/** The partitions engine `engine` (of `engines`) owns. */
export function partitionsOfEngine(engine: number, engines: number): number[] {
  const owned: number[] = [];
  for (let partition = engine; partition < PARTITIONS; partition += engines) owned.push(partition);
  return owned;
}

/**
 * The shard (of `shards` in one engine of `engines`) that holds a partition: its rank among the engine's
 * partitions, modulo the shards. `partition % shards` would alias: with 2 engines and 2 shards every partition
 * engine 0 owns is even and would land on shard 0.
 */
export function shardOfPartition(partition: number, shards: number, engines = 1): number {
  return Math.floor(partition / engines) % shards;
}

export function shardOf(accountId: string, shards: number, engines = 1): number {
  return shardOfPartition(partitionOf(accountId), shards, engines);
}

/**
 * A fresh id that names its account's partition in its first byte, so a request that carries only the id
 * (cancel an order by order_id) reaches the right shard without a lookup. Still a valid v4 UUID.
 */
export function idInPartition(partition: number, uuid: string): string {
  return partition.toString(16).padStart(2, "0") + uuid.slice(2);
}

const HEX_DIGITS = Buffer.from("0123456789abcdef", "latin1");
/** Random bytes for 256 ids at a time, refilled from the CSPRNG (as node:crypto's randomUUID pools them). */
const entropy = Buffer.alloc(16 * 256);
let entropyAt = entropy.length;
/** The id's text, written byte by byte and read out as one string. */
const idText = Buffer.alloc(36);

/**
 * `idInPartition(partition, randomUUID())`, made cheaper: a random v4 UUID whose first byte is `partition`,
 * returned as one flat string. randomUUID joins 2-character pieces, a tree of strings that every Map the id
 * keys (orders, working orders, the shard's id index) must flatten before hashing it; an id written into a
 * buffer and decoded once costs about half as much, lookups included (docs/performance.md).
 */
export function mintIdInPartition(partition: number): string {
  if (entropyAt === entropy.length) {
    randomFillSync(entropy);
    entropyAt = 0;
  }
  const from = entropyAt;
  entropyAt += 16;
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) idText[at++] = 0x2d; // "-"
    // Byte 0 is the partition; byte 6 carries the version (4), byte 8 the RFC 4122 variant (10xx xxxx).
    let byte = entropy[from + i] ?? 0;
    if (i === 0) byte = partition & 0xff;
    else if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    idText[at++] = HEX_DIGITS[byte >> 4] ?? 0;
    idText[at++] = HEX_DIGITS[byte & 0x0f] ?? 0;
  }
  return idText.toString("latin1", 0, 36);
}

/** The partition named by an id made with `idInPartition`; undefined for anything else. */
export function partitionOfId(id: string): number | undefined {
  const partition = Number.parseInt(id.slice(0, 2), 16);
  return Number.isInteger(partition) && partition < PARTITIONS ? partition : undefined;
}

/** The partitions a shard owns (shard `shard` of `shards` in engine `engine` of `engines`). */
export function partitionsOfShard(shard: number, shards: number, engine = 0, engines = 1): number[] {
  return partitionsOfEngine(engine, engines).filter(
    (partition) => shardOfPartition(partition, shards, engines) === shard,
  );
}

/**
 * A fresh account id whose partition engine `engine` (of `engines`) owns: account ids are hashed
 * (`partitionOf`), so draw until one lands (`engines` draws on average).
 */
export function accountIdFor(engine: number, engines: number, uuid: () => string): string {
  for (;;) {
    const id = uuid();
    if (engineOfPartition(partitionOf(id), engines) === engine) return id;
  }
}
