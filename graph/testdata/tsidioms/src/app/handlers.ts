import { Context } from "../request";
import { App, AnyHandler, Handler, Middleware, Mixed, Router, define, each, onWs } from "./types";
import * as types from "./types";

export const annotated: Handler = (c) => c.req.header("a");

export const factory = (name: string): Middleware => {
  return async function mw(c, next) {
    c.req.header(name);
  };
};

export const arrow = (): AnyHandler => async (c, next) => c.req.header("b");

export function written(): (c: Context) => string {
  return (c) => c.req.header("c");
}

export const passed = define((c) => c.req.header("d"));

export const namespaced = types.define((c, next) => c.req.header("e"));

export function spread() {
  each((c) => c.req.header("f"), (c, next) => c.req.header("g"));
}

export function routed(app: App) {
  app.route("/", (c) => c.req.header("h"));
}

export const disagree: Mixed = (c) => c.req.header("i");

export function unknown(cb: any) {
  cb((c) => c.req.header("j"));
}

export const ws = onWs(async (c, n) => c.req.header("k"));

export function called() {
  const router = new Router();
  router.get((c) => c.req.header("l"));
  router.get("/", (c, next) => c.req.header("m"), (c) => c.req.header("n"));
}

export const commented = define(/* the handler */ (c) => c.req.header("o"));
