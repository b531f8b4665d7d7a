import { newEventId } from '../../src/modules/events/outbox.store';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The epoch milliseconds in a ULID's first 10 characters. */
function timeOf(id: string): number {
  return [...id.slice(0, 10)].reduce((t, c) => t * 32 + CROCKFORD.indexOf(c), 0);
}

/**
 * Event ids (src/modules/events/outbox.store.ts `newEventId`; README "Events"): ULIDs, 26
 * Crockford base32 characters, sortable by creation time and strictly increasing within the
 * process; the 80 random bits come from the OS's random source, read in blocks.
 */
describe('event ids', () => {
  it('are ULIDs of the clock time, strictly increasing within one millisecond and across them', () => {
    const base = Date.UTC(2026, 10, 24, 6, 0, 0);
    const ids: string[] = [];
    for (let ms = 0; ms < 50; ms++)
      for (let i = 0; i < 20; i++) ids.push(newEventId({ nowMs: () => base + ms }));
    for (const [i, id] of ids.entries()) {
      expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(timeOf(id)).toBe(base + Math.floor(i / 20));
      if (i > 0) expect(id > ids[i - 1]!).toBe(true);
    }
  });

  it('draw fresh, evenly spread randomness for every new millisecond', () => {
    const base = Date.UTC(2026, 10, 24, 7, 0, 0);
    const randoms = Array.from({ length: 3000 }, (_, ms) => newEventId({ nowMs: () => base + ms }).slice(10));
    expect(new Set(randoms).size).toBe(randoms.length);
    // Each of the 32 characters shows up at every random position (3000 draws: about 94 each).
    for (let pos = 0; pos < 16; pos++) {
      const counts = new Map<string, number>();
      for (const r of randoms) counts.set(r[pos]!, (counts.get(r[pos]!) ?? 0) + 1);
      expect(counts.size).toBe(32);
      expect(Math.min(...counts.values())).toBeGreaterThan(40);
    }
  });
});
