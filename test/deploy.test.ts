// The files in deploy/ and docs/runbook.md: Prometheus accepts the scrape config and the rules (promtool,
// including the alert unit tests), every alert links its runbook section, the dashboard parses and queries
// the datasource Grafana provisions, the image builds as a non-root user from node:20 slim and runs the compiled
// build with plain node and production dependencies only (no tsx, no esbuild), and compose and Kubernetes run
// the compiled processes with settings their own config loader accepts, health probes and resources.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml, parseAllDocuments } from "yaml";
import { loadEngineSettings } from "../engine/config.js";
import { loadGatewaySettings } from "../gateway/config.js";
import { loadWalletSettings } from "../wallet/config.js";
import { packageName, productionPackages } from "./harness/production-packages.js";
import { DEPLOY, ROOT, alertRules, anchorOf, dashboardQueries, promtool } from "./harness/prometheus.js";

const read = (...parts: string[]): string => readFileSync(path.join(ROOT, ...parts), "utf8");

/** Settings of the engine scale-out (another change documents them in the README). */
const SCALE_OUT_SETTINGS = new Set(["ENGINE_COUNT", "ENGINE_INDEX"]);
const LOADERS: Record<string, (env: NodeJS.ProcessEnv) => unknown> = {
  gateway: loadGatewaySettings,
  wallet: loadWalletSettings,
  engine: loadEngineSettings,
};
/** Stand-ins for the values compose and Kubernetes take from the operator's environment or a Secret. */
const SAMPLES: Record<string, string> = {
  INTERNAL_TOKEN: "0123456789abcdef0123",
  WALLET_ADMIN_TOKEN: "0123456789abcdef0123",
  WEBHOOK_MASTER_KEY: Buffer.alloc(32, 7).toString("base64"),
  DATABASE_URL: "postgres://trading:secret@postgres:5432/trading",
  POSTGRES_PASSWORD: "0123456789abcdef0123",
  GRAFANA_ADMIN_PASSWORD: "0123456789abcdef0123",
};

/** Settings and variables that hold a secret (docs/runbook.md, "Deploying safely"). */
/** The gRPC port each backend listens on in compose and Kubernetes. */
const GRPC_PORTS: Record<string, number> = { wallet: 50052, engine: 50051 };

const SECRET_NAME = /TOKEN|PASSWORD|SECRET|MASTER_KEY|DATABASE_URL/;
/** The one secret that is empty on purpose outside a master-key rotation (docs/runbook.md). */
const OPTIONAL_SECRETS = new Set(["WEBHOOK_MASTER_KEY_PREVIOUS"]);
/** The only port published beyond loopback (compose) or reachable from outside the cluster: the trading API. */
const PUBLIC_PORTS = new Set([8080]);

/**
 * The TRUSTED_PROXIES entries that cover more than one ingress's own addresses: wider than a /24 (IPv4) or a
 * /120 (IPv6). A pod or node range would let any pod in it set X-Forwarded-For (docs/runbook.md).
 */
function wideTrustedRanges(value: string): string[] {
  return value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .filter((entry) => {
      const [address = "", prefix] = entry.split("/");
      const v4 = /^(::ffff:)?\d{1,3}(\.\d{1,3}){3}$/i.test(address);
      const bits = prefix === undefined ? 128 : Number(prefix) + (v4 && !address.includes(":") ? 96 : 0);
      return bits < (v4 ? 96 + 24 : 120);
    });
}

/** The entry points `npm run build` compiles (tsconfig.build.json); `dist/<entry>.js` is each one compiled. */
const BUILT_ENTRIES = (JSON.parse(read("tsconfig.build.json")) as { files: string[] }).files;

/** Every setting the README's table documents. */
function documentedSettings(): Set<string> {
  const names = [...read("README.md").matchAll(/^\| `([A-Z][A-Z0-9_]*)` /gm)].map((m) => m[1] ?? "");
  return new Set(names);
}

