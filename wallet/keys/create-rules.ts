// Semantic rules for a new key (docs/decisions.md, "Keys"). The gateway checks JSON shape; these rules live with the owner
// of the keys so every caller, REST or gRPC, gets the same answer. Issue paths use the proto field names.
import { isIP } from "node:net";
import { isNonPublicAddress } from "../../kernel/ssrf.js";
import type { Issue } from "../../kernel/errors.js";
import { parseIsoDateTime } from "../../kernel/time.js";
import { checkEntry } from "../../kernel/ip.js";
import { isScope, type Scope } from "../../kernel/scopes.js";
import { characterCount, unreadableText } from "../../kernel/text.js";

export const MAX_LABEL_LENGTH = 100;
export const MAX_IP_ENTRIES = 100;
export const MAX_URL_LENGTH = 2048;

/** Controls, space and DEL: the URL parser drops tabs and newlines silently, so what is stored would not be what is called. */
const URL_UNSAFE = /[\u0000-\u0020\u007f]/;

export interface CreateInput {
  label: string;
  permissions: readonly string[];
  ip_whitelist: readonly string[];
  webhook_url?: string | undefined;
  expires_at?: string | undefined;
}

export interface ValidCreate {
  label: string;
  permissions: Scope[];
  ipWhitelist: string[];
  webhookUrl: string | undefined;
  expiresAt: Date | undefined;
}

export interface CreateRules {
  /** WEBHOOK_ALLOW_PRIVATE: webhook URLs may name loopback, private or link-local addresses (tests). */
  allowPrivateWebhooks: boolean;
}

export function checkCreate(
  input: CreateInput,
  nowMs: number,
  rules: CreateRules = { allowPrivateWebhooks: false },
): { ok: ValidCreate } | { issues: Issue[] } {
  const issues: Issue[] = [];
  const label = input.label.trim();
  const unreadable = unreadableText(label);
  if (label.length === 0) issues.push({ path: "label", message: "label is required" });
  else if (characterCount(label) > MAX_LABEL_LENGTH)
    issues.push({ path: "label", message: `label must be at most ${MAX_LABEL_LENGTH} characters` });
  else if (unreadable !== undefined) issues.push({ path: "label", message: `label ${unreadable}` });

  const permissions: Scope[] = [];
  if (input.permissions.length === 0) issues.push({ path: "permissions", message: "at least one scope is required" });
  input.permissions.forEach((scope, i) => {
    if (!isScope(scope))
      issues.push({ path: `permissions.${i}`, message: "unknown scope: use READ_ONLY, TRADE or MANAGE_ORDERS" });
    else if (!permissions.includes(scope)) permissions.push(scope);
  });

  if (input.ip_whitelist.length > MAX_IP_ENTRIES)
    issues.push({ path: "ip_whitelist", message: `at most ${MAX_IP_ENTRIES} entries` });
  const ipWhitelist: string[] = [];
  input.ip_whitelist.forEach((raw, i) => {
    const entry = raw.trim();
    const problem = checkEntry(entry);
    if (problem !== undefined) issues.push({ path: `ip_whitelist.${i}`, message: problem });
    else if (!ipWhitelist.includes(entry)) ipWhitelist.push(entry);
  });

  let webhookUrl: string | undefined;
  if (input.webhook_url !== undefined) {
    const checkedUrl = checkWebhookUrl(input.webhook_url, rules.allowPrivateWebhooks);
    if ("problem" in checkedUrl) issues.push({ path: "webhook_url", message: checkedUrl.problem });
    else webhookUrl = checkedUrl.href;
  }

  let expiresAt: Date | undefined;
  if (input.expires_at !== undefined) {
    const parsed = parseIsoDateTime(input.expires_at);
    if (Number.isNaN(parsed))
      issues.push({ path: "expires_at", message: "must be an ISO 8601 date-time with a time zone" });
    else if (parsed <= nowMs) issues.push({ path: "expires_at", message: "must be in the future" });
    else expiresAt = new Date(parsed);
  }

  if (issues.length > 0) return { issues };
  return { ok: { label, permissions, ipWhitelist, webhookUrl, expiresAt } };
}

/** Accepts an https URL with a host, stored as given (forms a reader could misread are refused). */
function checkWebhookUrl(raw: string, allowPrivate: boolean): { href: string } | { problem: string } {
  if (raw.length > MAX_URL_LENGTH) return { problem: `must be at most ${MAX_URL_LENGTH} characters` };
  if (!raw.startsWith("https://")) return { problem: "must start with https://" };
  if (URL_UNSAFE.test(raw)) return { problem: "must not contain spaces or control characters" };
  // The WHATWG parser skips extra slashes ("https:///x" reads as host "x"); refuse what a reader would misread.
  if (/^https:\/\/[/\\]/.test(raw)) return { problem: "must be an https:// URL with a host" };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: "must be a valid URL" };
  }
  if (url.protocol !== "https:" || url.hostname === "") return { problem: "must be an https:// URL with a host" };
  if (url.username !== "" || url.password !== "") return { problem: "must not contain credentials" };
  if (raw.includes("#")) return { problem: "must not contain a fragment" };
  // An address literal is judged now; a host name when each delivery connects (it may resolve anywhere later).
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (!allowPrivate && isIP(host) !== 0 && isNonPublicAddress(host)) {
    return { problem: "must not point at a loopback, private, link-local or multicast address" };
  }
  return { href: raw };
}
