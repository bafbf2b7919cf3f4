package rtnl

import (
	"net/netip"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/sim"
)

// Nexthop describes a nexthop object to add or replace, as `ip nexthop add`
// sends it: devices by name. The zero Nexthop is not valid.
type Nexthop struct {
	ID        nexthop.ID            // 0 lets the kernel pick one
	Gateway   netip.Addr            // "via"
	Dev       string                // "dev"
	OnLink    bool                  // "onlink"
	Blackhole bool                  // "blackhole"
	Group     []nexthop.GroupMember // "group ID[,WEIGHT]/..."
	GroupType nexthop.GroupType     // "type mpath" (the default)
	Protocol  uint8                 // "proto"
	// Family is nhm.nh_family: AF_INET or AF_INET6 (`ip -6 nexthop add
	// ... dev X`); 0 takes the gateway's family, or AF_INET with a device.
	// A group, or a nexthop with neither gateway, device nor blackhole,
	// keeps 0 (AF_UNSPEC), as the kernel wants for a group and refuses
	// otherwise.
	Family int
}

func (n *Net) nexthopConfig(spec Nexthop) (nexthop.Config, error) {
	cfg := nexthop.Config{
		ID: spec.ID, Gateway: spec.Gateway, OnLink: spec.OnLink, Blackhole: spec.Blackhole,
		Group: spec.Group, GroupType: spec.GroupType, Protocol: spec.Protocol, Family: spec.Family,
	}
	if spec.Dev != "" {
		d := n.devs.ByName(spec.Dev)
		if d == nil {
			return cfg, errno.Errorf(syscall.ENODEV, "Cannot find device \"%s\"", spec.Dev)
		}
		cfg.Dev = d
	}
	if cfg.Family == 0 && len(cfg.Group) == 0 && !cfg.Blackhole && (cfg.Gateway.IsValid() || cfg.Dev != nil) {
		cfg.Family = syscall.AF_INET
		if cfg.Gateway.Is6() && !cfg.Gateway.Is4In6() {
			cfg.Family = syscall.AF_INET6
		}
	}
	return cfg, nil
}

// NexthopAdd adds a nexthop object.
//
// Kernel: rtm_new_nexthop (net/ipv4/nexthop.c), `ip nexthop add`.
func (h *Handle) NexthopAdd(spec Nexthop) error {
	return h.do("RTM_NEWNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		cfg, err := h.n.nexthopConfig(spec)
		if err != nil {
			return err
		}
		_, err = h.n.nh.Add(t, cfg)
		return err
	})
}

// NexthopReplace replaces a nexthop object (or adds it).
//
// Kernel: rtm_new_nexthop with NLM_F_REPLACE, `ip nexthop replace`.
func (h *Handle) NexthopReplace(spec Nexthop) error {
	return h.do("RTM_NEWNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		cfg, err := h.n.nexthopConfig(spec)
		if err != nil {
			return err
		}
		_, err = h.n.nh.Replace(t, cfg, h.n.fib)
		return err
	})
}

// NexthopDel deletes nexthop id; routes that use it go with it.
//
// Kernel: rtm_del_nexthop, `ip nexthop del id ID`.
func (h *Handle) NexthopDel(id nexthop.ID) error {
	return h.do("RTM_DELNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		return h.n.nh.Del(t, id, h.n.fib)
	})
}

// NexthopInfo is a snapshot of a nexthop object.
type NexthopInfo struct {
	ID        nexthop.ID
	Family    int
	Gateway   netip.Addr
	Dev       string
	OnLink    bool
	Blackhole bool
	Protocol  uint8 // nh_protocol ("proto")
	Group     []nexthop.GroupMember
	FIBUsers  int
	Text      string // as `ip nexthop show` prints it
}

func nexthopInfo(nh *nexthop.Nexthop) NexthopInfo {
	ni := NexthopInfo{
		ID: nh.ID(), Family: nh.Family(), Gateway: nh.Gateway(), OnLink: nh.OnLink(),
		Blackhole: nh.Blackhole(), Protocol: nh.Protocol(), Group: nh.Members(), FIBUsers: nh.FIBUsers(), Text: nh.String(),
	}
	if d := nh.Dev(); d != nil {
		ni.Dev = d.Name()
	}
	return ni
}

// NexthopGet returns nexthop id.
//
// Kernel: rtm_get_nexthop, `ip nexthop get id ID`.
func (h *Handle) NexthopGet(id nexthop.ID) (NexthopInfo, error) {
	var ni NexthopInfo
	err := h.do("RTM_GETNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		nh := h.n.nh.Get(id)
		if nh == nil {
			return errno.New(syscall.ENOENT, "Nexthop id does not exist")
		}
		ni = nexthopInfo(nh)
		return nil
	})
	return ni, err
}

// NexthopList returns every nexthop object, by id.
//
// Kernel: rtm_dump_nexthop, `ip nexthop show`.
func (h *Handle) NexthopList() ([]NexthopInfo, error) {
	var out []NexthopInfo
	err := h.do("RTM_GETNEXTHOP", func(t *sim.Task, _ *netdev.Table) error {
		for _, nh := range h.n.nh.List() {
			out = append(out, nexthopInfo(nh))
		}
		return nil
	})
	return out, err
}
