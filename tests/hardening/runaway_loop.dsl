# interrupt.sh sends SIGINT to `nabla runaway_loop.dsl`: it must stop with
# "runaway_loop.dsl:5:1: error: interrupted".
let i = 0
print("started")
while true { i = i + 1 }
