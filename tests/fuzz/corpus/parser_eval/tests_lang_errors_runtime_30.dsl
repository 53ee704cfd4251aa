# case: break outside a loop

break
