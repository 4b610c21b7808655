import type { WebSocket } from "ws";

/** Backpressure on one WebSocket connection (docs/serving.md, "Errors and limits"). */
export interface WsFlowLimits {
  /**
   * Largest send buffer of one connection in bytes (replies written but not yet taken by the
   * client). Reading from the client pauses at a quarter of it; past it the connection is dropped.
   */
  maxSendBufferBytes: number;
  /** Most requests of one connection received and not yet answered; past it the connection is dropped. */
  maxPending: number;
}

export const DEFAULT_WS_FLOW: WsFlowLimits = { maxSendBufferBytes: 4 << 20, maxPending: 16_384 };

/** Requests in flight at which reading from the connection pauses (resumed below half of it). */
const PAUSE_AT_PENDING = 256;

/** What the server's connections did under backpressure, since start (`RunningServer.wsFlow()`). */
export interface WsFlowStats {
  /** Times a connection's reading was paused (its client was sent more than it took). */
  paused: number;
  /** Connections dropped for a full send buffer or too many unanswered requests. */
  dropped: number;
  /** The largest send buffer any connection reached, in bytes. */
  peakBufferedBytes: number;
  /** The most unanswered requests any connection had. */
  peakPending: number;
}

export function newWsFlowStats(): WsFlowStats {
  return { paused: 0, dropped: 0, peakBufferedBytes: 0, peakPending: 0 };
}

/**
 * One connection's flow: requests counted in, replies counted out. While the client does not take
 * its replies (the send buffer over a quarter of the limit) or has many requests unanswered, the
 * server stops reading from it, so TCP pushes back on its sends; a client past either limit is
 * dropped (the socket is closed: a client that does not read would never see a close frame).
 */
export class WsFlow {
  private pending = 0;
  private paused = false;
  private readonly highWater: number;
  private readonly onFlushed = () => this.maybeResume();

  constructor(
    private readonly ws: WebSocket,
    private readonly limits: WsFlowLimits,
    private readonly stats: WsFlowStats,
  ) {
    this.highWater = Math.max(1, Math.floor(limits.maxSendBufferBytes / 4));
  }

  /** A request arrived. False: the connection was dropped (too many unanswered). */
  received(): boolean {
    const pending = ++this.pending;
    if (pending > this.stats.peakPending) this.stats.peakPending = pending;
    if (pending > this.limits.maxPending) {
      this.drop();
      return false;
    }
    if (pending >= PAUSE_AT_PENDING) this.pause();
    return true;
  }

  /** A request was answered with nothing to send (the connection closes). */
  settled(): void {
    this.pending--;
  }

  /** Sends a request's reply, or drops the connection when the reply would overflow its buffer. */
  reply(text: string): void {
    this.pending--;
    const ws = this.ws;
    if (ws.readyState !== ws.OPEN) return;
    const buffered = ws.bufferedAmount + text.length;
    if (buffered > this.limits.maxSendBufferBytes) {
      this.drop();
      return;
    }
    if (buffered > this.stats.peakBufferedBytes) this.stats.peakBufferedBytes = buffered;
    if (buffered >= this.highWater) this.pause();
    // while paused, each reply is sent with a check once it (and all before it) is written out
    if (this.paused) ws.send(text, this.onFlushed);
    else ws.send(text);
  }

  private pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.stats.paused++;
    this.ws.pause();
  }

  private maybeResume(): void {
    if (!this.paused || this.pending >= PAUSE_AT_PENDING / 2) return;
    if (this.ws.bufferedAmount >= this.highWater / 2) return;
    this.paused = false;
    this.ws.resume();
  }

  private drop(): void {
    if (this.ws.readyState === this.ws.CLOSED) return;
    this.stats.dropped++;
    this.ws.terminate();
  }
}
