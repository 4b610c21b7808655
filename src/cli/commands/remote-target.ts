/**
 * What `--remote URL` (of `run` and `serve`) and `proving audit URL` play: one of our own servers
 * (its `/metadata` names a world this gym knows) or a foreign OpenEnv server (anything else), whose
 * world is registered in this gym's registry for the run (`foreignWorld`: one family, a task per
 * seed, reward-judged).
 * The client (and ws) load only when a URL is given.
 */
import type { EnvironmentFactory } from "../../core/environment-factory.ts";
import { configError } from "../../core/errors.ts";
import type { JsonValue } from "../../core/json.ts";
import type { Gym } from "../../gym/gym.ts";
import type { TrialAdmission } from "../../runner/admission.ts";
import type { ClientOptions } from "../../serve/client.ts";
import type { RemoteLimits } from "../../serve/remote-environment.ts";
import type { ServeTarget } from "../../serve/target.ts";
import { readOneVariant } from "../variant-flag.ts";

export interface AnyRemoteTarget {
  url: string;
  /** The world id to run (ours, or the foreign server's registered for this run). */
  world: string;
  foreign: boolean;
  /** The limits the server declares (ours), if any. */
  limits: RemoteLimits | undefined;
  environment: EnvironmentFactory;
  close(): Promise<void>;
  /** The server's sessions: a run starts at most as many trials at once as the server takes. */
  admission: TrialAdmission;
}

/**
 * `capacityWaitMs`: how long opening an episode may wait for a slot of a server at capacity (a run
 * plays several trials at once, an OpenEnv server takes one session unless told otherwise); 0 (serve,
 * audit): refused at once.
 */
export async function connectAnyRemote(
  url: string,
  token: string | undefined,
  gym: Gym,
  capacityWaitMs = 0,
): Promise<AnyRemoteTarget> {
  const opts: ClientOptions = {
    ...(token ? { token } : {}),
    ...(capacityWaitMs > 0 ? { capacityWaitMs } : {}),
  };
  const { serverMetadata, isOwnServer, connectForeign } = await import("../../serve/foreign-openenv.ts");
  const metadata = await serverMetadata(url, opts);
  if (isOwnServer(metadata, (id) => gym.registry.hasWorld(id))) {
    const { connectRemote } = await import("../../serve/remote-environment.ts");
    const remote = await connectRemote(url, opts);
    return { ...remote, foreign: false };
  }
  if (typeof metadata.world === "string" && Array.isArray(metadata.tools))
    process.stderr.write(
      `proving: ${url} serves ${metadata.world}, which this gym does not know: played as a foreign OpenEnv server (reward-judged); give its gym (--gym) to judge it by its verifier\n`,
    );
  const foreign = await connectForeign(url, opts);
  if (!gym.registry.hasWorld(foreign.world.id)) gym.registry.registerWorld(foreign.world);
  return {
    url: foreign.url,
    world: foreign.world.id,
    foreign: true,
    limits: undefined,
    environment: foreign.environment,
    close: foreign.close,
    admission: foreign.admission,
  };
}

/**
 * What `proving serve --remote URL` serves: the foreign server's world (registered by
 * `connectAnyRemote`), bare or wrapped in the layers of `--variant` (its `world` the foreign world's
 * id or name, or left out); a session's connection to the server closes when the session drops it.
 */
export function remoteServeTarget(
  gym: Gym,
  remote: AnyRemoteTarget,
  flags: { world?: string; variant?: string },
): ServeTarget {
  if (!remote.foreign)
    throw configError(
      "bad_flag",
      `--remote ${remote.url} is a proving serve of ${remote.world}, a world this gym knows: serve it with --world ${remote.world} (serve --remote is for servers we did not write)`,
    );
  if (flags.world !== undefined && gym.registry.world(flags.world).id !== remote.world)
    throw configError("remote_world_mismatch", `--remote serves ${remote.world}, not ${flags.world}`);
  const variant =
    flags.variant !== undefined
      ? onRemoteWorld(readOneVariant(flags.variant, gym), remote.world, gym)
      : undefined;
  // a session's connection to the server closes when the session drops its environment
  // (`Environment.close`, through any layers)
  return gym.target(remote.world, variant);
}

/** A variant on the remote's world: a variant without `world` gets it; one on another world is refused. */
function onRemoteWorld(variant: JsonValue, world: string, gym: Gym): JsonValue {
  const object =
    typeof variant === "object" && variant !== null && !Array.isArray(variant) ? variant : undefined;
  if (object && object.world === undefined) return { ...object, world };
  const base = typeof variant === "string" ? variant : object?.world;
  if (typeof base !== "string") return variant; // the harness says what is wrong with it
  if ((gym.registry.hasWorld(base) ? gym.registry.world(base).id : base) !== world)
    throw configError(
      "remote_world_mismatch",
      `--variant is built on ${base}, but --remote serves ${world}: name ${world} as the variant's world, or leave world out`,
    );
  return variant;
}
