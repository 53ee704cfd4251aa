# args: /tmp
# `nabla /tmp` (a folder as the script; this file is then only its argument) is an
# error with status 2, as a missing file is; it used to run nothing and exit 0.
# status: 2
# expect stderr: nabla: error: cannot run '/tmp': it is a folder, not a program file
print("not run")
