// The sweep behind PrefixIndex: walks range starts and ends in address order,
// keeping per label how many of its ranges cover the current point, and names
// each distinct set of covering labels once (set ids are dense, 0 = none).
// Events at one position are applied together before the set is read, so
// adjacent or overlapping ranges of one label make one run.

export class LabelSweep {
  /** merged runs per label: a label going from uncovered to covered counts one */
  readonly runs: Uint32Array;
  private readonly cover: Int32Array;
  private readonly touched: number[] = [];
  private readonly before: Int32Array;
  private readonly stamp: Uint32Array;
  private tick = 1;
  /** labels covering the current point, ascending */
  private active: number[] = [];
  private readonly ids = new Map<string, number>([['', 0]]);
  private readonly members: number[][] = [[]];
  /** the set id of the current point, kept while no label comes or goes */
  private current = 0;

  constructor(labels: number) {
    this.runs = new Uint32Array(labels);
    this.cover = new Int32Array(labels);
    this.before = new Int32Array(labels);
    this.stamp = new Uint32Array(labels);
  }

  /** One range of `label` starts (+1) or ends (-1) at the current position. */
  apply(label: number, delta: 1 | -1): void {
    if (this.stamp[label] !== this.tick) {
      this.stamp[label] = this.tick;
      this.before[label] = this.cover[label]!;
      this.touched.push(label);
    }
    this.cover[label] = this.cover[label]! + delta;
  }

  /** Closes the current position and returns the id of the set covering what follows it. */
  settle(): number {
    let changed = false;
    for (const label of this.touched) {
      const was = this.before[label]! > 0;
      const is = this.cover[label]! > 0;
      if (was === is) continue;
      changed = true;
      if (is) {
        this.runs[label] = this.runs[label]! + 1;
        this.active.push(label);
      } else {
        this.active = this.active.filter((l) => l !== label);
      }
    }
    this.touched.length = 0;
    this.tick++;
    if (!changed) return this.current;
    this.active.sort((a, b) => a - b);
    const key = this.active.join(',');
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.members.length;
      this.ids.set(key, id);
      this.members.push([...this.active]);
    }
    this.current = id;
    return id;
  }

  /** set id → its labels (ascending label index) */
  setLabels(): number[][] {
    return this.members;
  }
}
