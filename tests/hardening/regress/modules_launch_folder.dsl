# Issue 25: a folder given to `nabla launch` is refused once, before any rank starts
# (it was left to each rank). This file only hosts the check: the runner starts
# `nabla launch -n 2 /` through the args below, and the file itself is the script's
# argument, never run.
# args: launch -n 2 /
# status: 2
# expect stderr: cannot run '/': it is a folder, not a program file
# no stderr: rank 0
