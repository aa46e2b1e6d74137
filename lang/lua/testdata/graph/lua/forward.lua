-- A local declared first and given its value later: calls through it
-- resolve through the later assignment.
local util
util = require("shop.util")

local function label(name)
  return util.slug(name)
end

return label
