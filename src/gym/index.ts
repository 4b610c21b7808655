/**
 * The composition root: a gym wires worlds, rules, hand-offs, agent kinds and prices into instances
 * (`createGym`, `defaultGym`), describes itself as plain JSON (`gym.describe()`), and is rebuilt from
 * that description in another process (`loadGym`).
 */
export { BUILTIN_AGENT_KINDS, BUILTIN_PARTS, BUILTIN_WORLDS } from "./builtin-parts.ts";
export { defaultGym } from "./default-gym.ts";
export { GYM_SCHEMA_VERSION, type GymDescription, parseGymDescription } from "./description.ts";
export { createGym, Gym, type GymParts, type GymRunOptions } from "./gym.ts";
export { type GymPlugin, loadGym } from "./load-gym.ts";
