--- Shopping carts: a fixture for the Lua graph.
local util = require("shop.util")
local pricing = require "shop.pricing"
local ok, json = pcall(require, "cjson")

---@class Cart
local Cart = {}
Cart.__index = Cart

--- Creates an empty cart.
function Cart.new(owner)
  local self = setmetatable({}, Cart)
  self.owner = owner
  self.items = {}
  return self
end

function Cart:add(name, qty)
  self:validate(name)
  local item = { name = util.slug(name), qty = qty or 1 }
  table.insert(self.items, item)
  log("added " .. item.name)
  return self
end

function Cart:validate(name)
  if name == "" then error("empty name") end
end

local function subtotal(items)
  local sum = 0
  for _, it in ipairs(items) do
    sum = sum + pricing.price(it.name) * it.qty
  end
  return sum
end

function Cart:total()
  local function round(x) return math.floor(x + 0.5) end
  return round(subtotal(self.items))
end

function Cart:dump(encode)
  encode = encode or json.encode
  return encode(self.items)
end

return Cart
