// The machines the seeds were measured on: the profile each seed runs on,
// the constants its machine's profile takes from published times, and the
// kernel and World a scenario runs in.

package scenario

import (
	"cmp"
	"fmt"
	"math"
	"time"

	"github.com/netsimlab/netsim/machine"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// The seeds were measured on different machines. Each seed runs on its
// machine's profile (package machine: machine/profiles/seedNNN.profile, the
// development VM's profile plus the few differences the seed's machine is
// known to have, each with its source), unless its params name another
// (the Machine field: a profile name or file). The constants below are the
// values scenario.Calibrations refits or recomputes; the profiles hold the
// same values (TestSeedProfilesHoldCalibrations) and are where a run's
// costs come from.

// LoadMachine returns the profile name (a shipped profile or a file), or,
// for "", the profile of seed's machine (seed000 … seed004) or of the
// development VM for seed "".
func LoadMachine(name, seed string) (*machine.Profile, error) {
	if name == "" {
		name = "devvm"
		if seed != "" {
			name = "seed" + seed
		}
	}
	return machine.Load(name)
}

// seedProfile returns the profile of seed's machine. The shipped profiles
// load (machine's TestShipped): one that does not is a broken build.
func seedProfile(seed string) *machine.Profile {
	p, err := LoadMachine("", seed)
	if err != nil {
		panic(fmt.Sprintf("scenario: seed %s's machine: %v", seed, err))
	}
	return p
}

// machineCosts returns the cost model of the machine seed ran on.
func machineCosts(seed string) sim.Costs { return seedProfile(seed).Costs }

// runMachine returns the cost model and the virtual CPUs of a run of seed
// on the machine named by name ("": the seed's own): costs if not nil,
// else the profile's; cpus if not 0, else the profile's CPUs if it knows
// them, else def.
func runMachine(seed, name string, costs *sim.Costs, cpus, def int) (sim.Costs, int, error) {
	p, err := LoadMachine(name, seed)
	if err != nil {
		return sim.Costs{}, 0, fmt.Errorf("seed %s: %w", seed, err)
	}
	c := p.Costs
	if costs != nil {
		c = *costs
	}
	if cpus == 0 {
		cpus = cmp.Or(p.Facts.CPUs, def)
	}
	return c, cpus, nil
}

// Seed002NetnsExec is the `ip netns exec` wrapper cost on the machine of
// seed 002 (Arista, a 5.4 kernel). Calibrated: the one number taken from
// seed 002, its after-patch time of 8.199 s for the whole script (403 `ip
// netns exec` commands); see TestCalibration. It is 80 times the 0.1 ms
// measured on the development VM; a network OS's /sys with many devices
// makes the remount in every new mount namespace much slower.
const Seed002NetnsExec = 7964 * time.Microsecond

// newSeedKernel is newKernel for a seed's experiment: with counted walks,
// which give the same counters and virtual times in far less real time.
func newSeedKernel(cfg rtnl.Config, costs sim.Costs, cpus int, tr sim.Tracer) (*rtnl.Kernel, *sim.World, error) {
	cfg.CountedWalks = true
	return newKernel(cfg, costs, cpus, tr)
}

// newKernel returns a kernel with configuration cfg in a World with the
// given costs, virtual CPUs (0: one) and tracer (nil: none).
func newKernel(cfg rtnl.Config, costs sim.Costs, cpus int, tr sim.Tracer) (*rtnl.Kernel, *sim.World, error) {
	w, err := sim.NewWorld(sim.Options{Costs: &costs, CPUs: cpus, Tracer: tr})
	if err != nil {
		return nil, nil, err
	}
	k, err := rtnl.NewKernelIn(w, cfg)
	if err != nil {
		return nil, nil, err
	}
	return k, w, nil
}

// Seed 003's machine. The patch reports `time` of its script in four runs
// (IPv4/IPv6, before/after); its real, user and sys figures give the
// machine and the costs that differ from the development VM (P is a bound,
// IPBatchLine and Syscall derived; Calibrations):
//
//   - P: before the patch every CPU that runs an `ip` job spins on RTNL, so
//     (user + sys) / real counts the busy CPUs: (7.834 + 5566.7) / 22.752 =
//     245 for IPv4, 243 for IPv6. Allowing for the ramp-up and the tail, the
//     machine has 256 logical CPUs (it cannot have fewer than 245).
//   - IPBatchLine: after the patch nothing spins, so user time is `ip`'s
//     parsing: 5.675 s / 4 194 304 lines = 1.353 µs (IPv4 after).
//   - Syscall, the kernel's work per rule outside the locks (netlink,
//     fib_nl2rule's allocation, notify_rule_change): the IPv4 after run's
//     sys, 127.024 s, less the work under the lock and the job start-ups,
//     spread over the rules (seed003Syscall).
//   - RuleChange (calibrated, Seed003RuleChange) and Fork (calibrated,
//     Seed003Fork): see there.
//
// RuleScan (2 ns), Fib6TableWalk (115 ns), Fib6NewTable (3.5 µs) and IPExec
// are the development VM's: nothing in the figures separates them.
const Seed003CPUs = 256

// Seed003RuleChange is the fixed part of one rule add under RTNL on seed
// 003's machine, including the lock's hand-over between 256 CPUs.
// Calibrated: the IPv4 before-patch run, 22.752 s for 4 194 304 rules
// (5.42 µs each, of which the rule_exists walk is 514.5 × 2 ns = 1.03 µs);
// see TestCalibration.
const Seed003RuleChange = 4395 * time.Nanosecond

// Seed003Fork is bash forking one `nsenter ... ip -batch FILE &` job on seed
// 003's machine. Calibrated: the IPv4 after-patch run, 0.918 s, which the
// serial loop of 4096 forks bounds (the jobs' work alone would take
// 132.7 CPU-s / 256 CPUs = 0.52 s). The development VM takes 0.34 ms.
const Seed003Fork = 216264 * time.Nanosecond

// Seed003IPBatchLine is `ip -batch`'s user time per line on seed 003's
// machine. Derived: the IPv4 after run's user time, 5.675 s, over its
// 4 194 304 rules (seed003IPBatchLine; TestCalibration recomputes it).
const Seed003IPBatchLine = 1353 * time.Nanosecond

// Seed003Syscall is the kernel CPU per rule outside the locks on seed 003's
// machine. Derived: the IPv4 after run's sys, 127.024 s, per rule, less the
// work under the lock and the jobs' start-ups (seed003Syscall;
// TestCalibration recomputes it, so a change of RuleScan, IPExec or the
// calibrated constants it rests on shows as a derivation to redo).
const Seed003Syscall = 21837 * time.Nanosecond

// seed003RulesTotal is the number of rules seed 003's script adds.
const seed003RulesTotal = seed003Netns * seed003Rules

// The rows of PublishedTimes seed 003's machine is derived from.
var (
	seed003V4Before = RowKey{"003", "ipv4", "before"}
	seed003V4After  = RowKey{"003", "ipv4", "after"}
)

// Seed003Costs is the cost model of seed 003's machine: the seed003
// profile's.
func Seed003Costs() sim.Costs { return machineCosts("003") }

// seed003IPBatchLine is `ip -batch`'s user time per line on seed 003's
// machine: the IPv4 after run's user time over its rules.
func seed003IPBatchLine(pub Lookup) time.Duration {
	return time.Duration(math.Round(pub(seed003V4After).User / seed003RulesTotal * 1e9))
}

// seed003Syscall is the kernel CPU per IPv4 rule outside the locks that
// makes the after run's sys equal the published 127.024 s: sys per rule,
// less the uncontended work under the lock (RuleChange and the mean
// rule_exists walk over 3 + 0..1023 rules), less each job's fork and two
// execs (nsenter, ip) spread over its 1024 rules.
func seed003Syscall(c sim.Costs, pub Lookup) time.Duration {
	perRule := pub(seed003V4After).Sys / seed003RulesTotal * 1e9
	meanScan := 3 + (seed003Rules-1)/2.0
	inLock := float64(c.RuleChange) + meanScan*float64(c.RuleScan)
	startup := float64(c.Fork+2*c.IPExec) / seed003Rules
	return time.Duration(perRule - inLock - startup)
}
