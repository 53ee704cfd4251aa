// Integer edges (issue 25, item 5): every int64 operation of the language whose exact
// result does not fit is "integer overflow in OP", never a SIGFPE or a wrapped value
// (Note [Integer overflow] in interp/values/operators.cpp); 0 ** negative is a division by
// zero; ranges count without overflow; the CPU kernels divide integers without
// trapping (Note [Integer tensor arithmetic] in tensor/scalar_ops.hpp).
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tensor/cpu/kernels.hpp"

using nabla::testing::Session;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::string kMin = "(-9223372036854775807 - 1)";
const std::string kMax = "9223372036854775807";

}  // namespace

TEST_CASE("integers: INT64_MIN // -1 and % -1 are overflow errors, not SIGFPE") {
  Session s;
  CHECK(contains(s.error("let q = " + kMin + " // -1"), "t.dsl:1:9: error: integer overflow in //"));
  CHECK(contains(s.error("let r = " + kMin + " % -1"), "error: integer overflow in %"));
  CHECK(contains(s.error("let d = divmod(" + kMin + ", -1)"), "integer overflow in //"));
  CHECK(contains(s.error("let x = " + kMin + "\nlet y = [x // -1]"), "t.dsl:2:10: error: integer overflow in //"));
  CHECK(contains(s.error("let x = 5 // 0"), "integer division by zero"));
  CHECK(contains(s.error("let x = 5 % 0"), "integer modulo by zero"));
  // The neighbours are exact, with Python's signs.
  CHECK(s.run("print(" + kMin + " // 1, " + kMin + " % 1, " + kMin + " // 2, " + kMax + " // -1)") ==
        "-9223372036854775808 0 -4611686018427387904 -9223372036854775807\n");
  CHECK(s.run("print(7 // -2, 7 % -2, -7 // 2, -7 % 2, divmod(-7, 2))") == "-4 -1 -4 1 (-4, 1)\n");
}

TEST_CASE("integers: every other int64 operation past the range is an overflow error") {
  Session s;
  for (const std::string& code : std::vector<std::string>{kMax + " + 1", kMin + " - 1", "4611686018427387904 * 2", "-" + kMin, "abs(" + kMin + ")", "2 ** 63",
        "(-3) ** 40", "pow(2, 64)", "sum([" + kMax + ", 1])", "round(" + kMax + ", -1)"})
    CHECK_MESSAGE(contains(s.error("let v = " + code), "integer overflow"), code);
  CHECK(s.run("print(2 ** 62, (-2) ** 63, pow(-1, " + kMax + "), 1 ** " + kMax + ")") ==
        "4611686018427387904 -9223372036854775808 -1 1\n");
  CHECK(contains(s.error("let v = int('99999999999999999999')"), "outside the range of a 64-bit int"));
  CHECK(contains(s.error("let v = int(1e19)"), "outside the range of a 64-bit int"));
}

TEST_CASE("integers: 0 ** negative is a division by zero, as 1 / 0 is") {
  Session s;
  for (const std::string& code : {"0 ** -1", "0.0 ** -1", "0 ** -2.5", "(-0.0) ** -3", "pow(0, -1)", "false ** -1"})
    CHECK_MESSAGE(contains(s.error("let v = " + code), "division by zero: 0 cannot be raised to a negative power"),
                  code);
  CHECK(contains(s.error("let v = 1 / 0"), "division by zero"));
  CHECK(s.run("import math\nprint(0.0 ** -math.inf, 2 ** -1, 0 ** 0, 0.0 ** 0.0)") == "inf 0.5 1 1.0\n");
}

TEST_CASE("integers: float // and % as CPython's divmod") {
  Session s;
  CHECK(s.run("print(1 // 0.1, 1 % 0.1, -1.0 // 3.0, -1.0 % 3.0, divmod(7.5, -2))") ==
        "9.0 0.09999999999999995 -1.0 2.0 (-4.0, -0.5)\n");
}

TEST_CASE("integers: an int and a float compare exactly") {
  Session s;
  CHECK(s.run("print(9007199254740993 == 9007199254740992.0, 9007199254740993 > 9007199254740992.0, " + kMax +
              " < 9223372036854775808.0, 3 == 3.0, 2 < 2.5)") == "false true true true true\n");
  CHECK(s.run("import math\nprint(1 < math.nan, 1 == math.nan, 1 != math.nan, math.nan >= 1)") ==
        "false false true false\n");
}

