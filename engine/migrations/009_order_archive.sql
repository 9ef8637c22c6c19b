-- The order archive (docs/engine.md, "The order archive"): the record of every order an account actor forgot
-- (docs/engine.md, "Limits"), written in the same statement as the journal events of the decision that forgot
-- it, so an order is always in the actor's memory or here (GET /v1/order/:id, the order history, lookup by
-- client_id). Rows are only ever inserted: a forgotten order is final and its record never changes again.
-- `created_at` is the order's creation time in epoch ms (lists are ordered by it, ties by order_id).
CREATE TABLE engine_orders (
  order_id uuid PRIMARY KEY,
  account_id uuid NOT NULL,
  created_at bigint NOT NULL,
  client_id text,
  record json NOT NULL
);

CREATE INDEX engine_orders_by_account ON engine_orders (account_id, created_at, order_id);
CREATE INDEX engine_orders_by_client_id ON engine_orders (account_id, client_id) WHERE client_id IS NOT NULL;
