# case: stray closing bracket

)
