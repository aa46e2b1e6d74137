local Cart = require("shop.cart")

describe("Cart", function()
  local cart
  before_each(function()
    cart = Cart.new("ann")
  end)

  it("adds items", function()
    local c = Cart.new("bob")
    c:add("green apple", 2)
    assert.are.equal(1, #c.items)
  end)

  it("totals", function()
    assert.are.equal(0, Cart.new("x"):total())
  end)
end)

describe("validate", function()
  it("rejects empty names", function()
    assert.has_error(function() Cart.new("x"):validate("") end)
  end)
end)
