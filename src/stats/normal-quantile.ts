import { requireOpenUnit } from "./argument-guards.ts";

// Wichura, M. J. (1988), "Algorithm AS 241: The Percentage Points of the Normal Distribution",
// Applied Statistics 37(3), 477–484 (PPND16). Coefficients are listed from degree 0 to degree 7, each
// the nearest double to the published 20-digit value.
const CENTRAL_NUM = [
  3.3871328727963665, 133.14166789178438, 1971.5909503065513, 13731.69376550946, 45921.95393154987,
  67265.7709270087, 33430.57558358813, 2509.0809287301227,
];
const CENTRAL_DEN = [
  1, 42.31333070160091, 687.1870074920579, 5394.196021424751, 21213.794301586597, 39307.89580009271,
  28729.085735721943, 5226.495278852854,
];
const MIDDLE_NUM = [
  1.4234371107496835, 4.630337846156546, 5.769497221460691, 3.6478483247632045, 1.2704582524523684,
  0.2417807251774506, 0.022723844989269184, 0.0007745450142783414,
];
const MIDDLE_DEN = [
  1, 2.053191626637759, 1.6763848301838038, 0.6897673349851, 0.14810397642748008, 0.015198666563616457,
  0.0005475938084995345, 1.0507500716444169e-9,
];
const TAIL_NUM = [
  6.657904643501103, 5.463784911164114, 1.7848265399172913, 0.29656057182850487, 0.026532189526576124,
  0.0012426609473880784, 2.7115555687434876e-5, 2.0103343992922881e-7,
];
const TAIL_DEN = [
  1, 0.599832206555888, 0.1369298809227358, 0.014875361290850615, 0.0007868691311456133,
  1.8463183175100548e-5, 1.421511758316446e-7, 2.0442631033899397e-15,
];

/** Evaluates sum(coefficients[i] * x^i) by Horner's rule. */
function polynomial(coefficients: readonly number[], x: number): number {
  let sum = 0;
  for (let i = coefficients.length - 1; i >= 0; i--) sum = sum * x + coefficients[i];
  return sum;
}

/**
 * Quantile (inverse CDF) of the standard normal distribution by Wichura's AS 241 (PPND16): minimax
 * rational approximations for the centre (|p - 0.5| <= 0.425) and, in r = sqrt(-ln(min(p, 1 - p))),
 * for the intermediate (r <= 5) and far tails. Relative error is about 1e-16, so any confidence level
 * works. `normalQuantile(0.975)` ≈ 1.959963984540054. Throws a RangeError unless 0 < p < 1.
 */
export function normalQuantile(p: number): number {
  requireOpenUnit("p", p);
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * polynomial(CENTRAL_NUM, r)) / polynomial(CENTRAL_DEN, r);
  }
  const r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  const x =
    r <= 5
      ? polynomial(MIDDLE_NUM, r - 1.6) / polynomial(MIDDLE_DEN, r - 1.6)
      : polynomial(TAIL_NUM, r - 5) / polynomial(TAIL_DEN, r - 5);
  return q < 0 ? -x : x;
}

/**
 * The two-sided critical value z with P(|Z| <= z) = confidence, i.e. the (1 + confidence) / 2 normal
 * quantile, computed from the small tail for accuracy: `twoSidedZ(0.95)` ≈ 1.959963984540054.
 */
export function twoSidedZ(confidence: number): number {
  requireOpenUnit("confidence", confidence);
  return -normalQuantile((1 - confidence) / 2);
}
