/**
 * `proving train ...`: the experiments that train a reference learner (`learner:q`, `learner:pg`) and
 * measure the adaptive machinery against it. Each subcommand lives in its own file and registers itself
 * here; this group only holds them.
 */
import type { Command } from "commander";
import type { GymSource } from "../gym-source.ts";
import { registerTrainCurriculum } from "./train-curriculum.ts";
import { registerTrainRig } from "./train-rig.ts";
import { registerTrainTransfer } from "./train-transfer.ts";

export function registerTrain(program: Command, gymSource: GymSource): void {
  const train = program
    .command("train")
    .description(
      "train a reference learner and measure the curriculum, the rigger's variants and the rigger against it",
    );
  registerTrainCurriculum(train, gymSource);
  registerTrainTransfer(train, gymSource);
  registerTrainRig(train, gymSource);
}
