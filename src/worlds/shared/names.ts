import type { Rng } from "../../core/rng.ts";

const FIRST_NAMES = [
  "Ana",
  "Ben",
  "Chen",
  "Dara",
  "Eli",
  "Fatima",
  "Goran",
  "Hana",
  "Ivo",
  "Jun",
  "Kemal",
  "Lena",
];
const LAST_NAMES = [
  "Alvarez",
  "Brook",
  "Costa",
  "Dumont",
  "Eriksen",
  "Fischer",
  "Gupta",
  "Hale",
  "Ito",
  "Jovanovic",
];
const STREETS = ["Elm St", "Harbour Rd", "Mill Lane", "Station Ave", "Kingsway", "Rue Verte", "Oak Court"];

/** A generated customer's name, `First Last` (two draws from `rng`). */
export const personName = (rng: Rng): string => `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;

/** A generated street address line, `<number> <street>` (two draws from `rng`). */
export const streetLine = (rng: Rng): string => `${rng.int(1, 240)} ${rng.pick(STREETS)}`;
