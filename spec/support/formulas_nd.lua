-- formulas_nd.lua: the nd module for specs of the C core's formulas: its
-- nd.run states runtime = "none" when a run names no runtime, so that every
-- field the spec leaves unstated takes the core's own default (the
-- formulas' and the model family's), as these specs derive their values,
-- rather than the defaults a run naming no runtime takes (hyperparallel's,
-- what estimate.lua prices: issue 33 item 2).
local nd = require "nd"

local function run(t)
  if type(t) == "table" and t.runtime == nil then
    local copy = {}
    for k, v in pairs(t) do copy[k] = v end
    copy.runtime = "none"
    t = copy
  end
  return nd.run(t)
end

return setmetatable({ run = run }, { __index = nd })
