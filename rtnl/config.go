// The behaviour switches of the five seed patches (rtnl.Config, Before,
// After): which policy each subsystem runs, as the pre-patch and
// post-patch kernels do.

package rtnl

import (
	"fmt"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/fibrules"
	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
)

// Config gathers the behaviour switches of the seed patches. Any mix is
// allowed; Before and After are the two presets. The zero Config is Before.
type Config struct {
	// HWAddr is how device address lists are searched (seed 001,
	// "net-next: Improve perf of bond/vlans modification").
	HWAddr hwaddr.Policy
	// Wait is how netdev_wait_allrefs polls (seed 002, "net: use
	// exponential backoff in netdev_wait_allrefs").
	Wait netdev.WaitPolicy
	// IfindexList is whether RTM_DELLINK accepts IFLA_IFINDEX_LIST (seed 004,
	// "rtnetlink: Support fine-grained netdevice bulk deletion").
	IfindexList bool
	// Nexthop is how removing a device's nexthop objects flushes the FIB
	// (seed 000, "ipv4: Flush the FIB once per dev nexthop removal").
	Nexthop nexthop.Policy
	// Rules is which lock RTM_NEWRULE and RTM_DELRULE take (seed 003,
	// "net: fib_rules: RTNL-less RTM_NEWRULE and RTM_DELRULE").
	Rules fibrules.LockPolicy
	// CountedWalks is a simulation-speed option, not a seed patch: ListOnly
	// address lists count their searches' compares instead of walking
	// (netdev.Config.CountedWalks), the IPv6 FIB's device walks visit
	// only the device's routes, charging the routes the real walk visits
	// (fib6.FIB.SetCountedWalks), and the IPv4 FIB's fib_table_flush
	// visits only the leaves whose routes it removes and the tnodes above
	// them, charging the nodes, leaves and routes the real walk visits
	// (fib.FIB.SetCountedWalks). Behaviour, counters and virtual time are
	// those of the real walk; only wall time drops. The presets leave it off.
	CountedWalks bool
	// RefWaitLimit bounds netdev_wait_allrefs's wait for a device's last
	// references (netdev.Config.RefWaitLimit): a test option, 0 (the
	// presets) waits for ever as the kernel does.
	RefWaitLimit int64
}

// Before is every seed's pre-patch behaviour.
var Before = Config{HWAddr: hwaddr.ListOnly, Wait: netdev.WaitFixed, IfindexList: false, Nexthop: nexthop.FlushPerNexthop, Rules: fibrules.LockRTNL}

// After is every seed's post-patch behaviour.
var After = Config{HWAddr: hwaddr.TreeIndexed, Wait: netdev.WaitBackoff, IfindexList: true, Nexthop: nexthop.FlushDeferred, Rules: fibrules.LockPerOps}

func (c Config) netdev() netdev.Config {
	return netdev.Config{HWAddr: c.HWAddr, Wait: c.Wait, CountedWalks: c.CountedWalks, RefWaitLimit: c.RefWaitLimit}
}

// String returns "before" or "after" for the presets, otherwise the
// switches, e.g. "hwaddr=TreeIndexed,wait=fixed,ifindex-list=false". Counted
// walks do not change what is simulated: a preset with them is still "before"
// or "after", and another Config gets ",counted-walks" appended.
func (c Config) String() string {
	base := c
	base.CountedWalks, base.RefWaitLimit = false, 0
	switch base {
	case Before:
		return "before"
	case After:
		return "after"
	}
	s := fmt.Sprintf("hwaddr=%v,wait=%v,ifindex-list=%v,nexthop=%v,rules=%v", c.HWAddr, c.Wait, c.IfindexList, c.Nexthop, c.Rules)
	if c.CountedWalks {
		s += ",counted-walks"
	}
	return s
}

// Validate returns an EINVAL error for a policy value that does not exist.
func (c Config) Validate() error {
	if c.Rules != fibrules.LockRTNL && c.Rules != fibrules.LockPerOps {
		return errno.Errorf(syscall.EINVAL, "Unknown fib rules lock policy %d", c.Rules)
	}
	if c.Nexthop != nexthop.FlushPerNexthop && c.Nexthop != nexthop.FlushDeferred {
		return errno.Errorf(syscall.EINVAL, "Unknown nexthop flush policy %d", c.Nexthop)
	}
	return c.netdev().Validate()
}
