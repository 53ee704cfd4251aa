# Under `nabla launch`: every rank spins until a signal stops it, except the rank named
# by the first argument, which fails at once (a runtime error, status 1).
if len(args) > 0 and env("RANK") == args[0] { let x = undefined_name }
while true { }