describe("deploy/prometheus", () => {
  it("passes promtool check config (with its rule files)", () => {
    const result = promtool(["check", "config", "deploy/prometheus/prometheus.yml"]);
    expect(result.output).toContain("SUCCESS");
    expect(result.status).toBe(0);
  });

  it("passes promtool check rules", () => {
    const result = promtool(["check", "rules", "deploy/prometheus/alerts.yml"]);
    expect(result.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(result.status).toBe(0);
  });

  it("passes the alert unit tests (promtool test rules)", () => {
    const result = promtool(["test", "rules", "deploy/prometheus/alerts.test.yml"]);
    expect(result.output).toContain("SUCCESS");
    expect(result.status).toBe(0);
  });

  it("scrapes the gateway, the wallet and the engine", () => {
    const config = parseYaml(read("deploy", "prometheus", "prometheus.yml")) as {
      scrape_configs: { job_name: string }[];
    };
    expect(config.scrape_configs.map((c) => c.job_name).sort()).toEqual(["engine", "gateway", "wallet"]);
  });

  it("has the alerts the issue asks for, each linking an existing section of docs/runbook.md", () => {
    const rules = alertRules();
    const names = rules.map((rule) => rule.alert);
    for (const wanted of [
      "HighErrorRate",
      "HighP99Latency",
      "WebhookBacklogOld",
      "ShardMailboxGrowing",
      "JournalCommitSlow",
      "AccountTerminationsSpike",
    ]) {
      expect(names).toContain(wanted);
    }
    const anchors = new Set(
      [...read("docs", "runbook.md").matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] ?? "")),
    );
    for (const rule of rules) {
      expect(rule.annotations.runbook_url, rule.alert).toBe(`docs/runbook.md#${anchorOf(rule.alert)}`);
      expect(anchors, rule.alert).toContain(anchorOf(rule.alert));
      expect(rule.annotations.summary, rule.alert).toBeTruthy();
    }
  });
});

