-- ledger: a fixture for Lua symbol extraction.
-- The header comment is separated from the first definition by a blank line.

local json = require("json")
local util = require "ledger.util"

--- Semantic version of the module.
local VERSION = "2.1.0"
local M = {}

M.DEFAULT_CURRENCY = "usd"
M.options = nil

---@class Ledger
---@field entries table
local Ledger = {}
Ledger.__index = Ledger

--- Creates an empty ledger.
---@param currency string|nil
---@return Ledger
function Ledger.new(currency)
  local self = setmetatable({}, Ledger)
  self.currency = currency or M.DEFAULT_CURRENCY
  self.entries = {}
  return self
end

-- Posts an entry and returns the ledger.
function Ledger:post(amount,
                     memo)
  table.insert(self.entries, { amount = amount, memo = memo })
  return self
end

function Ledger.balance(self)
  local function add(a, b) return a + b end
  local sum = 0
  for _, e in ipairs(self.entries) do sum = add(sum, e.amount) end
  return sum
end

local function format_money(cents)
  return string.format("%d.%02d", cents // 100, cents % 100)
end

-- helper kept private by convention
local _round = function(x) return math.floor(x + 0.5) end

M.format = function(cents) return format_money(_round(cents)) end

function M.report.summary(ledger) return util.render(ledger) end

function M._internal() end

-- Global function: visible from every file.
function open_ledger(path)
  return Ledger.new(json.decode(path).currency)
end

counter, limit = 0, 10
counter = counter + 1

local handlers = {
  -- Called on every post.
  on_post = function(entry) return entry end,
  size = 3,
}

M.export = {
  csv = function(ledger, sep) return sep end,
}

describe("not a definition", function()
  local function inside() end
end)

M.Ledger = Ledger
return M
