require_relative "../lib/cart"

describe Cart do
  it "adds" do
    Cart.new.add("x")
  end
end
