// Opening an account (POST /v1/account): the plan, the default venue and the label checked, then the one
// AccountOpened event that carries a frozen copy of the plan.
import { PLANS } from "../basics/plans.js";
import { accountRecord } from "../accounts/queries.js";
import { defaultVenueFor, type AccountState } from "../basics/account-state.js";
import { VENUES, type Venue } from "../market/types.js";
import { usdToUnits } from "../market/units.js";
import type { EngineEvent } from "../basics/events.js";
import { conflict, invalid } from "../basics/replies.js";
import type { Issue } from "../../kernel/errors.js";
import { characterCount, unreadableText } from "../../kernel/text.js";
import { apply } from "./apply.js";
import type { DecideContext, Decision, OpenAccountRequest } from "./commands.js";

const LABEL_MAX = 100;

export function openAccount(
  state: AccountState | undefined,
  request: OpenAccountRequest,
  ctx: DecideContext,
): Decision {
  if (state !== undefined) return { events: [], reply: conflict({ reason: "account_exists" }) };
  const issues: Issue[] = [];
  const plan = (ctx.plans ?? PLANS).byKey(request.plan_id);
  if (plan === undefined) issues.push({ path: "plan_id", message: "unknown plan; see GET /v1/plans" });
  let venue: Venue | null = null;
  const requested = request.default_venue;
  if (requested !== null && requested !== undefined) {
    if (!(VENUES as readonly string[]).includes(requested)) {
      issues.push({ path: "default_venue", message: `must be one of ${VENUES.join(", ")}` });
    } else if (plan !== undefined && !(plan.allowed_venues as readonly string[]).includes(requested)) {
      issues.push({ path: "default_venue", message: "the plan does not allow this venue" });
    } else {
      venue = requested as Venue;
    }
  }
  const label = request.label ?? null;
  if (label !== null && (typeof label !== "string" || characterCount(label) > LABEL_MAX)) {
    issues.push({ path: "label", message: `must be a string of at most ${LABEL_MAX} characters` });
  } else if (label !== null) {
    const unreadable = unreadableText(label);
    if (unreadable !== undefined) issues.push({ path: "label", message: unreadable });
  }
  if (issues.length > 0 || plan === undefined) return { events: [], reply: invalid(issues) };
  const event: EngineEvent = {
    type: "AccountOpened",
    at: ctx.now,
    account_id: request.account_id,
    user_id: request.user_id,
    plan: JSON.parse(JSON.stringify(plan)) as typeof plan,
    label,
    default_venue: defaultVenueFor(plan, venue),
    allowed_venues: [...plan.allowed_venues],
    starting_balance: usdToUnits(plan.starting_balance),
  };
  return { events: [event], reply: { kind: "created", account: accountRecord(apply(undefined, event), ctx.market) } };
}
