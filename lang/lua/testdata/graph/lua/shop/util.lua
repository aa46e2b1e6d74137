local M = {}

function M.slug(s)
  return (M.trim(s):gsub("%s+", "-")):lower()
end

function M.trim(s)
  return s:match("^%s*(.-)%s*$")
end

return M
