// The lazy.* settings, read once into a plain object so the rest never touches
// WorkspaceConfiguration (and tests pass literals).
import { AGENT_IDS, type Agent, type InitializationOptions, isRecord } from "../protocol";

export interface Settings {
  sidecarPath: string;
  python: string;
  store: string;
  extraSourceRoots: Record<Agent, string[]>;
  liveCapture: boolean;
}

export type SettingGetter = (key: string) => unknown;

export function readSettings(get: SettingGetter): Settings {
  const text = (key: string): string => {
    const v = get(key);
    return typeof v === "string" ? v.trim() : "";
  };
  const roots = get("extraSourceRoots");
  const extra = Object.fromEntries(AGENT_IDS.map((a) => [a, [] as string[]])) as Record<Agent, string[]>;
  if (isRecord(roots)) {
    for (const agent of AGENT_IDS) {
      const list = roots[agent];
      if (Array.isArray(list)) {
        extra[agent] = list.filter((x): x is string => typeof x === "string" && x.trim() !== "");
      }
    }
  }
  const live = get("liveCapture");
  return {
    sidecarPath: text("sidecar.path"),
    python: text("python"),
    store: text("store"),
    extraSourceRoots: extra,
    liveCapture: typeof live === "boolean" ? live : true,
  };
}

/** The sidecar's initializationOptions (InitializationOptions in protocol.py, which refuses
 * any field it does not know). */
export function initializationOptions(s: Settings): InitializationOptions & {
  live_capture: boolean;
  extra_roots: Record<Agent, string[]>;
} {
  return { live_capture: s.liveCapture, extra_roots: s.extraSourceRoots };
}
