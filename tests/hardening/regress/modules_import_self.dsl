# A script that imports itself is a circular import, reported at once (it used to
# import itself again and again until the file descriptors ran out, then say "no
# file").
# status: 1
# expect stderr: circular import: tests/hardening/regress/modules_import_self.dsl -> tests/hardening/regress/modules_import_self.dsl
# expect stderr: modules_import_self.dsl:7:1: error:
import "modules_import_self.dsl"
print("not reached")
