// The news calendar's durable copy: the one row market.v1 SetCalendar last wrote (engine_calendar).
import type pg from "pg";
import type { NewsEventInput } from "../market/calendar.js";

/** The stored calendar as it was set (inputs, re-validated on load), or undefined when none was ever set. */
export async function loadStoredCalendar(pool: pg.Pool): Promise<NewsEventInput[] | undefined> {
  const result = await pool.query<{ events: NewsEventInput[] }>("SELECT events FROM engine_calendar WHERE id = 1");
  return result.rows[0]?.events;
}

export async function storeCalendar(pool: pg.Pool, events: readonly NewsEventInput[]): Promise<void> {
  await pool.query(
    `INSERT INTO engine_calendar (id, events, updated_at) VALUES (1, $1::jsonb, now())
     ON CONFLICT (id) DO UPDATE SET events = EXCLUDED.events, updated_at = EXCLUDED.updated_at`,
    [JSON.stringify(events)],
  );
}
