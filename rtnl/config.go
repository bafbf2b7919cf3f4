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
}

// Before is every seed's pre-patch behaviour.
var Before = Config{HWAddr: hwaddr.ListOnly, Wait: netdev.WaitFixed, IfindexList: false}

// After is every seed's post-patch behaviour.
var After = Config{HWAddr: hwaddr.TreeIndexed, Wait: netdev.WaitBackoff, IfindexList: true}

func (c Config) netdev() netdev.Config { return netdev.Config{HWAddr: c.HWAddr, Wait: c.Wait} }

// String returns "before" or "after" for the presets, otherwise the
// switches, e.g. "hwaddr=TreeIndexed,wait=fixed,ifindex-list=false".
func (c Config) String() string {
	switch c {
	case Before:
		return "before"
	case After:
		return "after"
	}
	return fmt.Sprintf("hwaddr=%v,wait=%v,ifindex-list=%v", c.HWAddr, c.Wait, c.IfindexList)
}

// Validate returns an EINVAL error for a policy value that does not exist.
func (c Config) Validate() error { return c.netdev().Validate() }
