# Errors of the optimizers Adadelta, Rprop, ASGD and LBFGS: each names the optimizer,
# the argument and what was found, at the calling line.

# case: Adadelta with rho above 1
# expect error: tests/lang/errors_optim_extra.dsl:9:9: error: optim.Adadelta(): rho must be in [0, 1], got 1.5
# expect error line:   let o = optim.Adadelta([tensor([1.0], requires_grad=true)], rho=1.5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let o = optim.Adadelta([tensor([1.0], requires_grad=true)], rho=1.5)
# ---
# case: Adadelta with a negative eps
# expect error: tests/lang/errors_optim_extra.dsl:16:9: error: optim.Adadelta(): eps must be >= 0, got -1e-06
# expect error line:   let o = optim.Adadelta([tensor([1.0], requires_grad=true)], eps=-1e-6)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let o = optim.Adadelta([tensor([1.0], requires_grad=true)], eps=-1e-6)
# ---
# case: Rprop with etas not around 1
# expect error: tests/lang/errors_optim_extra.dsl:23:9: error: optim.Rprop(): etas must be a pair (etaminus, etaplus) with 0 < etaminus < 1 < etaplus, got (0.5, 0.9)
# expect error line:   let o = optim.Rprop([tensor([1.0], requires_grad=true)], etas=(0.5, 0.9))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let o = optim.Rprop([tensor([1.0], requires_grad=true)], etas=(0.5, 0.9))
# ---
# case: Rprop with step_sizes not a pair
# expect error: tests/lang/errors_optim_extra.dsl:30:9: error: optim.Rprop(): step_sizes must be a pair of numbers (step_size_min, step_size_max), got 0.1
# expect error line:   let o = optim.Rprop([tensor([1.0], requires_grad=true)], step_sizes=0.1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let o = optim.Rprop([tensor([1.0], requires_grad=true)], step_sizes=0.1)
# ---
# case: Rprop with step_sizes min above max
# expect error: tests/lang/errors_optim_extra.dsl:37:9: error: optim.Rprop(): step_sizes must be a pair (step_size_min, step_size_max) with 0 <= step_size_min <= step_size_max, got (1.0, 0.1)
# expect error line:   let o = optim.Rprop([tensor([1.0], requires_grad=true)], step_sizes=(1.0, 0.1))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let o = optim.Rprop([tensor([1.0], requires_grad=true)], step_sizes=(1.0, 0.1))
# ---
# case: Rprop given weight_decay in a group
# expect error: tests/lang/errors_optim_extra.dsl:44:9: error: optim.Rprop(): params[0] has the key 'weight_decay', which this optimizer does not take; it is another optimizer's hyperparameter (its keys: 'params', 'lr', 'etas', 'step_sizes', 'maximize')
# expect error line:   let o = optim.Rprop([{"params": [tensor([1.0], requires_grad=true)], "weight_decay": 0.1}])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let o = optim.Rprop([{"params": [tensor([1.0], requires_grad=true)], "weight_decay": 0.1}])
# ---
# case: ASGD with a negative weight_decay
# expect error: tests/lang/errors_optim_extra.dsl:51:9: error: optim.ASGD(): weight_decay must be >= 0, got -0.1
# expect error line:   let o = optim.ASGD([tensor([1.0], requires_grad=true)], weight_decay=-0.1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let o = optim.ASGD([tensor([1.0], requires_grad=true)], weight_decay=-0.1)
# ---
# case: ASGD with a str t0
# expect error: tests/lang/errors_optim_extra.dsl:58:9: error: optim.ASGD(): t0 must be a number, got 'soon'
# expect error line:   let o = optim.ASGD([tensor([1.0], requires_grad=true)], t0="soon")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let o = optim.ASGD([tensor([1.0], requires_grad=true)], t0="soon")
# ---
# case: LBFGS with two parameter groups
# expect error: tests/lang/errors_optim_extra.dsl:65:9: error: optim.LBFGS(): LBFGS does not support parameter groups (per-parameter options), got 2
# expect error line:   let o = optim.LBFGS([{"params": [tensor([1.0], requires_grad=true)]}, {"params": [tensor([2.0], requires_grad=true)]}])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let o = optim.LBFGS([{"params": [tensor([1.0], requires_grad=true)]}, {"params": [tensor([2.0], requires_grad=true)]}])
# ---
# case: LBFGS with an unknown line search
# expect error: tests/lang/errors_optim_extra.dsl:72:9: error: optim.LBFGS(): line_search_fn must be none or "strong_wolfe", got 'backtracking'
# expect error line:   let o = optim.LBFGS([tensor([1.0], requires_grad=true)], line_search_fn="backtracking")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let o = optim.LBFGS([tensor([1.0], requires_grad=true)], line_search_fn="backtracking")
# ---
# case: LBFGS with a float max_iter
# expect error: tests/lang/errors_optim_extra.dsl:79:9: error: optim.LBFGS(): max_iter must be an int > 0, got 2.5
# expect error line:   let o = optim.LBFGS([tensor([1.0], requires_grad=true)], max_iter=2.5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let o = optim.LBFGS([tensor([1.0], requires_grad=true)], max_iter=2.5)
# ---
# case: LBFGS with history_size 0
# expect error: tests/lang/errors_optim_extra.dsl:86:9: error: optim.LBFGS(): history_size must be an int > 0, got 0
# expect error line:   let o = optim.LBFGS([tensor([1.0], requires_grad=true)], history_size=0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import optim
let o = optim.LBFGS([tensor([1.0], requires_grad=true)], history_size=0)
