// Request shapes of the /v1 surface (snake_case). The gateway checks shape only: types, enums, unknown
// fields. Business rules (grids, combinations, ownership) live in the engine, which answers with issues.
import { z } from "zod";
import { UUID_PATTERN, isUuid } from "../../kernel/uuid.js";
import { OrderKind, Side, TimeInForce, Venue } from "../../kernel/vocabulary.js";
import { checkListAfterId, checkListLimit, type Checked } from "../../kernel/list-range.js";

/** A JSON number or a decimal string, passed on as exact decimal text (`1e-7` becomes `"0.0000001"`). */
export const decimal = z
  .union([z.number(), z.string()], { message: "must be a number or a decimal string" })
  .transform((value, ctx) => {
    const text = typeof value === "number" ? numberToDecimal(value) : value;
    if (text === undefined || !/^-?\d+(\.\d+)?$/.test(text)) {
      ctx.addIssue({ code: "custom", message: 'must be a number or a decimal string such as "0.015"' });
      return z.NEVER;
    }
    return text;
  });

/** The shortest decimal text of a finite double, without exponent notation. */
export function numberToDecimal(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  const text = String(value);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (match === null) return text;
  const [, sign = "", int = "", frac = "", exp = "0"] = match;
  const digits = int + frac;
  const point = int.length + Number(exp);
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

const uuid = z.string().regex(UUID_PATTERN, "must be a UUID");
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

export const PlaceOrderBody = z.strictObject({
  account_id: uuid,
  symbol: z.string().min(1).max(32),
  side: z.enum(Side),
  kind: z.enum(OrderKind),
  quantity: decimal,
  limit_price: optional(decimal),
  trigger_price: optional(decimal),
  time_in_force: optional(z.enum(TimeInForce)),
  expire_at: optional(z.string().max(64)),
  post_only: optional(z.boolean()),
  reduce_only: optional(z.boolean()),
  index_trigger: optional(z.boolean()),
  mark_trigger: optional(z.boolean()),
  client_id: optional(z.string().min(1).max(64)),
  venue: optional(z.enum(Venue)),
  parent_order_id: optional(uuid),
  position_id: optional(uuid),
});

export const CreateAccountBody = z.strictObject({
  plan_id: uuid,
  default_venue: optional(z.enum(Venue)),
  // At most 100 characters (code points), checked by the engine, which owns the rule (engine/core/open-account.ts).
  label: optional(z.string()),
});

export const ClosePositionBody = z.strictObject({
  account_id: uuid,
  symbol: z.string().min(1).max(32),
  quantity: optional(decimal),
  kind: optional(z.enum([OrderKind.MARKET, OrderKind.LIMIT])),
  price: optional(decimal),
  time_in_force: optional(z.enum(TimeInForce)),
  client_id: optional(z.string().min(1).max(64)),
  venue: optional(z.enum(Venue)),
  position_id: optional(uuid),
});

export const AmendOrderBody = z
  .strictObject({
    trigger_price: optional(decimal),
    limit_price: optional(decimal),
    quantity: optional(decimal),
  })
  .refine((b) => b.trigger_price !== undefined || b.limit_price !== undefined || b.quantity !== undefined, {
    message: "name at least one of trigger_price, limit_price, quantity",
  });

/** A field checked by a rule of its owner: the rule's message is the issue's. */
const checkedBy = <T>(check: (text: string) => Checked<T>) =>
  z.string().transform((text, ctx) => {
    const checked = check(text);
    if (checked.ok) return checked.value;
    ctx.addIssue({ code: "custom", message: checked.issue.message });
    return z.NEVER;
  });

/** The shape of a list query; `from` and `to` are judged apart (kernel/list-range.ts). */
export const ListQuery = z.strictObject({
  from: optional(z.string()),
  to: optional(z.string()),
  // Clamped here, not only by the engine: the gRPC field is an int32, and 4294967297 would arrive as 1.
  limit: optional(checkedBy(checkListLimit)),
  // The keyset cursor: the last row's fill_id or position_id, with `from` set to that row's time.
  after_id: optional(checkedBy(checkListAfterId)),
});

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`);

/** The query of a view that takes no parameter: any one given is 400 (a misspelt filter must not be ignored). */
export const NoQuery = z.strictObject({});

/** GET /v1/account/:id/orders: the working orders, or with `client_id` the order placed with it. */
export const OrdersQuery = z.strictObject({
  client_id: optional(z.string().regex(/^[\x20-\x7e]{1,64}$/, "must be 1 to 64 printable ASCII characters")),
});

/** GET /v1/account/:id/events (docs/webhooks.md, "Catching up"). */
export const EventsQuery = z.strictObject({
  after: optional(wholeNumber(0, Number.MAX_SAFE_INTEGER)),
  // Like the other lists: at least 1, and anything above 1000 is read as 1000.
  limit: optional(wholeNumber(1, Number.MAX_SAFE_INTEGER).transform((n) => Math.min(n, 1000))),
});

/** GET /api/api-keys/:id/deliveries. */
export const DeliveriesQuery = z.strictObject({
  limit: optional(wholeNumber(1, 200)),
  before: optional(z.string().refine((v) => isUuid(v), "must be a delivery id")),
});

export const CalendarQuery = z.strictObject({
  from: optional(z.string()),
  to: optional(z.string()),
  symbol: optional(z.string().max(32)),
});

export { isUuid };
