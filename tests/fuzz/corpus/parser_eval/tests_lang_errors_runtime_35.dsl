# case: missing imported file

import "no_such_file.dsl" as other
