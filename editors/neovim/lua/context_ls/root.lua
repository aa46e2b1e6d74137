-- Finding the workspace root of a file: the nearest directory upwards that
-- holds one of the root markers.
local M = {}

local uv = vim.uv or vim.loop

local function parent(dir)
  local p = vim.fn.fnamemodify(dir, ':h')
  if p == dir then
    return nil
  end
  return p
end

-- find returns the root directory of path (a file or directory), or nil.
function M.find(path, markers)
  if path == nil or path == '' then
    return nil
  end
  path = vim.fn.fnamemodify(path, ':p')
  local stat = uv.fs_stat(path)
  local dir = path
  if not stat or stat.type ~= 'directory' then
    dir = vim.fn.fnamemodify(path, ':h')
  end
  dir = dir:gsub('/+$', '')
  if dir == '' then
    dir = '/'
  end
  while dir do
    for _, m in ipairs(markers) do
      if uv.fs_stat(dir .. '/' .. m) then
        return dir
      end
    end
    dir = parent(dir)
  end
  return nil
end

-- contains reports whether path is root or inside it.
function M.contains(root, path)
  if root == nil or path == nil then
    return false
  end
  root = root:gsub('/+$', '')
  return path == root or path:sub(1, #root + 1) == root .. '/'
end

return M
