-- Another module table named M, with the same function names.
local M = {}

function M.slug(s) return s end

function M.use()
  return M.slug("x")
end

M.use()
log("other loaded")

return M
