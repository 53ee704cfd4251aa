# case: import of a number

import 3
