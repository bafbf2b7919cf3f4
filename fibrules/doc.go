// Package fibrules models Linux policy routing rules (`ip rule`): the
// per-namespace, per-family rule lists (struct fib_rules_ops), their add
// and delete requests with the kernel's validation, errors and goto
// resolution, the lookup that walks the rules in pref order and consults
// the FIB's tables, and the device events that attach and detach rules
// naming an input or output device.
//
// The rule list follows the kernel's: a list ordered by pref in which a new
// rule goes after the rules of equal pref, read locklessly by lookups (RCU)
// and changed by one writer at a time. Which lock serialises writers is a
// LockPolicy (seed 003): the global RTNL for every change (LockRTNL, kernels
// up to 6.19) or a mutex per ops with RTNL only for the first IPv4 rule of a
// namespace, the one that calls fib_unmerge (LockPerOps, the "RTNL-less
// RTM_NEWRULE and RTM_DELRULE" series).
//
// Adds that set NLM_F_EXCL, as `ip rule add` does, compare the new rule with
// every existing rule (rule_exists); that walk, counted as sim.RuleScan, is
// what makes an add cost O(rules) in seed 003.
//
// Not modelled: realms (FRA_FLOW, the classes a rule gives the routes it
// finds) and the flows of tunnels, so that a rule of a tunnel id matches no
// flow. Rules are values (Rule); printing them as `ip rule show` does is
// iproute's.
//
// Kernel: net/core/fib_rules.c, net/ipv4/fib_rules.c, net/ipv6/fib6_rules.c,
// include/net/fib_rules.h.
package fibrules
