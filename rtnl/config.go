package rtnl

import (
	"fmt"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
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
	// CountedWalks is a simulation-speed option, not a seed patch: ListOnly
	// address lists count their searches' compares instead of walking
	// (netdev.Config.CountedWalks). Behaviour, counters and virtual time are
	// those of the real walk; only wall time drops. The presets leave it off.
	CountedWalks bool
}

// Before is every seed's pre-patch behaviour.
var Before = Config{HWAddr: hwaddr.ListOnly, Wait: netdev.WaitFixed, IfindexList: false}

// After is every seed's post-patch behaviour.
var After = Config{HWAddr: hwaddr.TreeIndexed, Wait: netdev.WaitBackoff, IfindexList: true}

func (c Config) netdev() netdev.Config {
	return netdev.Config{HWAddr: c.HWAddr, Wait: c.Wait, CountedWalks: c.CountedWalks}
}

// String returns "before" or "after" for the presets, otherwise the
// switches, e.g. "hwaddr=TreeIndexed,wait=fixed,ifindex-list=false". Counted
// walks do not change what is simulated: a preset with them is still "before"
// or "after", and another Config gets ",counted-walks" appended.
func (c Config) String() string {
	base := c
	base.CountedWalks = false
	switch base {
	case Before:
		return "before"
	case After:
		return "after"
	}
	s := fmt.Sprintf("hwaddr=%v,wait=%v,ifindex-list=%v", c.HWAddr, c.Wait, c.IfindexList)
	if c.CountedWalks {
		s += ",counted-walks"
	}
	return s
}

// Validate returns an EINVAL error for a policy value that does not exist.
func (c Config) Validate() error { return c.netdev().Validate() }
