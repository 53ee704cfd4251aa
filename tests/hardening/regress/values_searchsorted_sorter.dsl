# searchsorted's sorter was read as given: the binary search read row[sorter[k]], so an
# index outside the row read past the sequence's memory (sorter=[2**40, ...] was a
# SIGSEGV, [5, 0, 1] a wrong answer). It is now an error at the user's line.
# status: 1
# expect: tensor([1, 0, 3])
# expect stderr: values_searchsorted_sorter.dsl:10:7: error: searchsorted(): argument 'sorter' holds the index 1099511627776, out of range for rows of 3 elements
let seq = tensor([3.0, 1.0, 2.0])
print(searchsorted(seq, tensor([2.0, 0.5, 9.0]), sorter=tensor([1, 2, 0])))
let bad = tensor([2**40, -2**40, 1])
print(searchsorted(seq, tensor([2.0, 0.5, 9.0]), sorter=bad))
