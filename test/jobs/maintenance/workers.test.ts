import { describe, expect, it } from "vitest";
import { holdExpiredWebhook } from "../../../src/edges/schcp/hold-expired.js";
import { MemoryHoldStore } from "../../../src/holds/memory/memory-store.js";
import { createMaintenanceWorkers } from "../../../src/jobs/maintenance/workers.js";
import { fakeHosts, hostKey, recordingLogger, waitFor } from "../support.js";
import { NOW, TTL, holdRequest, placeOrThrow, recordingOutbox } from "./fixtures.js";

const hosts = fakeHosts({
  "maple-street-auto": [hostKey("m")],
  "harbourview-dental": [hostKey("h")],
  "fades-on-queen": [hostKey("f")],
});

function setup(over: Partial<Parameters<typeof createMaintenanceWorkers>[0]> = {}) {
  const logger = recordingLogger();
  const outbox = recordingOutbox();
  const store = new MemoryHoldStore();
  const workers = createMaintenanceWorkers({
    store,
    hosts,
    clock: { now: () => NOW + TTL + 1 },
    outbox,
    logger,
    expiryNotice: holdExpiredWebhook,
    ...over,
  });
  return { workers, logger, outbox, store };
}

describe("maintenance workers", () => {
  it("runs reconciliation and approval timeouts for every configured host", async () => {
    const reconciled: string[] = [];
    const approvals: string[] = [];
    const { workers } = setup({
      reconcile: (id) => Promise.resolve(reconciled.push(id)),
      approvals: (id) => Promise.resolve(approvals.push(id)),
    });
    expect(await workers.runNow("reconcile")).toBe("ran");
    expect(await workers.runNow("approvals")).toBe("ran");
    expect(reconciled).toEqual(["maple-street-auto", "harbourview-dental", "fades-on-queen"]);
    expect(approvals).toEqual(reconciled);
  });

  it("one host's reconcile failure is logged and the other hosts still run", async () => {
    const reconciled: string[] = [];
    const { workers, logger } = setup({
      reconcile: (id) =>
        id === "harbourview-dental"
          ? Promise.reject(new Error("upstream 503"))
          : Promise.resolve(reconciled.push(id)),
    });
    expect(await workers.runNow("reconcile")).toBe("ran");
    expect(reconciled).toEqual(["maple-street-auto", "fades-on-queen"]);
    expect(logger.entries).toEqual([
      {
        level: "error",
        message: "reconcile: host run failed",
        fields: { task: "reconcile", host_id: "harbourview-dental", error: "upstream 503" },
      },
    ]);
  });

  it("catalogs: runs the core's refresh without the shared lock (each process reads its own)", async () => {
    let refreshed = 0;
    const lock = { acquire: () => Promise.resolve(null) }; // another process holds every lock
    const { workers } = setup({ lock, catalogs: () => Promise.resolve(refreshed++) });
    expect(await workers.runNow("catalogs")).toBe("ran");
    expect(await workers.runNow("reconcile")).toBeUndefined();
    expect(await workers.runNow("sweeper")).toBe("skipped_locked");
    expect(refreshed).toBe(1);
  });

  it("has no reconcile or approvals task unless given the function", async () => {
    const { workers } = setup();
    expect(await workers.runNow("reconcile")).toBeUndefined();
    expect(await workers.runNow("approvals")).toBeUndefined();
    expect(await workers.runNow("sweeper")).toBe("ran");
  });

  it("start() runs every task on its interval until stop(), without overlap", async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const slowReconcile = async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setTimeout(r, 15));
      active--;
      runs++;
    };
    const { workers, store, outbox } = setup({
      reconcile: slowReconcile,
      intervals: { sweepMs: 5, reconcileMs: 5, approvalsMs: 5 },
    });
    await placeOrThrow(store, holdRequest("maple-street-auto"));
    workers.start();
    await waitFor(() => runs >= 6 && outbox.sent.length === 1);
    await workers.stop();
    const after = runs;
    await new Promise((r) => setTimeout(r, 50));
    expect(runs).toBe(after); // nothing runs after stop()
    expect(maxActive).toBe(1);
    expect(outbox.sent).toHaveLength(1); // the sweeper found the expiry once
  });
});
