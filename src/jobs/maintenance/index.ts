export { createMaintenanceWorkers, type MaintenanceIntervals } from "./workers.js";
export { RedisTaskLock, taskLockPrefix } from "./redis-lock.js";
