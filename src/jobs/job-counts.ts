/**
 * How many jobs a queue holds, by state, for the operator's metrics (read at scrape time by
 * src/gateway/metrics). BullMQ's own counts in Redis mode; an in-process queue counts its own.
 */
import type { Queue } from "bullmq";

/** Jobs by state: "waiting", "active", "delayed", "prioritized", "waiting-children", "failed". */
export type JobCounts = Readonly<Record<string, number>>;

/** A queue that can say how many jobs it holds. */
export interface CountsJobs {
  jobCounts(): Promise<JobCounts>;
}

const STATES = ["waiting", "active", "delayed", "prioritized", "waiting-children", "failed"] as const;

/** BullMQ's counts of one queue (one round trip; the queue's keys share one slot). */
export function bullmqJobCounts(queue: Pick<Queue, "getJobCounts">): Promise<JobCounts> {
  return queue.getJobCounts(...STATES);
}
