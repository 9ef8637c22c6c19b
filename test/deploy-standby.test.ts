// The standby engine's Kubernetes manifest (deploy/k8s/engine-standby.yaml, docs/scale-out.md "Standbys"): its
// settings load as a standby of the owners' ENGINE_COUNT, it is alive on /healthz while it waits (listening) and
// has no startup probe, its Service publishes it before it is ready, and the gateways list it in every entry.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { loadEngineSettings } from "../engine/config.js";
import { loadGatewaySettings } from "../gateway/config.js";
import { DEPLOY } from "./harness/prometheus.js";

interface Container {
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  livenessProbe?: { httpGet?: { path: string; port: string } };
  startupProbe?: unknown;
  readinessProbe?: { grpc?: { port: number } };
}
interface Manifest {
  kind: string;
  metadata: { name: string };
  spec?: { publishNotReadyAddresses?: boolean; template?: { spec: { containers: Container[] } } };
}

const manifests = (file: string): Manifest[] =>
  parseAllDocuments(readFileSync(path.join(DEPLOY, "k8s", file), "utf8")).map((doc) => doc.toJS() as Manifest);
const find = (file: string, kind: string, name: string): Manifest | undefined =>
  manifests(file).find((m) => m.kind === kind && m.metadata.name === name);
const values = (container: Container | undefined): Record<string, string> =>
  Object.fromEntries((container?.env ?? []).flatMap((e) => (e.value === undefined ? [] : [[e.name, e.value]])));

describe("deploy/k8s/engine-standby.yaml", () => {
  const standby = find("engine-standby.yaml", "StatefulSet", "engine-standby")?.spec?.template?.spec.containers[0];
  const owner = find("engine.yaml", "StatefulSet", "engine")?.spec?.template?.spec.containers[0];

  it("runs a standby of the owners' ENGINE_COUNT, its secrets from the Secret", () => {
    const env = values(standby);
    expect(env.ENGINE_ROLE).toBe("standby");
    expect(env.ENGINE_COUNT).toBe(values(owner).ENGINE_COUNT);
    const settings = loadEngineSettings({
      ...env,
      DATABASE_URL: "postgres://trading:secret@postgres:5432/trading",
      INTERNAL_TOKEN: "0123456789abcdef0123",
    });
    expect(settings.ENGINE_ROLE).toBe("standby");
    const secrets = (standby?.env ?? []).filter((e) => e.valueFrom !== undefined).map((e) => e.valueFrom?.secretKeyRef);
    expect(secrets.every((ref) => ref?.name === "funded-trading-secrets")).toBe(true);
  });

  it("is alive on /healthz while it waits, has no startup probe, and is ready once it serves", () => {
    expect(standby?.livenessProbe?.httpGet).toEqual({ path: "/healthz", port: "metrics" });
    expect(standby?.startupProbe).toBeUndefined();
    expect(standby?.readinessProbe?.grpc).toEqual({ port: 50051 });
    expect(find("engine-standby.yaml", "Service", "engine-standby")?.spec?.publishNotReadyAddresses).toBe(true);
  });

  it("is listed after the owner in every entry of the gateways' ENGINE_GRPC_TARGETS", () => {
    const gateway = find("gateway.yaml", "Deployment", "gateway")?.spec?.template?.spec.containers[0];
    const targets = values(gateway).ENGINE_GRPC_TARGETS ?? "";
    const entries = targets.split(",");
    expect(entries).toHaveLength(Number(values(owner).ENGINE_COUNT));
    entries.forEach((entry, k) => {
      expect(entry).toBe(`engine-${k}.engine:50051|engine-standby-0.engine-standby:50051`);
    });
    expect(() =>
      loadGatewaySettings({ ENGINE_GRPC_TARGETS: targets, INTERNAL_TOKEN: "0123456789abcdef0123" }),
    ).not.toThrow();
  });
});
