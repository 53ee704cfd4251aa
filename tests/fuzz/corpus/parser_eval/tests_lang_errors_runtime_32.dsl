# case: return outside a function

return 1
