/**
 * The BookingIndex (src/booking/api.ts) in Redis: the operator API lists a host's bookings,
 * which the store can read by id but not enumerate. One sorted set per host, scored by
 * creation time, under the host's hash tag like the store's own keys, so every process
 * sharing the Redis lists the same bookings.
 */
import type { Redis } from "ioredis";
import type { BookingIndex } from "../../booking/api.js";
import { HoldStoreUnavailableError } from "../../holds/port.js";

export class RedisBookingIndex implements BookingIndex {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix = "schcp:",
  ) {}

  private key(hostId: string): string {
    return `${this.keyPrefix}{${hostId}}:booking-index`;
  }

  async add(hostId: string, bookingId: string, createdAt: number): Promise<void> {
    try {
      // NX: a booking keeps the time it was first indexed at.
      await this.redis.zadd(this.key(hostId), "NX", createdAt, bookingId);
    } catch (error) {
      throw new HoldStoreUnavailableError("booking index: Redis did not answer", { cause: error });
    }
  }

  async list(hostId: string, limit: number): Promise<readonly string[]> {
    if (limit <= 0) return [];
    try {
      return await this.redis.zrevrange(this.key(hostId), 0, limit - 1);
    } catch (error) {
      throw new HoldStoreUnavailableError("booking index: Redis did not answer", { cause: error });
    }
  }
}