TEST_CASE("integers: ranges count, index and test membership without overflow") {
  Session s;
  CHECK(contains(s.error("let n = len(range(" + kMin + ", " + kMax + "))"),
                 "has 18446744073709551615 elements, more than a 64-bit int counts"));
  CHECK(s.run("let r = range(" + kMin + ", " + kMax + ", 4611686018427387904)\nprint(len(r), r[3], r[-1])") ==
        "4 4611686018427387904 4611686018427387904\n");
  CHECK(s.run("print(" + kMin + " in range(" + kMin + ", " + kMax + "), " + kMax + " in range(" + kMin + ", " + kMax +
              "), 5 in range(" + kMax + ", 0, -5))") == "true false false\n");
  CHECK(s.run("print(true in range(2), 2.0 in range(3), 2.5 in range(3), 6 in range(0, 10, 3))") ==
        "true true false true\n");
  CHECK(s.run("let n = 0\nfor i in range(" + kMax + " - 2, " + kMax + ") { n = n + 1 }\nprint(n)") == "2\n");
}

TEST_CASE("integers: round of ints is exact, of floats correctly rounded") {
  Session s;
  CHECK(s.run("print(round(25, -1), round(35, -1), round(-25, -1), round(4611686018427387905, 0), round(7, 2))") ==
        "20 40 -20 4611686018427387905 7\n");
  CHECK(s.run("print(round(2.675, 2), round(0.5), round(1.5, 400), round(1.5, -400), round(1234.5, -2))") ==
        "2.67 0 1.5 0.0 1200.0\n");
}

TEST_CASE("integers: pow with a modulus in 128-bit steps, with Python's signs and inverses") {
  Session s;
  CHECK(s.run("print(pow(3, 4, 5), pow(2, " + kMax + ", 1000000007), pow(3, -1, 7), pow(-2, 3, -5), pow(5, 0, 1))") ==
        "1 529367677 5 -3 0\n");
  CHECK(contains(s.error("let v = pow(2, 3, 0)"), "the modulus must not be 0"));
  CHECK(contains(s.error("let v = pow(2, -1, 4)"), "not invertible"));
  CHECK(contains(s.error("let v = pow(2.0, 3, 5)"), "needs three ints"));
}

TEST_CASE("integers: integer tensor division in the CPU kernel never traps") {
  using nabla::DType;
  auto run_div = [](const std::vector<double>& a, const std::vector<double>& b, DType dt) {
    nabla::Tensor x = nabla::tensor_from(a, {static_cast<int64_t>(a.size())}, dt);
    nabla::Tensor y = nabla::tensor_from(b, {static_cast<int64_t>(b.size())}, dt);
    nabla::cpu::TensorList out = {nabla::empty({static_cast<int64_t>(a.size())}, dt)};
    nabla::cpu::div({x, y}, nabla::Attrs{}, out);
    return nabla::to_int64_vector(out[0]);
  };
  // INT_MIN / -1 wraps to INT_MIN (as PyTorch's CPU kernels give), int64 and int32.
  CHECK(run_div({-9223372036854775808.0, 7, -7}, {-1, 2, 2}, DType::i64) ==
        std::vector<int64_t>{INT64_MIN, 3, -3});
  CHECK(run_div({-2147483648.0, 9}, {-1, -3}, DType::i32) == std::vector<int64_t>{INT32_MIN, -3});
  CHECK(run_div({-128, 100}, {-1, 7}, DType::i8) == std::vector<int64_t>{-128, 14});
  CHECK(run_div({-32768, 30000}, {-1, 7}, DType::i16) == std::vector<int64_t>{-32768, 4285});
  // A zero divisor is PyTorch's ZeroDivisionError, found before the loop.
  CHECK_THROWS_WITH_AS(run_div({1, 2}, {1, 0}, DType::i64), "div: integer division by zero", nabla::Error);
  CHECK_THROWS_WITH_AS(run_div({1}, {0}, DType::i32), "div: integer division by zero", nabla::Error);
  // Integer tensors wrap in the language too (from exact values: int64 max is not a
  // double), and / divides as floats.
  Session s;
  CHECK(s.run("print(tensor([" + kMax + "]) + 1, -tensor([" + kMin + "]), tensor([1, 2]) / tensor([0, 2]))") ==
        "tensor([-9223372036854775808]) tensor([-9223372036854775808]) tensor([inf, 1.])\n");
}
