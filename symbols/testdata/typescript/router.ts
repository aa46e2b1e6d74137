import type { Context } from "./context";

export type Handler = (c: Context) => Response;

// A router's overloads, each generic and starting its line with "<":
// the grammar reads "): App" then "<P>(" as App<P> unless they are
// separated.
export interface RouteInterface {
  // app.get(handler)
  <P extends string = string>(handler: Handler): App
  // app.get(path, handler)
  <
    P extends string = string,
  >(
    path: P,
    handler: Handler,
  ): App<
    P
  >
  // app.get(path, ...handlers)
  <P extends string>(path: P, ...handlers: Handler[]): App
}

export class App<P = string> {
  get!: RouteInterface;

  route(path: string): App {
    return this;
  }
}

export function compare(a: number, b: number): boolean {
  const less = a
    < b;
  return less;
}
