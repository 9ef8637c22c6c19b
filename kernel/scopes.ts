// Permission scopes and what each endpoint class requires (docs/openapi.yaml, "Scopes on /v1"): any scope
// reads; TRADE or MANAGE_ORDERS trades; only MANAGE_ORDERS cancels and amends.
export const SCOPES = ["READ_ONLY", "TRADE", "MANAGE_ORDERS"] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

const GRANTS: Record<Scope, readonly Scope[]> = {
  READ_ONLY: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
  TRADE: ["TRADE", "MANAGE_ORDERS"],
  MANAGE_ORDERS: ["MANAGE_ORDERS"],
};

/** Does a key holding `granted` satisfy an endpoint that requires `required`? */
export function satisfies(granted: readonly Scope[], required: Scope): boolean {
  const accepted = GRANTS[required];
  return granted.some((scope) => accepted.includes(scope));
}

/** The scopes that grant `required`, the narrowest first. */
export function grantedBy(required: Scope): readonly Scope[] {
  return GRANTS[required];
}
