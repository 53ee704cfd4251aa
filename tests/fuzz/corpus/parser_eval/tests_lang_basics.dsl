# Numbers, strings, variables, printing and control flow.
print(1 + 2)
print(7 / 2)
print(7 // 2, 7 % 3, 2 ** 10)
print(-3 + 1, 1.5 * 2)
print(1 < 2, 2 <= 1, 1 == 1.0)
print(true and false, true or false, not true)
print(none)
print("nabla", "a" + "b")
let x = 10
x = x + 1
x += 4
print(x)
print(1 if x > 3 else 2)
print(f"x = {x}, half = {x / 2:.2f}")
let total = 0
for i in range(5) { total += i }
print(total)
let n = 0
while n < 3 { n += 1 }
print(n)
for i in range(10) {
  if i == 2 { continue }
  if i == 4 { break }
  print(i)
}



if x > 100 {
  print("big")
} elif x > 10 {
  print("medium")
} else {
  print("small")
}
let a = 1; let b = 2; print(a + b)
let long_sum = 1 +
  2 +
  3
print(long_sum)
# ---
# case: the time module measures elapsed seconds

import time
let t0 = time.perf_counter()
print(time.perf_counter() >= t0 and time.time() > 1.6e9)
