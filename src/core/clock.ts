/** Virtual time in seconds since the start of the episode. Never the wall clock. */
export class VirtualClock {
  private t: number;

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  /** Moves time forward; time never goes back. */
  advance(seconds: number): number {
    if (!(seconds >= 0)) throw new RangeError(`clock cannot advance by ${seconds}`);
    this.t += seconds;
    return this.t;
  }

  set(t: number): void {
    if (t < this.t) throw new RangeError(`clock cannot go back from ${this.t} to ${t}`);
    this.t = t;
  }

  saveState(): number {
    return this.t;
  }

  static fromState(t: number): VirtualClock {
    return new VirtualClock(t);
  }
}
