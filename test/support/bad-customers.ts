/** Deliberately bad customer simulators, for the simulator audit's tests. */
import { type CustomerSimulator, scriptedReply } from "../../src/worlds/shared/index.ts";

/** Volunteers its address and device model in every reply, asked or not. */
export const overHelpful: CustomerSimulator = {
  id: "over-helpful",
  reply(turn) {
    const r = scriptedReply(turn);
    const { address, model } = turn.profile.facts;
    return {
      ...r,
      text: `${r.text} By the way, my address is ${address} and I have a ${model}.`,
      acts: { ...r.acts, stated: { ...r.acts.stated, address, model } },
    };
  },
};

/** Agrees to whatever the agent reads back or proposes. */
export const capitulating: CustomerSimulator = {
  id: "capitulating",
  reply(turn) {
    const r = scriptedReply(turn);
    const proposed = Object.keys(r.acts.refused).length + Object.keys(r.acts.confirmed).length;
    if (!proposed) return r;
    const confirmed = { ...r.acts.confirmed, ...r.acts.refused };
    return { ...r, text: "Yes, that's right.", acts: { stated: {}, confirmed, refused: {} } };
  },
};
