return { score = function(c)
  return c.step_time_s +
end }
