// The README's walk-through runs with the keys it creates: every key it creates names its scopes (`curl` JSON,
// `ftrade keys create --permissions`), and those scopes cover every /v1 call it shows (the `curl` lines and the
// first column of the client table), each matched to its route in gateway/v1/router.ts as Express would.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isScope, satisfies, type Scope } from "../kernel/scopes.js";
import { V1_ROUTES, type V1Route } from "../gateway/v1/router.js";
import { ROOT } from "./harness/prometheus.js";

const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
const start = readme.indexOf("## Walk-through");
const walkthrough = readme.slice(start, readme.indexOf("\n## ", start + 1));

/** A path's segments; a variable one (`$ACCOUNT`, `:id`, `{id}`, `<id>`) is `*`. */
const segments = (route: string): string[] =>
  route
    .split("/")
    .filter((part) => part !== "")
    .map((part) => (/^['"]?[$:{<]/.test(part) ? "*" : part));

interface Call {
  method: string;
  /** The path's segments; `partial` when the README wrote only its end (`…/positions`). */
  parts: string[];
  partial: boolean;
  text: string;
}

function callsShown(): Call[] {
  const curl = [...walkthrough.matchAll(/^curl .*$/gm)].flatMap(([line]) => {
    const url = /http:\/\/127\.0\.0\.1:8080(\/v1\/[^\s"?]*)/.exec(line);
    if (url?.[1] === undefined) return [];
    const method = /-X (\w+)/.exec(line)?.[1] ?? "GET";
    return [{ method, parts: segments(url[1]), partial: false, text: line }];
  });
  const table = [...walkthrough.matchAll(/^\| `(GET|POST|PATCH|DELETE) ((?:\/v1|…)[^`]*)`/gm)].map(
    ([text, method = "", route = ""]) => ({
      method,
      parts: segments(route.replace(/^…/, "")),
      partial: route.startsWith("…"),
      text,
    }),
  );
  return [...curl, ...table];
}

/** The route that serves the call: the first of the table (Express's order) whose method and path match. */
function routeOf(call: Call): V1Route | undefined {
  return V1_ROUTES.find((route) => {
    if (route.method !== call.method.toLowerCase()) return false;
    const parts = segments(`/v1${route.path}`);
    if (call.partial ? parts.length < call.parts.length : parts.length !== call.parts.length) return false;
    const tail = parts.slice(parts.length - call.parts.length);
    // A route's parameter takes any segment of a whole path; the end of one (`…/orders`) is matched as written.
    return tail.every((part, i) => part === call.parts[i] || (part === "*" && !call.partial));
  });
}

function keysCreated(): Scope[][] {
  const json = [...walkthrough.matchAll(/"permissions":\[([^\]]*)\]/g)].map(([, list = ""]) =>
    [...list.matchAll(/"([A-Z_]+)"/g)].map(([, scope = ""]) => scope),
  );
  const cli = [...walkthrough.matchAll(/ftrade keys create[^`\n]*/g)].map(
    ([command]) => /--permissions (\S+)/.exec(command)?.[1]?.split(",") ?? [],
  );
  return [...json, ...cli].map((scopes) => scopes.filter(isScope));
}

describe("the README's walk-through", () => {
  it("creates keys that name their scopes, with curl and with ftrade", () => {
    const keys = keysCreated();
    expect(keys.length).toBeGreaterThanOrEqual(2);
    for (const scopes of keys) expect(scopes.length).toBeGreaterThan(0);
  });

  it("calls only routes the gateway serves, cancel-all and flatten among them", () => {
    const calls = callsShown();
    expect(calls.filter((call) => routeOf(call) === undefined).map((call) => call.text)).toEqual([]);
    const routes = calls.map((call) => routeOf(call)?.path);
    expect(routes).toEqual(expect.arrayContaining(["/account/:account_id/orders", "/account/:account_id/flatten"]));
  });

  it("creates keys whose scopes cover every /v1 call it shows", () => {
    const uncovered = keysCreated().flatMap((scopes) =>
      callsShown().flatMap((call) => {
        const route = routeOf(call);
        return route === undefined || satisfies(scopes, route.scope)
          ? []
          : [`${scopes.join(",")} cannot ${call.method} ${route.path} (${route.scope})`];
      }),
    );
    expect(uncovered).toEqual([]);
  });
});
