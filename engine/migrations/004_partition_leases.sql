-- Scale-out (docs/scale-out.md): the engine process that owns each partition, until when, and under which epoch.
-- An engine takes a partition only when its lease is free or expired (by this database's clock), raising the
-- epoch; every journal append calls engine_fence in the same statement, so a writer whose lease expired or was
-- taken over (epoch moved) writes nothing.
CREATE TABLE engine_partition_leases (
  partition integer PRIMARY KEY CHECK (partition >= 0),
  -- The holder's process-unique id (engine-<index>-<uuid>); '' before the first owner.
  owner text NOT NULL,
  -- Raised by one on every takeover; 0 before the first owner.
  epoch bigint NOT NULL CHECK (epoch >= 0),
  expires_at timestamptz NOT NULL
);

-- Raises FTS01 unless `fence_owner` holds every partition in `fence_partitions` with the epoch at the same
-- position of `fence_epochs`, unexpired. FOR KEY SHARE orders it with a takeover (which locks FOR UPDATE): either
-- the append commits before the takeover reads the rows, or it waits, sees the new owner and raises. A renewal
-- (a plain UPDATE of non-key columns) does not conflict with it.
CREATE FUNCTION engine_fence(fence_owner text, fence_partitions integer[], fence_epochs bigint[])
RETURNS boolean
LANGUAGE plpgsql
AS $$
DECLARE
  held integer;
BEGIN
  SELECT count(*) INTO held FROM (
    SELECT 1
      FROM engine_partition_leases l
      JOIN unnest(fence_partitions, fence_epochs) AS f(partition, epoch) ON f.partition = l.partition
     WHERE l.owner = fence_owner AND l.epoch = f.epoch AND l.expires_at > now()
       FOR KEY SHARE OF l
  ) AS leased;
  IF held <> cardinality(fence_partitions) THEN
    RAISE EXCEPTION 'partition lease not held by %', fence_owner USING ERRCODE = 'FTS01';
  END IF;
  RETURN true;
END
$$;
