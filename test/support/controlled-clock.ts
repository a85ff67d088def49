/** A clock the test moves by hand. */
export class ControlledClock {
  constructor(private current = Date.parse('2026-11-29T12:00:00.000Z')) {}
  readonly now = (): number => this.current;
  advance(ms: number): void {
    this.current += ms;
  }
}
