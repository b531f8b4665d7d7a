import { Clock } from '../../src/lib/clock';

/** A clock tests move by hand. */
export class FakeClock implements Clock {
  constructor(public ms = Date.UTC(2026, 10, 22, 12, 0, 0)) {}
  nowMs(): number {
    return this.ms;
  }
  advanceSeconds(s: number): void {
    this.ms += s * 1000;
  }
}
