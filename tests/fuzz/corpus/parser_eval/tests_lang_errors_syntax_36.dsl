# case: else without if

else { }
