// The Build scenario: one `ip` process builds a namespace of dummies,
// VLANs on a bond and their IPv6 addresses, then tears part of it down,
// touching each behaviour the seed patches changed.

package scenario

import (
	"fmt"
	"net/netip"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// BuildParams sizes the Build scenario. Zero fields take the defaults.
type BuildParams struct {
	Dummies  int // dummy devices, each up with an IPv6 address (default 3000)
	VLANs    int // VLANs on a bond, each up with an IPv6 address (default 300)
	OneByOne int // dummies deleted one `ip link del` at a time (default 20)
	// Machine is the profile the run's costs come from: a shipped
	// profile's name or a profile file; "" is the development VM's
	// (sim.DefaultCosts).
	Machine string
	// Tracer receives the run's trace events; nil: no tracing.
	Tracer sim.Tracer
}

func (p *BuildParams) defaults() {
	if p.Dummies == 0 {
		p.Dummies = 3000
	}
	if p.VLANs == 0 {
		p.VLANs = 300
	}
	if p.OneByOne == 0 {
		p.OneByOne = 20
	}
	p.OneByOne = min(p.OneByOne, p.Dummies)
}

// Build builds a namespace of devices with addresses and tears part of it
// down, in one `ip` process, touching each behaviour the seed patches
// changed:
//
//   - "dummies": p.Dummies dummy devices created, brought up and given an
//     IPv6 address each, with IPv6 forwarding on (so each holds subnet-router
//     anycast routes);
//   - "vlans": a veth enslaved to a bond and p.VLANs VLANs on the bond, each
//     up with an IPv6 address, whose solicited-node groups grow the bond's
//     and the slave's multicast lists (hwaddr policy, seed 001);
//   - "delete one by one": p.OneByOne dummies deleted one request each, each
//     waiting in netdev_wait_allrefs for the anycast route's chained RCU
//     release (wait policy, seed 002; one rcu_barrier each, seed 004);
//   - "delete the rest": the remaining dummies in one IFLA_IFINDEX_LIST
//     request where the kernel supports it (seed 004), one by one otherwise.
func Build(cfg rtnl.Config, p BuildParams) (*Report, error) {
	p.defaults()
	prof, err := LoadMachine(p.Machine, "")
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	k, _, err := newKernel(cfg, prof.Costs, 0, p.Tracer)
	if err != nil {
		return nil, err
	}
	t := k.World().NewTask("ip")
	rc := newRecorder("build", k, t)
	n, err := k.NewNet(t, "build")
	if err != nil {
		return nil, err
	}
	h := n.Handle(t)
	if err := h.Sysctl("net.ipv6.conf.default.forwarding", "1"); err != nil {
		return nil, err
	}
	dummy := func(i int) string { return fmt.Sprintf("d%d", i) }
	if err := rc.phase("dummies", func() error {
		for i := range p.Dummies {
			if err := h.LinkAdd(netdev.Dummy{Name: dummy(i)}); err != nil {
				return err
			}
			if err := h.LinkSetUp(dummy(i)); err != nil {
				return err
			}
			a := netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 4: byte(i >> 8), 5: byte(i), 15: 1}), 64)
			if err := h.AddrAdd(dummy(i), a); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := rc.phase("vlans", func() error {
		for _, s := range []netdev.LinkSpec{netdev.Veth{Name: "foo", Peer: "bar"}, netdev.Bond{Name: "b1"}} {
			if err := h.LinkAdd(s); err != nil {
				return err
			}
		}
		if err := h.LinkSetMaster("bar", "b1"); err != nil {
			return err
		}
		for _, d := range []string{"foo", "b1"} {
			if err := h.LinkSetUp(d); err != nil {
				return err
			}
		}
		for i := 1; i <= p.VLANs; i++ {
			name := fmt.Sprintf("b1.%d", i)
			if err := h.LinkAdd(netdev.Vlan{Name: name, Link: "b1", ID: uint16(i)}); err != nil {
				return err
			}
			if err := h.LinkSetUp(name); err != nil {
				return err
			}
			a := netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x00, 14: byte(i >> 8), 15: byte(i)}), 64)
			if err := h.AddrAdd(name, a); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := rc.phase("delete one by one", func() error {
		for i := range p.OneByOne {
			if err := h.LinkDel(dummy(i)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := rc.phase("delete the rest", func() error {
		if !cfg.IfindexList {
			for i := p.OneByOne; i < p.Dummies; i++ {
				if err := h.LinkDel(dummy(i)); err != nil {
					return err
				}
			}
			return nil
		}
		var idx []netdev.IfIndex
		for i := p.OneByOne; i < p.Dummies; i++ {
			li, err := h.LinkByName(dummy(i))
			if err != nil {
				return err
			}
			idx = append(idx, li.Index)
		}
		for len(idx) > 0 {
			n := min(len(idx), netdev.MaxIfindexList)
			if err := h.LinkDelList(idx[:n]); err != nil {
				return err
			}
			idx = idx[n:]
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return rc.done(), nil
}
