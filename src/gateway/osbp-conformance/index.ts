/**
 * The OSBP conformance module: a reference host any OSBP implementation or conformance kit can
 * run against in process, with no accounts, secrets or network.
 *
 * - CONFORMANCE_HOST_ID, conformanceScenario, conformanceHostConfig(): the host (Bayview
 *   Reference Studio, a synthetic platform) and its hosts-config entry;
 * - createAdapter(options), createConformanceAdapter(mode, options): the OSBP BookingAdapter
 *   over it, with test hooks (lastVerificationCode, connector);
 * - conformanceFixtures: the host in the public OSBP conformance kit's fixture layout
 *   (organization_id, schedule_id, provider_id, date, time, customer, services.*,
 *   expected_prices), which the kit reads from this module;
 * - conformanceHost: the host in OSBP terms for this project's tests and demo (ids, names,
 *   exact Money per service role, a sample customer) plus bookableDate(now), mandateFor().
 *
 * Built (dist/gateway/osbp-conformance/index.js) this module is a kit target: it exports
 * createAdapter(), createConformanceAdapter(mode) and conformanceFixtures.
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
  bookableDate,
  CONFORMANCE_PROVIDER_ID,
  CONFORMANCE_DATE,
  CONFORMANCE_SERVICE_ROLES,
  CONFORMANCE_TIME,
  CONFORMANCE_VERIFICATION_CODE,
  conformanceFixtures,
  conformanceHost,
  conformanceHostData,
  type ConformanceHost,
  type ConformanceHostData,
  type ConformanceKitFixtures,
  type ConformanceServiceFixture,
  type ConformanceServiceRole,
} from "./fixtures.js";
