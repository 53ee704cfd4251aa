# case: calling none

let nothing = none
nothing()
