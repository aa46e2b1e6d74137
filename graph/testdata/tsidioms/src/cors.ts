import { Context } from "./request";

export function cors(c: Context): string {
  return c.req.header("origin");
}
