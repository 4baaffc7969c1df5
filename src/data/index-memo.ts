// A value per record index of the current tables (a place's fields, an AS's
// text, a format's fragment), made on first use and dropped when the tables
// are swapped: bounded by the data's records, never by the traffic.

export class IndexMemo<T> {
  private values: (T | undefined)[] = [];
  private of: object | null = null;
  constructor(private readonly make: (index: number) => T) {}

  /** The value of record `index` of `tables` (the object the indexes belong to). */
  get(tables: object, index: number): T {
    if (this.of !== tables) {
      this.of = tables;
      this.values = [];
    }
    let value = this.values[index];
    if (value === undefined) {
      value = this.make(index);
      this.values[index] = value;
    }
    return value;
  }
}
