import { Cart, checkout } from "../cart";

describe("Cart", () => {
  it("adds items", () => {
    const c = new Cart();
    c.add("a");
  });
  test("checkout", () => {
    checkout(new Cart());
  });
});
