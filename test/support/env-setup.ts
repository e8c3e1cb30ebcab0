/**
 * Runs in every test worker before its tests (vitest setupFiles). REDIS_CLUSTER_NODES (set by
 * .ci/run for the cluster tests) is moved out of the environment into
 * TEST_REDIS_CLUSTER_NODES: a gateway process a test spawns inherits process.env, and one that
 * found both the test's REDIS_URL and a cluster would refuse to start (serve-env). Tests that
 * want the cluster ask test/support/redis-cluster.ts, which reads the moved value.
 */
const nodes = process.env["REDIS_CLUSTER_NODES"];
if (nodes !== undefined) {
  process.env["TEST_REDIS_CLUSTER_NODES"] ??= nodes;
  delete process.env["REDIS_CLUSTER_NODES"];
}

// The tests' upstream fakes listen on loopback: a gateway process a test spawns with the
// parent's environment may reach them (the operator's explicit allowance,
// src/protocol/net/policy.ts). A test of the policy itself passes an environment without it.
process.env["UPSTREAM_ALLOW_PRIVATE"] ??= "1";
