// A small reader of V8 .cpuprofile files (what `node --cpu-prof` writes): self time per function, so that
// `npm run bench -- --profile` can name where each process of the stack spends its CPU.

export interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based. */
  lineNumber: number;
  columnNumber?: number;
}

export interface CpuProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  /** µs */
  startTime: number;
  endTime: number;
  samples?: number[];
  /** µs between consecutive samples (the first from startTime). */
  timeDeltas?: number[];
}

export interface FunctionTime {
  /** Function name and where it is: `name path:line`. */
  name: string;
  selfMs: number;
  /** Share of the busy time (everything but idle). */
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  busyMs: number;
  /** V8's own buckets, part of busy time. */
  gcMs: number;
  programMs: number;
  top: FunctionTime[];
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/** `file:///root/x/y.ts` → `x/y.ts` under `root`; in node_modules from the package name on; else as it is. */
export function shortUrl(url: string, root: string): string {
  const plain = url.startsWith("file://") ? url.slice("file://".length) : url;
  const modules = plain.lastIndexOf("/node_modules/");
  if (modules >= 0) return plain.slice(modules + "/node_modules/".length);
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return plain.startsWith(prefix) ? plain.slice(prefix.length) : plain;
}

function frameName(frame: CallFrame, root: string): string {
  const name = frame.functionName === "" ? "(anonymous)" : frame.functionName;
  if (frame.url === "") return name;
  return `${name} ${shortUrl(frame.url, root)}:${frame.lineNumber + 1}`;
}

/**
 * Self time per function (same name and place summed over the call tree), the `top` heaviest first. A
 * sample lasts until the next one (the last until endTime), as Chrome's profiler panel counts it.
 */
export function summarizeProfile(profile: CpuProfile, top: number, root = ""): ProfileSummary {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfByNode = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let at = profile.startTime;
  for (let i = 0; i < samples.length; i++) {
    at += deltas[i] ?? 0;
    const next = i + 1 < samples.length ? at + (deltas[i + 1] ?? 0) : profile.endTime;
    const id = samples[i] ?? -1;
    selfByNode.set(id, (selfByNode.get(id) ?? 0) + Math.max(0, next - at));
  }
  const byName = new Map<string, number>();
  let idle = 0;
  let gc = 0;
  let program = 0;
  let total = 0;
  for (const [id, us] of selfByNode) {
    const node = byNode.get(id);
    if (node === undefined) continue;
    total += us;
    const fn = node.callFrame.functionName;
    if (fn === "(idle)") idle += us;
    else {
      if (fn === "(garbage collector)") gc += us;
      if (fn === "(program)") program += us;
      const name = frameName(node.callFrame, root);
      byName.set(name, (byName.get(name) ?? 0) + us);
    }
  }
  const busy = total - idle;
  const heaviest = [...byName]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({ name, selfMs: round(us / 1000, 1), share: busy > 0 ? round(us / busy, 3) : 0 }));
  return {
    totalMs: round(total / 1000, 1),
    idleMs: round(idle / 1000, 1),
    busyMs: round(busy / 1000, 1),
    gcMs: round(gc / 1000, 1),
    programMs: round(program / 1000, 1),
    top: heaviest,
  };
}

/** pid and thread id from node's default name `CPU.<date>.<time>.<pid>.<tid>.<seq>.cpuprofile`. */
export function profileFileName(name: string): { pid: number; tid: number } | undefined {
  const match = /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(name);
  if (match === null) return undefined;
  return { pid: Number(match[1]), tid: Number(match[2]) };
}
