# case: buffer outside a model

buffer b = 1
