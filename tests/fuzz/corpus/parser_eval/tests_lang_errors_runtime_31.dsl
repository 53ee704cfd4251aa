# case: continue outside a loop

continue
