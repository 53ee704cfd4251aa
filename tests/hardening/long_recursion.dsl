# interrupt.sh sends SIGINT to `nabla long_recursion.dsl`: fib(40) makes ~3e8 calls
# (minutes), and must stop with "error: interrupted" and its trace through fib().
fn fib(n) = n if n < 2 else fib(n - 1) + fib(n - 2)
print("started")
fib(40)
