# case: import of a path without 'as'

import "my-file.dsl"
