-- Spent client_ids (docs/engine.md, "Idempotency"): a client_id is unique per account forever. When an account
-- actor forgets a client_id record (past its replay window, docs/engine.md "Limits"), what a later retry needs is
-- written here in the same statement as the journal events of the decision that forgot it: the order it placed,
-- the request's fingerprint and the answer first given (`response`, as the API sent it). Rows are only ever
-- inserted (a record never changes); a replay that forgets one again finds it here and leaves it.
CREATE TABLE engine_client_ids (
  account_id uuid NOT NULL,
  client_id text NOT NULL,
  order_id uuid NOT NULL,
  recorded_at bigint NOT NULL,
  fingerprint text NOT NULL,
  response json NOT NULL,
  PRIMARY KEY (account_id, client_id)
);

-- Snapshots written before the filter of forgotten client_ids existed do not carry it: each account replays
-- its whole journal once, which rebuilds the filter and writes the rows above for every client_id it forgets.
DELETE FROM engine_snapshots;
