# Found by the fuzzer (idx): a shape with a zero size and huge other sizes overflowed
# the contiguous strides (signed overflow, UBSan). Now an error.
let t = zeros([0, 4294967296, 4294967296])
