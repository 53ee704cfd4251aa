# case: builtin with a wrong arity

len([1], [2])
