/**
 * The calendar a host syncs when its `calendar` section names none: Google's and Graph's
 * "primary", an ics-dir's "local"; CalDAV has no default (the host must name one). The
 * vendor names are the connectors' own, so a rename there cannot silently break the default.
 */
import { describe, expect, it } from "vitest";
import { defaultCalendarOf } from "../../../src/booking/calendar/host-setup.js";
import type { Connector } from "../../../src/connectors/port.js";
import { GOOGLE_CALENDAR_PLATFORM } from "../../../src/connectors/google/platform.js";
import { MICROSOFT_GRAPH_PLATFORM } from "../../../src/connectors/microsoft/platform.js";
import { CALDAV_PLATFORM } from "../../../src/connectors/caldav/upstream.js";
import { ICS_DIR_PLATFORM } from "../../../src/connectors/ics-dir/connector.js";

const withVendor = (platform: Connector["platform"]) => ({ platform }) as unknown as Connector;

describe("defaultCalendarOf", () => {
  it("is primary for Google and Microsoft, local for an ics directory, none for CalDAV", () => {
    expect(defaultCalendarOf(withVendor(GOOGLE_CALENDAR_PLATFORM))).toBe("primary");
    expect(defaultCalendarOf(withVendor(MICROSOFT_GRAPH_PLATFORM))).toBe("primary");
    expect(defaultCalendarOf(withVendor(ICS_DIR_PLATFORM))).toBe("local");
    expect(defaultCalendarOf(withVendor(CALDAV_PLATFORM))).toBeUndefined();
  });
});
