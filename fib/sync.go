// What devices and addresses going down and up do to the nexthops of IPv4
// routes: fib_sync_down_dev, fib_sync_up and fib_sync_down_addr
// (net/ipv4/fib_semantics.c).

package fib

import (
	"iter"
	"net/netip"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// SyncDownDev marks the classic nexthops on dev dead (NETDEV_DOWN,
// NETDEV_UNREGISTER) or link-down (NETDEV_CHANGE), and whole fib_infos once
// all their paths are; host-scope nexthops (local routes) survive unless
// force. It returns the number of fib_infos that died, which is when the
// caller must flush. Routes that use nexthop objects are left to package
// nexthop. The caller holds RTNL.
//
// Kernel: fib_sync_down_dev (net/ipv4/fib_semantics.c).
func (f *FIB) SyncDownDev(t *sim.Task, dev *netdev.Device, ev netdev.Event, force bool) int {
	defer t.Frame("fib_sync_down_dev")()
	n := f.syncDownDev(dev, ev, force)
	f.charge(t)
	return n
}

// devInfos yields the fib_infos with a classic nexthop on dev, walking
// fib_info_devhash as fib_sync_down_dev and fib_sync_up do, each once
// (linkInfo hashes a fib_info's nexthops together, so its paths on dev sit
// side by side), counting each as examined.
func (f *FIB) devInfos(dev *netdev.Device) iter.Seq[*fibInfo] {
	return func(yield func(*fibInfo) bool) {
		c := f.devNH[dev]
		if c == nil {
			return
		}
		f.work.devhashChain = max(f.work.devhashChain, c.infos)
		var prev *fibInfo
		for nh := c.head; nh != nil; nh = nh.devNext {
			fi := nh.parent
			// The chain is dev's alone (the kernel's bucket also holds
			// other devices' nexthops, which it skips).
			if fi == prev {
				continue
			}
			prev = fi
			f.work.infos++
			f.work.devhash++
			f.devWalked++
			if !yield(fi) {
				return
			}
		}
	}
}

func (f *FIB) syncDownDev(dev *netdev.Device, ev netdev.Event, force bool) int {
	scope := int(ScopeNowhere)
	if force {
		scope = -1
	}
	ret := 0
	for fi := range f.devInfos(dev) {
		dead := 0
		for i := range fi.nhs {
			x := &fi.nhs[i]
			if x.flags&FlagDead != 0 {
				dead++
			} else if x.dev == dev && int(x.scope) != scope {
				switch ev {
				case netdev.EventDown, netdev.EventUnregister:
					x.flags |= FlagDead | FlagLinkDown
					f.flagGen++ // the chain is no longer clean
				case netdev.EventChange:
					x.flags |= FlagLinkDown
					f.flagGen++
				}
				dead++
			}
			if ev == netdev.EventUnregister && x.dev == dev {
				dead = len(fi.nhs)
				break
			}
		}
		if dead == len(fi.nhs) {
			switch ev {
			case netdev.EventDown, netdev.EventUnregister:
				fi.setFlags(fi.flags | FlagDead | FlagLinkDown)
			case netdev.EventChange:
				fi.setFlags(fi.flags | FlagLinkDown)
			}
			ret++
		}
	}
	return ret
}

// SyncUp revives the classic nexthops on dev that have any of flags
// (FlagDead after NETDEV_UP or an address, FlagLinkDown when carrier
// returns), and their fib_infos. It returns the number of fib_infos with a
// live path. The caller holds RTNL.
//
// Kernel: fib_sync_up (net/ipv4/fib_semantics.c).
func (f *FIB) SyncUp(t *sim.Task, dev *netdev.Device, flags NHFlags) int {
	defer t.Frame("fib_sync_up")()
	n := f.syncUp(dev, flags)
	f.charge(t)
	return n
}

func (f *FIB) syncUp(dev *netdev.Device, flags NHFlags) int {
	if !dev.IsUp() {
		return 0
	}
	if flags&FlagDead != 0 && dev.Flags()&netdev.FlagLowerUp != 0 {
		flags |= FlagLinkDown
	}
	c := f.devNH[dev]
	if c == nil {
		return 0
	}
	if c.clean == f.flagGen+1 {
		// Nothing on the chain is flagged: the walk would revive nothing
		// and find every fib_info alive. It is counted, not done.
		f.work.infos += c.infos
		f.work.devhash += c.infos
		f.work.devhashChain = max(f.work.devhashChain, c.infos)
		return int(c.infos)
	}
	const flagged = FlagDead | FlagLinkDown
	ret, dirty := 0, false
	for fi := range f.devInfos(dev) {
		alive := 0
		for i := range fi.nhs {
			x := &fi.nhs[i]
			if x.flags&flags == 0 {
				alive++
			} else if x.dev != nil && x.dev.IsUp() && x.dev == dev && dev.Registered() {
				alive++
				x.flags &^= flags
			}
			if x.dev == dev && x.flags&flagged != 0 {
				dirty = true
			}
		}
		if alive > 0 {
			fi.setFlags(fi.flags &^ flags)
			ret++
		}
		if fi.flags&flagged != 0 {
			dirty = true
		}
	}
	if !dirty {
		c.clean = f.flagGen + 1
	}
	return ret
}

// syncDownAddr is fib_sync_down_addr: mark dead the main-table fib_infos
// whose preferred source was local, an address that went away.
func (f *FIB) syncDownAddr(local netip.Addr) int {
	if !local.IsValid() || addr4(local) == 0 {
		return 0
	}
	ret := 0
	for fi := f.laddr[local]; fi != nil; fi = f.fis.get(fi.lnext) {
		f.work.infos++
		if fi.tbID != TableMain {
			continue
		}
		fi.setFlags(fi.flags | FlagDead)
		ret++
	}
	return ret
}
