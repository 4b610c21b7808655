/**
 * Learning curves of the reference learners on a world (default device-support@1): the frozen pass
 * rate on a fixed evaluation set (every family at difficulties 1–3, task seeds 9001 and 9002) after
 * 0, 500, 1000, 2000 and 5000 training episodes (tasks drawn uniformly over families and
 * difficulties), for each learner and seed, with the median over seeds, beside the random-admissible
 * agent on the same set.
 *
 *   node --no-node-snapshot --import tsx bench/learning-curves.ts [--world device-support@1]
 *     [--learners q,pg] [--seeds 1,2,3,4,5] [--checkpoints 0,500,1000,2000,5000] [--json]
 */
import { parseArgs } from "node:util";
import { Rng } from "../src/core/rng.ts";
import { BUILTIN_WORLDS } from "../src/gym/index.ts";
import { Learner, randomAdmissibleAgent } from "../src/learners/index.ts";
import { evaluationSet, passRate, trainLearner } from "../src/train/index.ts";

const { values } = parseArgs({
  options: {
    world: { type: "string", default: "device-support@1" },
    learners: { type: "string", default: "q,pg" },
    seeds: { type: "string", default: "1,2,3,4,5" },
    checkpoints: { type: "string", default: "0,500,1000,2000,5000" },
    json: { type: "boolean", default: false },
  },
});
const list = (s: string) => s.split(",").map((x) => x.trim());
const world = BUILTIN_WORLDS.find((w) => w.id === values.world);
if (!world) throw new Error(`unknown world ${values.world}`);
const seeds = list(values.seeds).map(Number);
const checkpoints = list(values.checkpoints).map(Number);
const parts = { registry: { world: () => world } };
const evalSet = evaluationSet(world, [1, 2, 3], [9001, 9002]);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const random: number[] = [];
for (const seed of seeds)
  random.push(await passRate(parts, world, randomAdmissibleAgent(Rng.seeded(seed, "random")), evalSet));

const results: Record<string, { perSeed: number[][]; median: number[]; cpuSeconds: number }> = {};
for (const kind of list(values.learners)) {
  const started = process.cpuUsage();
  const perSeed: number[][] = [];
  for (const seed of seeds) {
    const rng = Rng.seeded(seed, "learner");
    const learner = kind === "q" ? Learner.q({ rng }) : Learner.pg({ rng });
    const tasks = Rng.seeded(seed, "tasks");
    const curve: number[] = [];
    let trained = 0;
    for (const n of checkpoints) {
      await trainLearner(parts, world, learner, n - trained, tasks);
      trained = n;
      curve.push(await passRate(parts, world, learner, evalSet));
    }
    perSeed.push(curve);
  }
  const used = process.cpuUsage(started);
  results[`learner.${kind}@1`] = {
    perSeed,
    median: checkpoints.map((_, i) => median(perSeed.map((c) => c[i]))),
    cpuSeconds: Math.round((used.user + used.system) / 1e5) / 10,
  };
}

if (values.json) {
  console.log(
    JSON.stringify(
      {
        world: world.id,
        evalTasks: evalSet.length,
        seeds,
        checkpoints,
        random,
        randomMedian: median(random),
        results,
      },
      null,
      2,
    ),
  );
} else {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`.padStart(7);
  console.log(
    `${world.id}: frozen pass rate on ${evalSet.length} evaluation tasks, median of seeds ${seeds.join(",")}`,
  );
  console.log(`random-admissible: ${pct(median(random))}  (per seed: ${random.map(pct).join(" ")})`);
  console.log(`episodes          ${checkpoints.map((c) => String(c).padStart(7)).join("")}`);
  for (const [id, r] of Object.entries(results)) {
    console.log(`${id.padEnd(18)}${r.median.map(pct).join("")}   (${r.cpuSeconds} s CPU)`);
    r.perSeed.forEach((c, i) => {
      console.log(`  seed ${String(seeds[i]).padEnd(12)}${c.map(pct).join("")}`);
    });
  }
}
