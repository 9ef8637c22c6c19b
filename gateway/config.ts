// Gateway settings (the table in README.md, "Settings"), parsed once at start.
import { z } from "zod";
import { checkEntry } from "../kernel/ip.js";
import { DEFAULT_MAX_DELAY_MS } from "./ratelimit/index.js";
import { joinHostPort } from "../kernel/address.js";
import {
  bool,
  commonSettings,
  grpcTlsClientSettings,
  integer,
  parseSettings,
  port,
  redisUrl,
  token,
} from "../kernel/config.js";
import { listenGuard, type ListenSecret } from "../kernel/listen-guard.js";
import { DAY_MS } from "../kernel/time.js";

/** What the gateway needs before it listens beyond loopback (kernel/listen-guard.ts). */
export const GATEWAY_LISTEN_SECRETS: readonly ListenSecret[] = ["INTERNAL_TOKEN", "WALLET_ADMIN_TOKEN"];

const target = z.string().regex(/^[a-zA-Z0-9.:[\]-]+:\d+$/, "must be host:port");

const schema = z
  .object({
    ...commonSettings,
    HTTP_PORT: port(8080),
    WALLET_HTTP_PORT: port(8081),
    WALLET_GRPC_PORT: port(50052),
    ENGINE_GRPC_PORT: port(50051),
    ...grpcTlsClientSettings,
    /** host:port of the wallet's gRPC listener; defaults to HOST:WALLET_GRPC_PORT. */
    WALLET_GRPC_TARGET: target.optional(),
    /** host:port of the engine's gRPC listener; defaults to HOST:ENGINE_GRPC_PORT. */
    ENGINE_GRPC_TARGET: target.optional(),
    /**
     * Scale-out (docs/scale-out.md): host:port of every engine, comma-separated, entry k being engine k (its
     * ENGINE_INDEX); the count is ENGINE_COUNT. An entry may name several replicas of index k separated by `|`
     * (a successor that takes its partitions over, "Hand-over"). When unset, the single ENGINE_GRPC_TARGET.
     */
    ENGINE_GRPC_TARGETS: z
      .string()
      .transform((v) =>
        v
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== ""),
      )
      .refine(
        (targets) =>
          targets.length >= 1 &&
          targets.length <= 256 &&
          targets.every((entry) => entry.split("|").every((t) => target.safeParse(t.trim()).success)),
        "must be 1 to 256 comma-separated entries, each one host:port or several separated by |",
      )
      .optional(),
    REDIS_URL: redisUrl,
    TRUSTED_PROXIES: z
      .string()
      .default("")
      .transform((v) =>
        v
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== ""),
      )
      .refine((entries) => entries.every((e) => checkEntry(e) === undefined), "must be IP addresses or CIDR ranges"),
    WALLET_ADMIN_TOKEN: token,
    RATE_LIMIT_MAX: integer({ min: 1 }, 1200),
    RATE_LIMIT_WINDOW_MS: integer({ min: 100 }, 60_000),
    /**
     * A request whose slot frees within this long is held until then instead of refused (docs/decisions.md);
     * 0 never holds. Below RATE_LIMIT_WINDOW_MS.
     */
    RATE_LIMIT_MAX_DELAY_MS: integer({ min: 0 }, DEFAULT_MAX_DELAY_MS),
    BODY_LIMIT_BYTES: integer({ min: 1024 }, 65_536),
    /** Answer key validations from a local cache kept exact by the wallet's WatchKeys stream. */
    KEY_CACHE: bool(true),
    ENGINE_SESSION: bool(true),
    /**
     * Deadline of every gRPC call to the wallet and the engine: past it the request is 503 wallet_unavailable or
     * engine_unavailable (with Retry-After) instead of a hang. Above the services' own database timeouts
     * (WALLET_DB_TIMEOUT_MS, ENGINE_DB_TIMEOUT_MS) so that they name the failure first.
     */
    GRPC_DEADLINE_MS: integer({ min: 100, max: 60_000 }, 1_500),
    /**
     * Hand-over (docs/scale-out.md): while an engine hands its partitions over (it refused a call as not
     * serving, or ended its session stream), how long a call it provably did not run (or a read) is held and
     * tried again on each of the entry's targets before it is 503 engine_unavailable; 0 holds nothing. At most
     * HANDOVER_HOLD_MAX calls are held at once.
     */
    HANDOVER_HOLD_MS: integer({ min: 0, max: 60_000 }, 5_000),
    HANDOVER_HOLD_MAX: integer({ min: 0 }, 1_000),
    /**
     * Graceful stop (docs/runbook.md, "Roll the gateways"): after SIGTERM, how long the gateway keeps serving
     * with /readyz 503 and `Connection: close` on every answer, so that load balancers route away before the
     * listeners close; then requests in flight are drained (5 s) as before. 0 closes the listeners at once.
     */
    GATEWAY_DRAIN_DELAY_MS: integer({ min: 0, max: 60_000 }, 2_000),
    /** Longest a cached validation is used before the wallet is asked again. */
    KEY_CACHE_TTL_MS: integer({ min: 1_000 }, 60_000),
    KEY_CACHE_MAX_ENTRIES: integer({ min: 1 }, 100_000),
    /**
     * Failed /v1 authentications per source (an IPv4 address, an IPv6 /64) per AUTH_FAILURE_WINDOW_MS, counted in
     * Redis too when REDIS_URL is set; past it the source gets 429 `rate_limited` until its window ends
     * (gateway/v1/auth-failures.ts). 0 turns the limit off.
     */
    AUTH_FAILURE_LIMIT: integer({ min: 0 }, 30),
    AUTH_FAILURE_WINDOW_MS: integer({ min: 1_000, max: DAY_MS }, 60_000),
    /** Sources whose failures are tracked in each gateway's memory (least recently failing forgotten first). */
    AUTH_FAILURE_MAX_ADDRESSES: integer({ min: 1 }, 100_000),
    /**
     * Admission control of /v1 (docs/overload.md): the bound on requests in flight is found from their latency
     * between ADMISSION_LIMIT_MIN and ADMISSION_LIMIT_MAX; one key has at most ADMISSION_PER_KEY in flight; at
     * most ADMISSION_QUEUE requests (ADMISSION_PER_KEY_QUEUE of one key) wait, each at most
     * ADMISSION_QUEUE_TIMEOUT_MS once the queue stands (ADMISSION_BURST_TIMEOUT_MS for a burst at an idle
     * gateway); past these a request is answered 503 `overloaded` at once.
     */
    ADMISSION_LIMIT_MIN: integer({ min: 1 }, 64),
    ADMISSION_LIMIT_MAX: integer({ min: 1 }, 1_024),
    ADMISSION_PER_KEY: integer({ min: 1 }, 64),
    ADMISSION_QUEUE: integer({ min: 0 }, 2_048),
    ADMISSION_PER_KEY_QUEUE: integer({ min: 0 }, 256),
    ADMISSION_QUEUE_TIMEOUT_MS: integer({ min: 0, max: 10_000 }, 25),
    /** The wait of a request that arrives while the queue was empty within the last 100 ms (a burst). */
    ADMISSION_BURST_TIMEOUT_MS: integer({ min: 0, max: 10_000 }, 500),
    /** GET /v1/stream (docs/streaming.md): open sockets per API key on this gateway; past it 409. */
    STREAM_MAX_SOCKETS_PER_KEY: integer({ min: 1 }, 10),
    /** Unsent bytes a socket may hold; past it the socket is closed 4008 (slow consumer). */
    STREAM_MAX_BUFFERED_BYTES: integer({ min: 1024 }, 4 * 1024 * 1024),
    /** Accounts one socket may subscribe to. */
    STREAM_MAX_ACCOUNTS_PER_SOCKET: integer({ min: 1 }, 100),
    /** Between pings; a socket that answered neither the last ping nor sent anything since is cut. */
    STREAM_PING_INTERVAL_MS: integer({ min: 100 }, 20_000),
    /** Between checks of the limiter for keys revoked through another gateway. */
    STREAM_REVALIDATE_MS: integer({ min: 100 }, 5_000),
  })
  .refine((s) => s.RATE_LIMIT_MAX_DELAY_MS < s.RATE_LIMIT_WINDOW_MS, {
    message: "must be below RATE_LIMIT_WINDOW_MS",
    path: ["RATE_LIMIT_MAX_DELAY_MS"],
  })
  .refine((s) => s.ADMISSION_LIMIT_MIN <= s.ADMISSION_LIMIT_MAX, {
    message: "must not exceed ADMISSION_LIMIT_MAX",
    path: ["ADMISSION_LIMIT_MIN"],
  })
  .superRefine(listenGuard(GATEWAY_LISTEN_SECRETS))
  .transform((s) => {
    const engine = s.ENGINE_GRPC_TARGET ?? joinHostPort(s.HOST, s.ENGINE_GRPC_PORT);
    return {
      ...s,
      WALLET_GRPC_TARGET: s.WALLET_GRPC_TARGET ?? joinHostPort(s.HOST, s.WALLET_GRPC_PORT),
      ENGINE_GRPC_TARGET: engine,
      ENGINE_GRPC_TARGETS: s.ENGINE_GRPC_TARGETS ?? [engine],
    };
  });

export type GatewaySettings = z.infer<typeof schema>;

export function loadGatewaySettings(env: NodeJS.ProcessEnv): GatewaySettings {
  return parseSettings(schema, env);
}
