// Widgets for the fixture: imports, an interface, a class with methods,
// functions and top-level statements.
import { EventEmitter } from "events";
import type { Config } from "./config";

export const DEFAULT_PORT = 8080;
const retries = 3;

/** Options for a widget. */
export interface WidgetOptions {
  name: string;
  port?: number;
  tags: string[];
}

/** A widget that can start and stop. */
export class Widget extends EventEmitter {
  private running = false;
  readonly options: WidgetOptions;

  constructor(options: WidgetOptions) {
    super();
    this.options = { port: DEFAULT_PORT, ...options };
  }

  /** Start the widget, retrying on failure. */
  async start(config: Config): Promise<void> {
    let attempt = 0;
    while (attempt < retries) {
      try {
        await this.bind(config.host, this.options.port ?? DEFAULT_PORT);
        this.running = true;
        this.emit("started", this.options.name);
        return;
      } catch (err) {
        attempt++;
        this.emit("retry", { attempt, err });
        if (attempt >= retries) {
          throw new Error(`widget ${this.options.name}: giving up after ${attempt} attempts`);
        }
      }
    }
  }

  stop(): void {
    this.running = false;
  }

  private async bind(host: string, port: number): Promise<void> {
    if (!host) throw new Error("no host");
    this.emit("bind", `${host}:${port}`);
  }
}

export function create(name: string): Widget {
  return new Widget({ name, tags: [] });
}

const w = create("main");
w.on("started", (name: string) => console.log(`${name} started`));
