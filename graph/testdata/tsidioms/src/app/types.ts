import { Context } from "../request";

export type Next = () => Promise<void>;
export type Handler<E = any> = (c: Context, next: Next) => string;
export type Middleware<E = any> = (
  c: Context,
  next: Next,
) => Promise<string | void>;
export type AnyHandler<E = any> = Handler<E> | Middleware<E>;
export type Other = (c: string) => void;
export type Mixed = Handler | Other;

export function define<E>(handler: AnyHandler<E>): AnyHandler<E> {
  return handler;
}

export function each(...handlers: AnyHandler[]): void {}

export class App {
  route(path: string, handler: Handler): App {
    return this;
  }
}

export type Ws = (c: Context, n: number) => Promise<string | void> | string | void;

export const onWs = <T = unknown>(handler: Ws | undefined): void => {};

export interface RouteInterface<E = any> {
  // app.get(handler)
  <P extends string = string>(handler: AnyHandler<E>): Router;
  // app.get(path, handler, handler)
  <P extends string = string, M1 extends AnyHandler = AnyHandler>(
    path: P,
    ...handlers: [AnyHandler<E> & M1, Handler<E>]
  ): Router;
}

export class Router {
  get!: RouteInterface;
}
