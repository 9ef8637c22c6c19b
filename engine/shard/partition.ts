// Account → partition → shard. The partition of an account never changes (it is stored with the account);
// shards and engine replicas own sets of partitions, so resharding moves whole partitions.

/** Fixed number of partitions; accounts are stored with theirs, so this never changes. */
export const PARTITIONS = 256;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** The partition of an account id (ids are canonical lower-case UUIDs). */
export function partitionOf(accountId: string): number {
  return fnv1a32(accountId) % PARTITIONS;
}

export function shardOfPartition(partition: number, shards: number): number {
  return partition % shards;
}

export function shardOf(accountId: string, shards: number): number {
  return shardOfPartition(partitionOf(accountId), shards);
}

/**
 * A fresh id that names its account's partition in its first byte, so a request that carries only the id
 * (cancel an order by order_id) reaches the right shard without a lookup. Still a valid v4 UUID.
 */
export function idInPartition(partition: number, uuid: string): string {
  return partition.toString(16).padStart(2, "0") + uuid.slice(2);
}

/** The partition named by an id made with `idInPartition`; undefined for anything else. */
export function partitionOfId(id: string): number | undefined {
  const partition = Number.parseInt(id.slice(0, 2), 16);
  return Number.isInteger(partition) && partition < PARTITIONS ? partition : undefined;
}

/** The partitions a shard owns. */
export function partitionsOfShard(shard: number, shards: number): number[] {
  const owned: number[] = [];
  for (let partition = shard; partition < PARTITIONS; partition += shards) owned.push(partition);
  return owned;
}
