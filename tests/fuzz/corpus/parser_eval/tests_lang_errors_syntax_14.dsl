# case: for without 'in'

for i range(3) { }
