-- What a restart continues from besides the journal (docs/engine.md, "Restarts"): the last prices of every
-- symbol, the prices each funding boundary is paid at, and the latest funding boundary each partition was
-- paid for. Prices are decimal text on the symbol's tick grid (read back onto the grid of the catalogue then).
-- `set_at` is the epoch ms the prices were set: a write never replaces newer prices with older ones.
CREATE TABLE engine_prices (
  symbol text PRIMARY KEY,
  mark_price numeric NOT NULL,
  index_price numeric NOT NULL,
  skew bigint NOT NULL,
  set_at bigint NOT NULL
);

-- The prices a funding boundary pays at, written before its tick runs (the first write wins, so a tick tried
-- again after a restart pays at the prices of its boundary); dropped once every partition was paid for it.
CREATE TABLE engine_funding_prices (
  boundary bigint NOT NULL,
  symbol text NOT NULL,
  mark_price numeric NOT NULL,
  index_price numeric NOT NULL,
  PRIMARY KEY (boundary, symbol)
);

-- The latest funding boundary each partition's accounts were paid for (a tick that reached every shard).
CREATE TABLE engine_funding_ticks (
  partition integer PRIMARY KEY,
  boundary bigint NOT NULL
);
