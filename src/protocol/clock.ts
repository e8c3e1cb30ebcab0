/**
 * The one clock shape of the gateway: the current instant as epoch milliseconds. Every
 * dependency object that reads the time takes `clock: Clock`, so tests hand in a fake
 * (`{ now: () => t }`) and nothing else calls `Date.now` for a decision. src/protocol is a leaf:
 * every layer may import it (docs/ARCHITECTURE.md, Layers). A pure function that needs only
 * the current instant takes it as a value (`now: number`) instead.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };
