return { order = { "speed" } }
