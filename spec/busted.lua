-- busted.lua: runs the busted specs inside ndlua, so that specs can require "nd".
-- Usage: ndlua spec/busted.lua [busted options] [spec dir]
require("busted.runner")({ standalone = false })
