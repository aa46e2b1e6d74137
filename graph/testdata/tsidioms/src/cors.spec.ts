import { describe, it } from "vitest";
import { cors } from "./cors";

describe("cors", () => {
  it("reads the origin", () => {
    cors(undefined as any);
  });
});
