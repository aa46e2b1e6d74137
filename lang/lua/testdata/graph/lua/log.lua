-- Global helpers.
function log(msg)
  io.write(msg, "\n")
end

local function slug(s) return s end

return { slug = slug }