describe("deploy/grafana", () => {
  const dashboard = JSON.parse(read("deploy", "grafana", "dashboards", "funded-trading.json")) as {
    uid: string;
    panels: { title: string; type: string; datasource?: { uid: string } }[];
  };

  it("parses, and every panel queries the datasource Grafana provisions", () => {
    const datasources = parseYaml(read("deploy", "grafana", "provisioning", "datasources", "prometheus.yaml")) as {
      datasources: { uid: string; url: string }[];
    };
    const uid = datasources.datasources[0]?.uid;
    expect(uid).toBeTruthy();
    expect(dashboard.uid).toBe("funded-trading");
    for (const panel of dashboard.panels.filter((p) => p.type !== "row")) {
      expect(panel.datasource?.uid, panel.title).toBe(uid);
    }
    const providers = parseYaml(read("deploy", "grafana", "provisioning", "dashboards", "funded-trading.yaml")) as {
      providers: { options: { path: string } }[];
    };
    expect(providers.providers[0]?.options.path).toBe("/var/lib/grafana/dashboards");
  });

  it.each([
    ["traffic", /http_requests_total/],
    ["errors", /status=~"5\.\."/],
    ["latency percentiles", /histogram_quantile\(0\.99, sum by \(le\) \(rate\(http_request_duration_seconds_bucket/],
    ["rate-limit refusals", /gateway_rate_limit_decisions_total/],
    ["order outcomes by rule", /sum by \(rule\) \(rate\(engine_orders_total\{outcome="rejected"\}/],
    ["shard health", /engine_shard_mailbox_depth/],
    ["journal", /engine_journal_commit_duration_seconds_bucket/],
    ["webhook backlog", /webhook_outbox_backlog/],
    ["load shedding", /gateway_admission_shed_total/],
    ["engine hand-overs", /engine_handovers_total/],
    ["take-overs by standbys", /engine_takeovers_total/],
    ["standbys following the journal", /engine_standby_last_look_timestamp_seconds/],
    ["calls held while an engine moves", /gateway_engine_held_calls_total/],
  ])("shows %s", (_topic, pattern) => {
    expect(dashboardQueries().some(({ expr }) => pattern.test(expr))).toBe(true);
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  const stages = [...dockerfile.matchAll(/^FROM (\S+)(?: AS (\w+))?/gm)];

  it("builds in stages from node:20 slim and runs as a non-root user", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-[a-z]+-slim$/m);
    for (const stage of stages) expect(stage[1]).toBe("${NODE_IMAGE}");
    const final = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(final).toMatch(/^USER node$/m);
    expect(final).not.toMatch(/^USER root$/m);
    expect(final).toMatch(/npm ci --omit=dev|COPY --from=deps/);
  });

  it("builds the services into dist/ and runs the compiled JavaScript with plain node, without tsx", () => {
    const build = dockerfile.slice(dockerfile.indexOf(" AS build"), dockerfile.indexOf(" AS runtime"));
    const runtime = dockerfile.slice(dockerfile.indexOf(" AS runtime"));
    expect(build).toMatch(/^RUN npm run build$/m);
    expect(runtime).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    expect(runtime).not.toMatch(/COPY --from=build \/app\/(kernel|wallet|engine|gateway|scripts|proto)\b/);
    expect(runtime).not.toMatch(/tsx|--import|--loader/);
    expect(runtime).toMatch(/^ENTRYPOINT \["node"\]$/m);
    expect(runtime).toMatch(/^CMD \["dist\/scripts\/start\.js"\]$/m);
    expect(BUILT_ENTRIES).toContain("scripts/start.ts");
  });

  it("installs production dependencies without tsx or esbuild", () => {
    expect(dockerfile).toMatch(/^COPY package\.json package-lock\.json \.\/\nRUN npm ci --omit=dev /m);
    const installed = new Set(productionPackages().map(packageName));
    expect(installed).toContain("@grpc/grpc-js");
    for (const compiler of ["tsx", "esbuild", "typescript"]) expect(installed).not.toContain(compiler);
  });

  it("bakes no secret into the image (they come when the container runs)", () => {
    const envNames = [...dockerfile.matchAll(/^ENV (?:[^\n]*\\\n)*[^\n]*/gm)].flatMap((m) =>
      [...m[0].matchAll(/(\w+)=/g)].map((n) => n[1] ?? ""),
    );
    expect(envNames).toContain("HOST");
    for (const name of envNames) expect(name).not.toMatch(SECRET_NAME);
    expect(dockerfile).not.toMatch(/^ARG \w*(TOKEN|PASSWORD|SECRET|KEY)\b/m);
  });

  it("keeps local state and secrets out of the build context", () => {
    const ignored = read(".dockerignore").split("\n");
    for (const entry of ["node_modules", "data", ".git", ".env"]) expect(ignored).toContain(entry);
  });
});

interface ComposeService {
  command?: string[];
  ports?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: unknown;
}

/** `${NAME:-default}` / `${NAME:?message}` as compose would expand them with the samples set. */
function expand(value: string): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_all, name: string, kind?: string, rest?: string) => {
    const sample = SAMPLES[name];
    if (sample !== undefined) return sample;
    return kind === "-" ? (rest ?? "") : "";
  });
}

describe("deploy/compose.yaml", () => {
  const compose = parseYaml(read("deploy", "compose.yaml"), { merge: true }) as {
    services: Record<string, ComposeService>;
  };

  it("runs postgres, redis, wallet, engine, gateway, prometheus and grafana, each with a healthcheck", () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ["engine", "gateway", "grafana", "postgres", "prometheus", "redis", "wallet"].sort(),
    );
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.healthcheck?.test.length, name).toBeGreaterThan(0);
    }
  });

  it.each(["gateway", "wallet", "engine"])(
    "gives the %s settings its config loader accepts, all documented, and a healthcheck on its own port",
    (name) => {
      const service = compose.services[name];
      expect(service?.command).toEqual([`dist/${name}/main.js`]);
      expect(BUILT_ENTRIES).toContain(`${name}/main.ts`);
      const env = Object.fromEntries(
        Object.entries(service?.environment ?? {}).map(([key, value]) => [key, expand(value)]),
      );
      expect(() => LOADERS[name]?.(env)).not.toThrow();
      const documented = documentedSettings();
      for (const key of Object.keys(env)) {
        expect(documented.has(key) || SCALE_OUT_SETTINGS.has(key), `${key} documented in README`).toBe(true);
      }
      const probe = service?.healthcheck?.test.join(" ");
      if (name === "gateway") expect(probe).toContain(`http://127.0.0.1:${env.HTTP_PORT ?? "?"}/healthz`);
      else expect(probe).toContain(`'127.0.0.1:${GRPC_PORTS[name] ?? "?"}'`);
    },
  );

  it.each(["wallet", "engine"])(
    "asks the %s's gRPC health (Check, no metadata) for SERVING on the port it listens on, like Kubernetes",
    (name) => {
      const service = compose.services[name];
      const portSetting = name === "wallet" ? "WALLET_GRPC_PORT" : "ENGINE_GRPC_PORT";
      expect(service?.environment?.[portSetting]).toBe(String(GRPC_PORTS[name]));
      expect(service?.healthcheck?.test.slice(0, 3)).toEqual(["CMD", "node", "-e"]);
      const script = service?.healthcheck?.test[3] ?? "";
      expect(script).toContain("require('grpc-health-check')");
      expect(script).toContain(".check({ service: '' }");
      expect(script).toContain("r.status === 'SERVING'");
    },
  );
});

