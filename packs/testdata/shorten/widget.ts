/** A widget that counts clicks. */
export class Counter {
  private count = 0;

  /** Increment by step and return the new count. */
  increment(step: number = 1): number {
    if (step <= 0) {
      throw new Error("step must be positive");
    }
    this.count += step;
    return this.count;
  }

  reset(): void {
    const before = this.count;
    this.count = 0;
    console.log(`reset from ${before}`);
  }
}

/** Sum of the counts of many counters. */
export function total(counters: Counter[]): number {
  let sum = 0;
  for (const c of counters) {
    sum += c.increment(0 + 1);
  }
  return sum;
}

export const double = (x: number) => x * 2;

export const describe = (c: Counter): string => {
  const n = c.increment();
  const label = n === 1 ? "click" : "clicks";
  return `${n} ${label}`;
};
