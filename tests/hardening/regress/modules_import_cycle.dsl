# a imports b imports a: a circular import at the import that closes the cycle,
# naming the chain (see modules_import_cycle_b.inc).
# status: 1
# expect stderr: modules_import_cycle_b.inc:3:1: error: circular import: tests/hardening/regress/modules_import_cycle.dsl -> tests/hardening/regress/modules_import_cycle_b.inc -> tests/hardening/regress/modules_import_cycle.dsl
import "modules_import_cycle_b.inc"
print("not reached")
