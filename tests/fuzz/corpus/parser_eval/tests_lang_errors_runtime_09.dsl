# case: calling a string

"abc"()
