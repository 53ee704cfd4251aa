# compile() of a loop of 10^7 steps recorded op by op grew by about 4 KB a step until
# the system's out-of-memory killer ended the process: the capture now asks for room to
# double at each power of two from 2^16 ops (Note [A capture's growth] in
# graph/capture.cpp), an error at the user's line; here under a 200 MB budget, at once.
# args: --max-memory 200000000
# status: 1
# timeout: 60
# expect stderr: error: memory budget of 200000000 bytes exceeded: a graph of 65536 recorded ops about to double
# expect stderr:     for i in range(10**7) { x = x + 1 }
fn f(x) {
  for i in range(10**7) { x = x + 1 }
  return x
}
let g = compile(f, ones(2))
print("not reached")
