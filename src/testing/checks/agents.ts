import { errorMessage } from "../../core/errors.ts";
import type { JsonObject } from "../../core/json.ts";
import { Rng } from "../../core/rng.ts";
import type { CheckRun } from "../check-run.ts";
import { contextStrings } from "../episodes.ts";
import { findHidden, hiddenNeedles } from "../hidden-values.ts";
import { sampleValue } from "../json-schema.ts";
import { middlingAgent } from "../reference-agents.ts";
import type { CheckPlan, PlannedCheck } from "./planned-check.ts";

/** Records `problems` as the check's failures, or `covered` as what it covered. */
function report(run: CheckRun, problems: string[], covered: string[]): void {
  for (const p of problems) run.record(p);
  if (!problems.length) for (const c of covered) run.note(c);
}

const NO_KNOWN_GOOD = "the world has no known-good policy";

/** Tool names that sound like the verifier or the hidden state: a warning, and a probe call. */
const SUSPECT_NAME = /verif|evaluat|grade|hidden|answer|solution|reference|state|params|secret/i;

/**
 * What the reference agents show (the audit's checks): the null agent and random agents pass nothing
 * (`cheating`: the task is not trivial); the same final state is judged the same twice and after a
 * save/restore (`verdicts`); a middling agent's outcomes vary across seeds (`learning-signal`); no
 * observation holds the verifier id, the content hash or hidden text, and no tool reaches the
 * verifier (`hidden`). The null, random and known-good episodes are played once, by the first of
 * these checks that runs (`plan.agents()`).
 */
export function agentChecks(plan: CheckPlan): PlannedCheck[] {
  const { subject } = plan;
  return [
    {
      name: "cheating: a null agent (ends at once) passes nothing",
      kind: "cheating",
      async run(run) {
        const s = await plan.agents();
        report(run, s.nullProblems, [
          `0/${s.cells} null-agent episodes pass`,
          `nor do ${2 * s.cells} episodes of its keyword-stuffing and blind-submit variants`,
        ]);
      },
    },
    {
      name: "cheating: a random agent passes nothing",
      kind: "cheating",
      async run(run) {
        const s = await plan.agents();
        report(run, s.randomProblems, [`0/${s.cells * s.randomEpisodes} random-agent episodes pass`]);
      },
    },
    {
      name: "verdicts: the same final state is judged the same, twice and after save/restore",
      kind: "verdicts",
      async run(run) {
        const s = await plan.agents();
        report(run, s.verdictProblems, [`${s.judged.length} final states judged twice alike`]);
      },
    },
    {
      name: "learning-signal: outcomes vary across seeds for a middling agent",
      kind: "learning-signal",
      ...(subject.policies[subject.knownGood] ? {} : { notCheckable: NO_KNOWN_GOOD }),
      async run(run) {
        const kg = subject.policies[subject.knownGood]!;
        const seeds = Array.from({ length: subject.signalSeeds }, (_, i) => 1000 + i);
        let passed = 0;
        let total = 0;
        const scores = new Set<number>();
        for (const cell of subject.families.flatMap((f) => subject.cells(f.name, seeds))) {
          const ep = await plan.player.play(middlingAgent(kg, cell.seed), cell);
          total++;
          if (ep.verdict?.passed) passed++;
          if (ep.verdict) scores.add(ep.verdict.score);
          await plan.player.dispose(ep.env);
        }
        const seen = `a middling agent (known-good with 30% random moves) passes ${passed}/${total} episodes; ${scores.size} distinct scores`;
        if (passed === 0 || passed === total)
          report(
            run,
            [
              seen,
              passed === 0
                ? "nothing passes: no reward to learn from"
                : "everything passes: nothing to learn",
            ],
            [],
          );
        else run.note(seen);
      },
    },
    {
      name: "hidden: the verifier and the hidden task params are unreachable from the tools",
      kind: "hidden",
      async run(run) {
        const problems = [...(await plan.agents()).hiddenProblems];
        const warnings: string[] = [];
        const probe = subject.firstCell();
        if (probe) {
          const task = subject.task(probe);
          const env = plan.player.create(task, probe.seed);
          try {
            const first = await env.reset({ task, seed: probe.seed, episodeId: "audit-probe" });
            // a name is a warning; a probe call decides: it fails only if its answer holds a hidden value
            const needles = hiddenNeedles(subject.world, task);
            const pool = contextStrings(first);
            const terminal = env.spec.terminalTools ?? [];
            let ended = false;
            for (const t of env.spec.tools.filter((x) => SUSPECT_NAME.test(x.name))) {
              if (ended || terminal.includes(t.name)) {
                warnings.push(
                  `warning: the tool ${t.name} is named for the verifier or the hidden state (not probed: it ends the episode)`,
                );
                continue;
              }
              const args = sampleValue(
                t.input_schema,
                Rng.seeded(0, `hidden-probe/${t.name}`),
                pool,
              ) as JsonObject;
              const r = await env.step({ tool: t.name, args, callId: `probe-named-${t.name}` });
              const found = findHidden(needles, JSON.stringify(r.observation));
              if (found) problems.push(`calling the tool ${t.name} answers the hidden ${found}`);
              else
                warnings.push(
                  `warning: the tool ${t.name} is named for the verifier or the hidden state (a probe call showed no hidden value)`,
                );
              ended = r.terminated;
            }
            const fixed = ["evaluate", "verify", "saveState", "get_state", "state", "task_params"];
            for (const tool of ended ? [] : fixed) {
              const r = await env.step({ tool, args: {}, callId: `probe-${tool}` });
              const res = r.observation.kind === "tool_result" ? r.observation.result : undefined;
              if (!res || res.ok) problems.push(`calling "${tool}" did not answer an error`);
              if (r.terminated) break;
            }
          } catch (err) {
            problems.push(`probing for verifier tools crashed: ${errorMessage(err)}`);
          } finally {
            await plan.player.dispose(env);
          }
        }
        const hidden = subject.world.hiddenParams;
        const declared = hidden?.length ? `hidden params ${hidden.join(", ")}` : "no declared hidden params";
        report(run, problems, [
          `no observation of the null, random and known-good episodes holds the content hash, the verifier id or hidden text (${declared})`,
          warnings.length
            ? "calling evaluate/verify/saveState/get_state is refused"
            : "no tool is named for the verifier; calling evaluate/verify/saveState/get_state is refused",
          ...warnings,
        ]);
      },
    },
  ];
}
