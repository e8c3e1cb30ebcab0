/** Where a booking waiting for approval is countered (SchCP §5.11): pages.ts links it, counter-page.ts posts to it. */
export const counterPath = (hostId: string, bookingId: string) =>
  `/console/hosts/${encodeURIComponent(hostId)}/bookings/${encodeURIComponent(bookingId)}/counter`;
