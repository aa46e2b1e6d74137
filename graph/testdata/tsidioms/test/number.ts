import test from "ava";
import { number, NumSchema } from "../src/index";

test("max chains", (t) => {
  const schema = number().max(5);
  schema.parse(3);
});

test("renamed class", () => {
  new NumSchema().max(1);
});