describe("deploy/compose.yaml is safe by default", () => {
  const raw = read("deploy", "compose.yaml");
  const compose = parseYaml(raw, { merge: true }) as { services: Record<string, ComposeService> };

  it("takes every secret from the environment and stops without it (${VAR:?message}), none defaulted", () => {
    const secrets: string[] = [];
    for (const [service, definition] of Object.entries(compose.services)) {
      for (const [name, value] of Object.entries(definition.environment ?? {})) {
        if (!SECRET_NAME.test(name)) continue;
        secrets.push(name);
        const variables = [...value.matchAll(/\$\{(\w+)(?::([-?])[^}]*)?\}/g)];
        expect(variables.length, `${service} ${name} comes from the environment`).toBeGreaterThan(0);
        for (const [, variable, kind] of variables) {
          if (OPTIONAL_SECRETS.has(name)) continue;
          expect(kind, `${service} ${name}: \${${variable ?? ""}:?…} (required, no default)`).toBe("?");
        }
      }
    }
    for (const wanted of [
      "INTERNAL_TOKEN",
      "WALLET_ADMIN_TOKEN",
      "WEBHOOK_MASTER_KEY",
      "DATABASE_URL",
      "POSTGRES_PASSWORD",
      "GF_SECURITY_ADMIN_PASSWORD",
    ]) {
      expect(secrets).toContain(wanted);
    }
    // Anywhere in the file: no secret variable with a fallback (such as ${GRAFANA_ADMIN_PASSWORD:-admin}).
    for (const [, variable] of raw.matchAll(/\$\{(\w+):-[^}]*\}/g)) {
      if (SECRET_NAME.test(variable ?? "")) expect(OPTIONAL_SECRETS.has(variable ?? ""), variable).toBe(true);
    }
    expect(raw).not.toMatch(/admin\/admin|:-admin\}|:-trading\}/);
  });

  it("publishes only the trading API beyond loopback: /api, metrics and dashboards on 127.0.0.1", () => {
    const published: string[] = [];
    for (const [service, definition] of Object.entries(compose.services)) {
      for (const entry of definition.ports ?? []) {
        const parts = entry.split(":");
        const container = Number(parts.at(-1));
        const hostIp = parts.length === 3 ? parts[0] : undefined;
        published.push(`${service}:${container}`);
        if (!PUBLIC_PORTS.has(container)) expect(hostIp, `${service} publishes ${entry}`).toBe("127.0.0.1");
      }
    }
    expect(published.sort()).toEqual(["gateway:8080", "gateway:8081", "grafana:3000", "prometheus:9090"]);
    // The internal gRPC, the services' metrics, PostgreSQL and Redis are not published at all.
    for (const service of ["wallet", "engine", "postgres", "redis"])
      expect(compose.services[service]?.ports).toBeUndefined();
  });

  it("requires exactly the operator's secrets: tokens, master key, database and Grafana passwords", () => {
    const withoutSecrets = [...raw.matchAll(/\$\{(\w+):\?([^}]*)\}/g)].map((m) => m[1] ?? "");
    expect(new Set(withoutSecrets)).toEqual(
      new Set([
        "INTERNAL_TOKEN",
        "WEBHOOK_MASTER_KEY",
        "WALLET_ADMIN_TOKEN",
        "POSTGRES_PASSWORD",
        "GRAFANA_ADMIN_PASSWORD",
      ]),
    );
  });
});

interface Probe {
  httpGet?: { path: string; port: string | number };
  grpc?: { port: number; service?: string };
  timeoutSeconds?: number;
}

