# Under `nabla launch -n 2`: rank 1 fails (a runtime error, status 1), rank 0 finishes.
if env("RANK") == "1" { let x = undefined_name }
print("rank", env("RANK"), "done")
