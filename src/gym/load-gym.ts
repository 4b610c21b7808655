import path from "node:path";
import { pathToFileURL } from "node:url";
import { configError, errorMessage } from "../core/errors.ts";
import { BUILTIN_PARTS } from "./builtin-parts.ts";
import { parseGymDescription } from "./description.ts";
import { createGym, type Gym, type GymParts } from "./gym.ts";

/** What a plugin module's default export holds: parts to choose from by id (all optional). */
export type GymPlugin = Pick<GymParts, "worlds" | "rules" | "handoffs" | "agentKinds">;

type PartKind = keyof GymPlugin;
const KINDS: readonly PartKind[] = ["worlds", "rules", "handoffs", "agentKinds"];
type Part = NonNullable<GymPlugin[PartKind]>[number];
const partId = (kind: PartKind, part: Part): string =>
  kind === "agentKinds" ? (part as { prefix: string }).prefix : (part as { id: string }).id;

async function importPlugin(specifier: string, cwd: string): Promise<GymPlugin> {
  const url = /^(\.{1,2}[/\\]|\/)/.test(specifier)
    ? pathToFileURL(path.resolve(cwd, specifier)).href
    : specifier;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (err) {
    throw configError("bad_gym_plugin", `cannot load gym plugin ${specifier}: ${errorMessage(err)}`);
  }
  const plugin = mod.default;
  if (typeof plugin !== "object" || plugin === null || Array.isArray(plugin)) {
    throw configError(
      "bad_gym_plugin",
      `gym plugin ${specifier}: the default export must be an object {worlds?, rules?, handoffs?, agentKinds?}`,
    );
  }
  for (const kind of KINDS) {
    const list = (plugin as Record<string, unknown>)[kind];
    if (list !== undefined && !Array.isArray(list)) {
      throw configError("bad_gym_plugin", `gym plugin ${specifier}: ${kind} must be a list`);
    }
  }
  return plugin as GymPlugin;
}

/**
 * Builds the gym a description names (`gym.describe()`, plain JSON) — in this process or another:
 * the built-in parts plus those of its plugin modules, chosen by id. An id that neither the built-ins
 * nor a plugin provides is a config error. `env` is the environment agent kinds read (API keys).
 *
 * @example
 * ```ts
 * const description = defaultGym().describe(); // plain JSON: store it, send it to a worker
 * const same = await loadGym(description, { cwd: process.cwd(), env: process.env });
 * ```
 */
export async function loadGym(
  description: unknown,
  opts: {
    cwd?: string;
    env?: Readonly<Record<string, string | undefined>>;
    limiters?: GymParts["limiters"];
    warn?: GymParts["warn"];
  } = {},
): Promise<Gym> {
  const desc = parseGymDescription(description);
  const cwd = opts.cwd ?? process.cwd();
  const available = new Map<PartKind, Map<string, Part>>(KINDS.map((k) => [k, new Map()]));
  const offer = (kind: PartKind, parts: readonly Part[] | undefined, from: string) => {
    const byId = available.get(kind)!;
    for (const part of parts ?? []) {
      const id = partId(kind, part);
      const twin = byId.get(id);
      if (twin && twin !== part) {
        throw configError(
          "duplicate_gym_part",
          `${from} provides ${kind} "${id}", which is already provided`,
        );
      }
      byId.set(id, part);
    }
  };
  for (const kind of KINDS) offer(kind, BUILTIN_PARTS[kind] as readonly Part[], "the built-ins");
  for (const specifier of desc.plugins) {
    const plugin = await importPlugin(specifier, cwd);
    for (const kind of KINDS) offer(kind, plugin[kind] as readonly Part[] | undefined, `plugin ${specifier}`);
  }
  const pick = <T extends Part>(kind: PartKind, ids: string[]): T[] =>
    ids.map((id) => {
      const part = available.get(kind)!.get(id);
      if (!part) {
        throw configError(
          "unknown_gym_part",
          `the gym names ${kind} "${id}", which neither the built-ins nor its plugins (${desc.plugins.join(", ") || "none"}) provide`,
        );
      }
      return part as T;
    });
  return createGym({
    worlds: pick("worlds", desc.worlds),
    rules: pick("rules", desc.rules),
    handoffs: pick("handoffs", desc.handoffs),
    agentKinds: pick("agentKinds", desc.agentKinds),
    prices: desc.prices,
    plugins: desc.plugins,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.limiters ? { limiters: opts.limiters } : {}),
    ...(opts.warn ? { warn: opts.warn } : {}),
  });
}
