return { score = function(c)
  return "fast"
end }
