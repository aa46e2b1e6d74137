/**
 * Store: a fixture for TypeScript symbol extraction.
 */
import { EventEmitter } from "events";

/** Maximum number of entries. */
export const MAX_ENTRIES = 1000;
const internalCounter = 0, anotherOne = "x";
let mutableState: string | null = null;

/** Options accepted by {@link Store}. */
export interface StoreOptions {
  /** Capacity in entries. */
  capacity: number;
  /** Called on eviction. */
  onEvict(key: string): void;
}

/** A nullable value. */
export type Maybe<T> = T | null;

export enum Mode {
  Strict,
  Loose,
}

/**
 * Store keeps values by key.
 */
@Injectable({ providedIn: "root" })
export class Store<V> extends EventEmitter implements Iterable<V> {
  private items = new Map<string, V>();

  /** Creates a store. */
  constructor(private readonly options: StoreOptions) {
    super();
  }

  /** Returns the value for key. */
  @Memoize()
  get(key: string): Maybe<V> {
    return this.items.get(key) ?? null;
  }

  private evict(key: string): void {
    this.options.onEvict(key);
  }

  #secret(): number {
    return 42;
  }

  protected onChange = (key: string): void => {
    this.emit("change", key);
  };

  static create<V>(
    options: StoreOptions,
  ): Store<V> {
    return new Store<V>(options);
  }

  [Symbol.iterator](): Iterator<V> {
    return this.items.values();
  }
}

export abstract class Base {
  abstract describe(): string;
}

/** Formats a value. */
export function format(value: unknown): string;
export function format(value: unknown, width?: number): string {
  return String(value).padStart(width ?? 0);
}

export const compute = async <T,>(input: T): Promise<T> => {
  return input;
};

namespace Internal {
  export const VERSION = "1.0";
  export function helper(): void {}
}

declare module "legacy-lib" {
  export function legacy(): void;
}

function notExported(): void {}

export { notExported as renamed, internalCounter };
