import type { JsonValue } from "./json.ts";

/** A background job: plain data, so a scheduler can be saved and restored. */
export interface Job {
  readonly id: number;
  /** Virtual time (seconds) at which the job fires. */
  readonly due: number;
  /** What the job does; the owning world interprets it. */
  readonly kind: string;
  readonly data: JsonValue;
  /** The episode that scheduled it. A job never fires into another episode. */
  readonly owner: string;
}

export interface SchedulerState {
  nextId: number;
  jobs: Job[];
}

/**
 * A trial-owned scheduler of background jobs. Jobs are data; the world that owns the scheduler
 * decides what each kind does when it fires. Jobs fire in (due, id) order.
 */
export class Scheduler {
  private nextId: number;
  private jobs: Job[];

  constructor(state?: SchedulerState) {
    this.nextId = state?.nextId ?? 1;
    this.jobs = state ? state.jobs.map((j) => ({ ...j })) : [];
  }

  schedule(owner: string, due: number, kind: string, data: JsonValue = null): Job {
    const job: Job = { id: this.nextId++, due, kind, data, owner };
    // keep sorted by (due, id): insert after every job due at or before this one
    let i = this.jobs.length;
    while (i > 0 && this.jobs[i - 1].due > due) i--;
    this.jobs.splice(i, 0, job);
    return job;
  }

  cancel(id: number): boolean {
    const i = this.jobs.findIndex((j) => j.id === id);
    if (i < 0) return false;
    this.jobs.splice(i, 1);
    return true;
  }

  /** Moves a pending job `seconds` later (a new id); returns the new id, or undefined when not pending. */
  defer(id: number, seconds: number): number | undefined {
    const job = this.jobs.find((j) => j.id === id);
    if (!job) return undefined;
    this.cancel(id);
    return this.schedule(job.owner, job.due + seconds, job.kind, job.data).id;
  }

  /** Cancels every job; returns how many were pending. */
  cancelAll(): number {
    const n = this.jobs.length;
    this.jobs = [];
    return n;
  }

  pending(): readonly Job[] {
    return this.jobs;
  }

  nextDue(): number | undefined {
    return this.jobs[0]?.due;
  }

  /** Removes and returns the earliest job due at or before `t`, if any. */
  takeNextDue(t: number): Job | undefined {
    const first = this.jobs[0];
    if (first === undefined || first.due > t) return undefined;
    this.jobs.shift();
    return first;
  }

  saveState(): SchedulerState {
    return { nextId: this.nextId, jobs: this.jobs.map((j) => ({ ...j })) };
  }

  static fromState(state: SchedulerState): Scheduler {
    return new Scheduler(state);
  }
}
