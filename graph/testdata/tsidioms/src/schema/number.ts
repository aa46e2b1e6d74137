export class NumberSchema {
  #checks: string[] = [];

  max(n: number): this {
    this.#add("max");
    return this;
  }

  #add(check: string): void {
    this.#checks.push(check);
  }

  parse(input: unknown): number {
    [1, 2].forEach(function () {
      this.parse(input);
    });
    return input as number;
  }
}

export function number(): NumberSchema {
  return new NumberSchema();
}
