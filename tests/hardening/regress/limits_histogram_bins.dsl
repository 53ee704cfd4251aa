# histogram() asked the memory budget for its bin edges only, then held the counts
# and two tensors beside them: bins=2**31 passed the check (16 GB of 22) and grew
# until the kernel killed nabla (SIGKILL, nothing printed). It now asks for all it
# holds per bin, so the request is refused at the user's line; here under a 2 GB
# budget (--max-memory), which the edges alone (512 MB) fit.
# args: --max-memory 2000000000
# status: 1
# expect: (tensor([0., 1., 0.]), tensor([0.5000, 1.0000, 1.5000, 2.0000]))
# expect stderr: limits_histogram_bins.dsl:12:9: error: memory budget of 2000000000 bytes exceeded
# expect stderr: histogram(): 67108864 bins
print(histogram(tensor([1.0]), bins=3, range=(0.5, 2.0)))
let h = histogram(tensor([1.0]), bins=2**26)
