/**
 * What `--remote URL` and `proving audit URL` play: one of our own servers (its `/metadata` names a
 * world this gym knows) or a foreign OpenEnv server (anything else), whose world is registered in
 * this gym's registry for the run (`foreignWorld`: one family, a task per seed, reward-judged).
 * The client (and ws) load only when a URL is given.
 */
import type { EnvironmentFactory } from "../../core/environment-factory.ts";
import type { Gym } from "../../gym/gym.ts";
import type { ClientOptions } from "../../serve/client.ts";
import type { RemoteLimits } from "../../serve/remote-environment.ts";

export interface AnyRemoteTarget {
  url: string;
  /** The world id to run (ours, or the foreign server's registered for this run). */
  world: string;
  foreign: boolean;
  /** The limits the server declares (ours), if any. */
  limits: RemoteLimits | undefined;
  environment: EnvironmentFactory;
  close(): Promise<void>;
}

export async function connectAnyRemote(
  url: string,
  token: string | undefined,
  gym: Gym,
): Promise<AnyRemoteTarget> {
  const opts: ClientOptions = token ? { token } : {};
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
  };
}
