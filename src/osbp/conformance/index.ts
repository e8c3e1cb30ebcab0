/**
 * The OSBP conformance module: a reference host any OSBP implementation or conformance kit can
 * run against in process, with no accounts, secrets or network.
 *
 * - CONFORMANCE_HOST_ID, conformanceScenario, conformanceHostConfig(): the host (Bayview
 *   Reference Studio, a synthetic platform) and its hosts-config entry;
 * - createAdapter(options), createConformanceAdapter(mode, options): the OSBP BookingAdapter
 *   over it, with test hooks (lastVerificationCode, connector);
 * - conformanceFixtures: the host in OSBP terms (ids, names, exact Money per service role, a
 *   sample customer) plus bookableDate(now) and mandateFor(overrides).
 */
export {
  CONFORMANCE_HOST_CONFIG,
  CONFORMANCE_HOST_ID,
  conformanceHostConfig,
  conformanceScenario,
} from "./host.js";
export {
  createAdapter,
  createConformanceAdapter,
  type ConformanceAdapter,
  type ConformanceAdapterOptions,
  type ConformanceMode,
} from "./adapter.js";
export {
  CONFORMANCE_SERVICE_ROLES,
  conformanceFixtureData,
  conformanceFixtures,
  type ConformanceFixtureData,
  type ConformanceFixtures,
  type ConformanceServiceFixture,
  type ConformanceServiceRole,
} from "./fixtures.js";