interface Container {
  name: string;
  args?: string[];
  ports?: { name?: string; containerPort: number; hostPort?: number }[];
  env?: { name: string; value?: string; valueFrom?: Record<string, Record<string, string>> }[];
  envFrom?: { configMapRef?: { name: string } }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

interface Manifest {
  kind: string;
  metadata: { name: string };
  spec?: {
    replicas?: number;
    type?: string;
    ports?: { name?: string; port: number; nodePort?: number }[];
    template?: {
      spec: { containers: Container[]; hostNetwork?: boolean; securityContext?: { runAsNonRoot?: boolean } };
    };
    selector?: unknown;
    minAvailable?: number;
    maxUnavailable?: number;
  };
  data?: Record<string, string>;
}

describe("deploy/k8s", () => {
  const dir = path.join(DEPLOY, "k8s");
  const kustomization = parseYaml(read("deploy", "k8s", "kustomization.yaml")) as { resources: string[] };
  const manifests = kustomization.resources.flatMap((file) =>
    parseAllDocuments(readFileSync(path.join(dir, file), "utf8")).map((doc) => doc.toJS() as Manifest),
  );
  const find = (kind: string, name: string): Manifest | undefined =>
    manifests.find((m) => m.kind === kind && m.metadata.name === name);
  const config = find("ConfigMap", "funded-trading")?.data ?? {};

  it("lists every manifest file in kustomization.yaml (the Secret is an example, created out of band)", () => {
    const files = readdirSync(dir).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
    expect([...kustomization.resources, "secret.example.yaml"].sort()).toEqual(files.sort());
  });

  it.each([
    ["Deployment", "gateway"],
    ["Deployment", "wallet"],
    ["StatefulSet", "engine"],
  ])("runs the %s %s non-root, with probes, resources, a Service and a PodDisruptionBudget", (kind, name) => {
    const workload = find(kind, name);
    expect(workload).toBeDefined();
    const pod = workload?.spec?.template?.spec;
    expect(pod?.securityContext?.runAsNonRoot).toBe(true);
    const container = pod?.containers[0];
    expect(container?.args).toEqual([`dist/${name}/main.js`]);
    expect(container?.livenessProbe?.httpGet?.path).toBe("/healthz");
    if (name === "gateway") expect(container?.readinessProbe?.httpGet?.path).toBe("/readyz");
    expect(Object.keys(container?.resources?.requests ?? {}).sort()).toEqual(["cpu", "memory"]);
    expect(container?.resources?.limits?.memory).toBeTruthy();
    expect(find("Service", name)).toBeDefined();
    expect(find("PodDisruptionBudget", name)).toBeDefined();

    // The settings, with Secret references replaced by samples, load through the process's own config.
    const env: Record<string, string> = { ...config };
    for (const entry of container?.env ?? []) {
      if (entry.value !== undefined) env[entry.name] = entry.value;
      else if (entry.valueFrom?.secretKeyRef !== undefined) {
        expect(entry.valueFrom.secretKeyRef.name).toBe("funded-trading-secrets");
        const sample = SAMPLES[entry.name];
        if (sample !== undefined) env[entry.name] = sample;
      } else if (entry.name === "ENGINE_INDEX") env[entry.name] = "0";
    }
    expect(() => LOADERS[name]?.(env)).not.toThrow();
    const documented = documentedSettings();
    for (const key of Object.keys(env)) {
      expect(documented.has(key) || SCALE_OUT_SETTINGS.has(key), `${key} documented in README`).toBe(true);
    }
  });

  it.each([
    ["Deployment", "wallet", "WALLET_GRPC_PORT"],
    ["StatefulSet", "engine", "ENGINE_GRPC_PORT"],
  ])(
    "probes the %s %s's readiness and startup with gRPC health on the port its %s names, liveness on /healthz",
    (kind, name, portSetting) => {
      const container = find(kind, name)?.spec?.template?.spec.containers[0];
      const grpcPort = container?.ports?.find((port) => port.name === "grpc")?.containerPort;
      expect(grpcPort).toBe(GRPC_PORTS[name]);
      expect(container?.env?.find((entry) => entry.name === portSetting)?.value).toBe(String(grpcPort));
      for (const probe of [container?.readinessProbe, container?.startupProbe]) {
        // Kubernetes' gRPC probe takes a number (no named port) and asks for service "" (the whole process).
        expect(probe?.grpc).toEqual({ port: grpcPort });
        expect(probe?.httpGet).toBeUndefined();
        expect(probe?.timeoutSeconds).toBeGreaterThanOrEqual(2);
      }
      expect(container?.livenessProbe?.httpGet).toEqual({ path: "/healthz", port: "metrics" });
    },
  );

  it("takes DATABASE_URL and the webhook master key from the Secret", () => {
    const secretRef = (kind: string, name: string, setting: string): string | undefined =>
      find(kind, name)?.spec?.template?.spec.containers[0]?.env?.find((e) => e.name === setting)?.valueFrom
        ?.secretKeyRef?.key;
    expect(secretRef("Deployment", "wallet", "DATABASE_URL")).toBe("database-url");
    expect(secretRef("Deployment", "wallet", "WEBHOOK_MASTER_KEY")).toBe("webhook-master-key");
    expect(secretRef("StatefulSet", "engine", "DATABASE_URL")).toBe("database-url");
  });

  it("takes every secret from the Secret, none optional, none written in a manifest", () => {
    expect(Object.keys(config).filter((name) => SECRET_NAME.test(name))).toEqual([]);
    const required: string[] = [];
    for (const manifest of manifests) {
      for (const container of manifest.spec?.template?.spec.containers ?? []) {
        for (const entry of container.env ?? []) {
          if (!SECRET_NAME.test(entry.name)) continue;
          const where = `${manifest.metadata.name} ${entry.name}`;
          expect(entry.value, where).toBeUndefined();
          const ref = entry.valueFrom?.secretKeyRef;
          expect(ref?.name, where).toBe("funded-trading-secrets");
          expect(ref?.optional, `${where} is not optional`).toBeUndefined();
          required.push(where);
        }
      }
    }
    expect(required.sort()).toEqual(
      [
        "engine DATABASE_URL",
        "engine INTERNAL_TOKEN",
        "engine-standby DATABASE_URL",
        "engine-standby INTERNAL_TOKEN",
        "gateway INTERNAL_TOKEN",
        "gateway WALLET_ADMIN_TOKEN",
        "wallet DATABASE_URL",
        "wallet INTERNAL_TOKEN",
        "wallet WEBHOOK_MASTER_KEY",
        "wallet WEBHOOK_MASTER_KEY_PREVIOUS",
      ].sort(),
    );
  });

  it("keeps /api, gRPC and metrics inside the cluster: ClusterIP Services, no NodePort, LoadBalancer or host port", () => {
    for (const service of manifests.filter((m) => m.kind === "Service")) {
      expect(service.spec?.type ?? "ClusterIP", service.metadata.name).toBe("ClusterIP");
      for (const port of service.spec?.ports ?? []) expect(port.nodePort, service.metadata.name).toBeUndefined();
    }
    for (const workload of manifests) {
      const pod = workload.spec?.template?.spec;
      if (pod === undefined) continue;
      expect(pod.hostNetwork, workload.metadata.name).not.toBe(true);
      for (const container of pod.containers) {
        for (const port of container.ports ?? []) expect(port.hostPort, workload.metadata.name).toBeUndefined();
      }
    }
  });

  it("believes X-Forwarded-For from the ingress only: TRUSTED_PROXIES never names a pod or node range", () => {
    const container = find("Deployment", "gateway")?.spec?.template?.spec.containers[0];
    const entry = container?.env?.find((e) => e.name === "TRUSTED_PROXIES");
    const value = entry?.value ?? config.TRUSTED_PROXIES;
    expect(value, "TRUSTED_PROXIES is set on the gateway").toBeDefined();
    expect(wideTrustedRanges(value ?? "")).toEqual([]);
    expect(wideTrustedRanges(config.TRUSTED_PROXIES ?? "")).toEqual([]);
    // The manifest says what to put there and where it is documented.
    expect(read("deploy", "k8s", "gateway.yaml")).toMatch(/ingress controller[\s\S]*docs\/runbook\.md/);
    expect(read("docs", "runbook.md")).toMatch(/`TRUSTED_PROXIES`[^\n]*ingress/);
  });

  it.each([
    ["10.0.0.0/8", ["10.0.0.0/8"]],
    ["10.42.0.0/16", ["10.42.0.0/16"]],
    ["::ffff:10.0.0.0/104", ["::ffff:10.0.0.0/104"]],
    ["fd00::/64", ["fd00::/64"]],
    ["10.42.3.0/24, 10.42.9.17", []],
    ["::ffff:10.42.3.0/120, fd00::7, fd00::100/120", []],
  ])("counts TRUSTED_PROXIES=%j as too wide at %j", (value, wide) => {
    expect(wideTrustedRanges(value)).toEqual(wide);
  });

  it("gives each engine ENGINE_COUNT = replicas and ENGINE_INDEX = its StatefulSet ordinal", () => {
    const engine = find("StatefulSet", "engine");
    const env = engine?.spec?.template?.spec.containers[0]?.env ?? [];
    expect(env.find((e) => e.name === "ENGINE_COUNT")?.value).toBe(String(engine?.spec?.replicas));
    expect(env.find((e) => e.name === "ENGINE_INDEX")?.valueFrom?.fieldRef?.fieldPath).toBe(
      "metadata.labels['apps.kubernetes.io/pod-index']",
    );
  });
});

describe(".ci/run", () => {
  it("installs Debian's prometheus (promtool) when it is missing, and stops the packaged service", () => {
    const script = read(".ci", "run");
    expect(script).toMatch(/command -v promtool .*\|\| missing\+=\(prometheus\)/);
    expect(script).toMatch(/service prometheus stop/);
  });
});
