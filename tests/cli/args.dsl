# `nabla tests/cli/args.dsl a b` prints the arguments after the file.
print(args)
