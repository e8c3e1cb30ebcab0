export {
  createMaintenanceWorkers,
  type MaintenanceIntervals,
  type MaintenanceOptions,
  type MaintenanceTaskName,
  type MaintenanceWorkers,
} from "./workers.js";
export {
  PeriodicTask,
  type PeriodicTaskOptions,
  type RunOutcome,
  type TaskLease,
  type TaskLock,
} from "./periodic.js";
export { RedisTaskLock, taskLockPrefix, type RedisTaskLockOptions } from "./redis-lock.js";
export {
  sweepExpiredHolds,
  type ExpiryNotice,
  type SweepOptions,
  type SweepReport,
  type SweeperDeps,
} from "./sweeper.js";
