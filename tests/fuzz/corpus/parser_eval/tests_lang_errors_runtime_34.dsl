# case: unknown module

import nosuchmodule
