import { BaseSampler } from "./base-sampler.ts";

/** Uniform: every eligible key has weight 1, P(i) = 1/n. The baseline (domain randomization). */
export class UniformSampler extends BaseSampler {
  readonly strategy = "uniform";

  protected weights(mask: Uint8Array): Float64Array {
    return Float64Array.from(mask);
  }
}
