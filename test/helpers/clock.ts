// A settable clock for the `now` injections (time is passed in, never mocked globally).
export class TestClock {
  constructor(public ms = Date.UTC(2026, 0, 1)) {}
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}
