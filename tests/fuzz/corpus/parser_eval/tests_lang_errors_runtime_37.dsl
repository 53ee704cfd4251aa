# case: condition that is a multi-element tensor

if ones([2]) > 0 { }
