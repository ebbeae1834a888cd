return { score = function(c)
  return c.no_such_field.x
end }
