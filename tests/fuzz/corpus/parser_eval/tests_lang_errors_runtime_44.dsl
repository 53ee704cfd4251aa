# case: test helper expect fails

expect(1 == 2)
