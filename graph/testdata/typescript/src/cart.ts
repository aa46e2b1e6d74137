import open, { Repo as R } from "./lib/repo";
import * as util from "./util";

export class Cart {
  private repo: R;
  constructor() {
    this.repo = open("db");
  }
  add(item: string): void {
    const clean = util.slug(item);
    this.repo.save(clean);
    const other = new R();
    other.load(clean);
    this.total();
  }
  total(): number {
    return 0;
  }
}

export function checkout(cart: Cart) {
  cart.add("x");
  const slug = (s: string) => s;
  slug("y");
}
