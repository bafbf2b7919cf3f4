package scenario

import (
	"slices"
	"strconv"
	"testing"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// TestSeed001KernelCounts checks seed 001's hardware address lists and
// list work, request by request, against the counts read off the kernel's
// code (docs/seeds.md, "Seed 001: the kernel's list work, phase by phase").
// After the set-up b1 and bar hold the same m0 = 3 multicast entries, in
// the same order: ff02::1's 33:33:00:00:00:01 (ipv6_add_dev), 224.0.0.1's
// 01:00:5e:00:00:01 (ip_mc_up) and the solicited-node group of b1's
// link-local address, which every vlan shares since the vlans take b1's
// MAC address (addrconf_dad_begin → addrconf_join_solict).
//
//   - Creating a vlan adds ff02::1 to the vlan's own, empty list
//     (ipv6_add_dev → igmp6_group_added → dev_mc_add) while the vlan is
//     down, so __dev_set_rx_mode returns at once: no entry compared on any
//     list, no rx-mode reload, b1 and bar untouched.
//
//   - Bringing vlan i up changes its list three times while it is up
//     (__dev_open's dev_set_rx_mode, ip_mc_up's all-hosts group, the
//     link-local's solicited-node group), each change a dev_mc_sync to b1
//     and two bond re-syncs of b1's 3 entries to bar: 13 + 15 + 17 = 45
//     entries compared before the patch, whatever i is.
//
//   - Adding 2000::i to vlan i joins a solicited-node group no other vlan
//     has: with M = m0+i entries on b1 afterwards, the vlan's search (3),
//     b1's (M−1), the first re-sync (the M−1 old entries found at their
//     positions, the new one after all M−1 of bar's) and the second (all M
//     found) compare (M+1)² entries before the patch.
//
//   - Enslaving vlan 1 to the vrf, with M = m0+n entries on b1 and its
//     group at position 4, makes ten changes of its list while it is up
//     (three in addrconf_ifdown on NETDEV_CHANGEUPPER, two as cycle_netdev
//     takes it down, five as it comes up, two of those in DAD works), each
//     with two bond re-syncs: 17·T(M−1) + 3·T(M) + 2M + 33 entries compared
//     before the patch, T(k) = k(k+1)/2; about 20·M²/2.
//
// The walks are the kernel's before the patch (ListOnly), really walked and
// counted (hwaddr.List.SetCountedWalk); after it (TreeIndexed) the lists
// hold the same entries in the same order.
func TestSeed001KernelCounts(t *testing.T) {
	const n = 12
	const m0 = 3
	for _, tc := range []struct {
		cfg     rtnl.Config
		counted bool
	}{{rtnl.Before, false}, {rtnl.Before, true}, {rtnl.After, false}} {
		cfg := tc.cfg
		cfg.CountedWalks = tc.counted
		t.Run(cfg.String()+"/counted="+strconv.FormatBool(tc.counted), func(t *testing.T) {
			ck := newChecked(t, cfg, 0)
			k, w, task, sh := ck.k, ck.w, ck.task, ck.sh
			net, err := k.NewNet(task, "test")
			if err != nil {
				t.Fatal(err)
			}
			h := net.Handle(task)
			if err := seed001Setup(sh, h); err != nil {
				t.Fatal(err)
			}
			k.Settle(task)
			dev := func(name string) *netdev.Device {
				d := net.Devices().ByName(name)
				if d == nil {
					t.Fatalf("no device %s", name)
				}
				return d
			}
			b1, bar := dev("b1"), dev("bar")
			addrs := func(l *hwaddr.List) []hwaddr.Addr {
				var as []hwaddr.Addr
				for _, e := range l.Entries() {
					as = append(as, e.Addr)
				}
				return as
			}
			// lists checks b1's multicast list length and that bar's
			// holds the same addresses in the same order (the bond's
			// re-syncs append to both in the same order), and that no
			// unicast list has anything.
			lists := func(what string, m int) {
				t.Helper()
				if got := b1.MC().Len(); got != m {
					t.Fatalf("%s: b1 has %d multicast entries, want %d", what, got, m)
				}
				if !slices.Equal(addrs(b1.MC()), addrs(bar.MC())) {
					t.Fatalf("%s: bar's list %v is not b1's %v", what, addrs(bar.MC()), addrs(b1.MC()))
				}
				if b1.UC().Len() != 0 || bar.UC().Len() != 0 {
					t.Fatalf("%s: unicast entries on b1 (%d) or bar (%d)", what, b1.UC().Len(), bar.UC().Len())
				}
			}
			// step runs one request and the work it queues (the DAD
			// works), returning the entries compared and the rx-mode
			// reloads.
			step := func(fn func() error) (compares, reloads int64) {
				t.Helper()
				c0 := w.Counters()
				if err := sh.netnsExec(fn); err != nil {
					t.Fatal(err)
				}
				k.Settle(task)
				d := w.Counters().Sub(c0)
				return d.Get(sim.HWAddrCompare), d.Get(sim.RxModeSync)
			}
			vlan := func(i int) string { return "foo." + strconv.Itoa(i) }
			lists("set-up", m0)

			for i := 1; i <= n; i++ {
				c, r := step(func() error { return h.LinkAdd(netdev.Vlan{Name: vlan(i), Link: "b1", ID: uint16(i)}) })
				if c != 0 || r != 0 {
					t.Fatalf("create %s: %d entries compared, %d rx-mode reloads; want none", vlan(i), c, r)
				}
				if got := dev(vlan(i)).MC().Len(); got != 1 {
					t.Fatalf("create %s: the vlan has %d multicast entries, want 1 (ff02::1)", vlan(i), got)
				}
			}
			lists("create", m0)

			for i := 1; i <= n; i++ {
				c, _ := step(func() error { return h.LinkSetUp(vlan(i)) })
				if cfg.HWAddr == hwaddr.ListOnly && c != 45 {
					t.Fatalf("up %s: %d entries compared, want 45", vlan(i), c)
				}
				if got := dev(vlan(i)).MC().Len(); got != 3 {
					t.Fatalf("up %s: the vlan has %d multicast entries, want 3", vlan(i), got)
				}
			}
			lists("up", m0)

			for i := 1; i <= n; i++ {
				a, err := seed001Addr(i)
				if err != nil {
					t.Fatal(err)
				}
				c, _ := step(func() error { return h.AddrAdd(vlan(i), a) })
				m := int64(m0 + i)
				if cfg.HWAddr == hwaddr.ListOnly && c != (m+1)*(m+1) {
					t.Fatalf("address on %s: %d entries compared, want (M+1)² = %d", vlan(i), c, (m+1)*(m+1))
				}
				lists("address on "+vlan(i), m0+i)
			}
			for i := 1; i <= n; i++ {
				c, _ := step(func() error { return h.LinkSetMaster(vlan(i), "florp") })
				if m := int64(m0 + n); i == 1 && cfg.HWAddr == hwaddr.ListOnly {
					if want := 17*tri(m-1) + 3*tri(m) + 2*m + 33; c != want {
						t.Fatalf("enslave %s: %d entries compared, want 17·T(M-1) + 3·T(M) + 2M + 33 = %d", vlan(i), c, want)
					}
				}
				lists("enslave "+vlan(i), m0+n)
				if got := dev(vlan(i)).MC().Len(); got != 4 {
					t.Fatalf("enslave %s: the vlan has %d multicast entries, want 4", vlan(i), got)
				}
			}
		})
	}
}

// tri is the triangular number k(k+1)/2: the entries a list walk compares
// finding, one after the other, the entries at positions 1..k.
func tri(k int64) int64 { return k * (k + 1) / 2 }
