import { test } from "node:test";
import * as s from "../src/index";

test("namespace import through a star re-export", () => {
  s.number();
});
