# Numbers, strings, variables, printing and control flow.
print(1 + 2)                          # expect: 3
print(7 / 2)                          # expect: 3.5
print(7 // 2, 7 % 3, 2 ** 10)         # expect: 3 1 1024
print(-3 + 1, 1.5 * 2)                # expect: -2 3.0
print(1 < 2, 2 <= 1, 1 == 1.0)        # expect: true false true
print(true and false, true or false, not true)   # expect: false true false
print(6 & 3, 6 | 3, 6 ^ 3, ~5, 1 + 2 & 3, 1 | 2 == 3)   # expect: 2 7 5 -6 3 true
print(true & false, true | false, true ^ true)   # expect: false true false
let bits = 12
bits &= 10
bits |= 1
bits ^= 3
print(bits)                           # expect: 10
print(none)                           # expect: none
print("nabla", "a" + "b")             # expect: nabla ab
let x = 10
x = x + 1
x += 4
print(x)                              # expect: 15
print(1 if x > 3 else 2)              # expect: 1
print(f"x = {x}, half = {x / 2:.2f}") # expect: x = 15, half = 7.50
let total = 0
for i in range(5) { total += i }
print(total)                          # expect: 10
let n = 0
while n < 3 { n += 1 }
print(n)                              # expect: 3
for i in range(10) {
  if i == 2 { continue }
  if i == 4 { break }
  print(i)
}
# expect: 0
# expect: 1
# expect: 3
if x > 100 {
  print("big")
} elif x > 10 {
  print("medium")                     # expect: medium
} else {
  print("small")
}
let a = 1; let b = 2; print(a + b)    # expect: 3
let long_sum = 1 +
  2 +
  3
print(long_sum)                       # expect: 6
# ---
# case: the time module measures elapsed seconds
# expect: true
import time
let t0 = time.perf_counter()
print(time.perf_counter() >= t0 and time.time() > 1.6e9)
