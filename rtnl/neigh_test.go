package rtnl_test

import (
	"fmt"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/neigh"
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/stretchr/testify/require"
)

// neighRig is a rig with a veth pair veth0/veth1, both up, and 10.0.0.1/24
// on veth0, as the real-kernel experiments the tests follow set up.
func neighRig(t *testing.T) *rig {
	r := newRig(t, rtnl.After)
	r.ok(r.h.LinkAdd(netdev.Veth{Name: "veth0", Peer: "veth1"}))
	r.up("veth0", "veth1")
	r.ok(r.h.AddrAdd("veth0", netip.MustParsePrefix("10.0.0.1/24")))
	return r
}

// req is an RTM_NEWNEIGH or RTM_DELNEIGH as ip sends it for `ip neigh
// CMD ADDR [lladdr MAC] dev DEV`: its state defaults to NUD_PERMANENT.
func neighReq(r *rig, flags rt.NLMFlags, dev, addr, mac string, state neigh.State, ntf neigh.Flags) rtnl.NeighRequest {
	a := netip.MustParseAddr(addr)
	q := rtnl.NeighRequest{Flags: flags, Family: rt.FamilyInet, State: state, NTF: ntf, Dst: a.AsSlice()}
	if a.Is6() {
		q.Family = rt.FamilyInet6
	}
	if dev != "" {
		q.Index = r.dev(dev).Index()
	}
	if mac != "" {
		m, err := hwaddr.ParseAddr(mac)
		require.NoError(r.tb, err)
		q.LLAddr = m[:]
	}
	return q
}

const (
	nlmAdd     = rt.NLMCreate | rt.NLMExcl
	nlmReplace = rt.NLMCreate | rt.NLMReplace
	nlmChange  = rt.NLMReplace
)

// neighLines renders the namespace's entries as `ip neigh show nud all`
// does, without ip's spacing.
func neighLines(r *rig, proxy bool) string {
	d, err := r.h.DumpNeighs(rtnl.NeighDumpRequest{Proxy: proxy})
	out, err := rtnl.ReadAll[rtnl.NeighInfo](d, err)
	require.NoError(r.tb, err)
	var b strings.Builder
	for _, n := range out {
		fmt.Fprintf(&b, "%s", n.Dst)
		if n.Link != "" {
			fmt.Fprintf(&b, " dev %s", n.Link)
		}
		if n.HasLL {
			fmt.Fprintf(&b, " lladdr %s", n.LLAddr)
		}
		if n.NTF&neigh.FlagRouter != 0 {
			b.WriteString(" router")
		}
		if n.NTF&neigh.FlagProxy != 0 {
			b.WriteString(" proxy")
		}
		fmt.Fprintf(&b, " %#x\n", uint16(n.State))
	}
	return b.String()
}

// TestNeighAddSemantics follows `ip neigh add/change/replace/del/get` on
// Linux 6.18 (unshare -n, a veth pair): NLM_F_EXCL's EEXIST, a change of a
// missing entry's ENOENT, a valid state without a link-layer address
// refused after the entry was made (it stays, in NUD_NONE), the kernel's
// extack messages.
func TestNeighAddSemantics(t *testing.T) {
	r := neighRig(t)
	h := r.h
	r.ok(h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.2", "02:00:00:00:00:02", neigh.StatePermanent, 0)))
	require.ErrorIs(t, h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.2", "02:00:00:00:00:02", neigh.StatePermanent, 0)), syscall.EEXIST)
	// `ip neigh add 10.0.0.5 dev veth0 nud noarp`: "No link layer address
	// given", and 10.0.0.5 is left in NUD_NONE.
	requireErr(t, h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.5", "", neigh.StateNoARP, 0)), syscall.EINVAL, "No link layer address given")
	r.ok(h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.4", "02:00:00:00:00:04", neigh.StateStale, neigh.FlagRouter)))
	short := neighReq(r, nlmAdd, "veth0", "10.0.0.17", "", neigh.StatePermanent, 0)
	short.LLAddr = []byte{2} // `lladdr 02`
	requireErr(t, h.NewNeigh(short), syscall.EINVAL, "Invalid link address")
	requireErr(t, h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.15", "02:00:00:00:00:0f", neigh.StatePermanent, neigh.FlagManaged)), syscall.EINVAL, "Invalid NTF_* flag for permanent entry")
	require.ErrorIs(t, h.NewNeigh(neighReq(r, nlmChange, "veth0", "10.0.0.99", "02:00:00:00:00:02", neigh.StatePermanent, 0)), syscall.ENOENT)
	// A change without NLM_F_REPLACE keeps a valid entry's address.
	r.ok(h.NewNeigh(neighReq(r, nlmAdd&^rt.NLMExcl, "veth0", "10.0.0.4", "02:00:00:00:00:44", neigh.StateStale, 0)))
	r.ok(h.NewNeigh(neighReq(r, nlmReplace, "veth0", "10.0.0.2", "02:00:00:00:00:22", neigh.StateStale, 0)))
	r.ok(h.NewNeigh(neighReq(r, nlmAdd, "veth0", "2001:db8::2", "02:00:00:00:00:22", neigh.StatePermanent, neigh.FlagRouter)))
	r.ok(h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.100", "", neigh.StatePermanent, neigh.FlagProxy)))
	r.ok(h.NewNeigh(neighReq(r, nlmAdd, "", "10.0.0.101", "", neigh.StatePermanent, neigh.FlagProxy)))
	require.Equal(t, ""+
		"10.0.0.2 dev veth0 lladdr 02:00:00:00:00:22 0x4\n"+
		"10.0.0.5 dev veth0 0x0\n"+
		"10.0.0.4 dev veth0 lladdr 02:00:00:00:00:04 router 0x4\n"+
		"2001:db8::2 dev veth0 lladdr 02:00:00:00:00:22 router 0x80\n", neighLines(r, false))
	require.Equal(t, "10.0.0.100 dev veth0 proxy 0x0\n10.0.0.101 proxy 0x0\n", neighLines(r, true))

	got, err := h.GetNeigh(rtnl.NeighGetRequest{Family: rt.FamilyInet, Index: r.dev("veth0").Index(), Dst: netip.MustParseAddr("10.0.0.2").AsSlice()})
	r.ok(err)
	require.Equal(t, neigh.StateStale, got.State)
	_, err = h.GetNeigh(rtnl.NeighGetRequest{Family: rt.FamilyInet, Index: r.dev("veth0").Index(), Dst: netip.MustParseAddr("10.0.0.99").AsSlice()})
	requireErr(t, err, syscall.ENOENT, "Neighbour entry not found")
	_, err = h.GetNeigh(rtnl.NeighGetRequest{Family: rt.FamilyInet, Index: r.dev("veth0").Index(), Proxy: true, Dst: netip.MustParseAddr("10.0.0.200").AsSlice()})
	requireErr(t, err, syscall.ENOENT, "Proxy neighbour entry not found")

	r.ok(h.DelNeigh(neighReq(r, 0, "veth0", "10.0.0.2", "", 0, 0)))
	require.ErrorIs(t, h.DelNeigh(neighReq(r, 0, "veth0", "10.0.0.2", "", 0, 0)), syscall.ENOENT)
	r.ok(h.DelNeigh(neighReq(r, 0, "veth0", "10.0.0.100", "", 0, neigh.FlagProxy)))
	require.ErrorIs(t, h.DelNeigh(neighReq(r, 0, "veth0", "10.0.0.100", "", 0, neigh.FlagProxy)), syscall.ENOENT)
	require.ErrorIs(t, h.NewNeigh(rtnl.NeighRequest{Family: 7, Index: 1, Dst: []byte{1, 2, 3, 4}}), syscall.EAFNOSUPPORT)
	requireErr(t, h.NewNeigh(rtnl.NeighRequest{Family: rt.FamilyInet6, Index: 1, Dst: []byte{1, 2, 3, 4}}), syscall.EINVAL, "Invalid network address")
}

// TestNeighNotifications: the messages `ip monitor neigh` saw on Linux
// 6.18 for the same requests: none for a proxy entry, for an add in
// NUD_NONE or for a change that changes nothing; a delete of a valid entry
// sends RTM_NEWNEIGH (NUD_FAILED) then RTM_DELNEIGH.
func TestNeighNotifications(t *testing.T) {
	r := neighRig(t)
	h := r.h
	var got []string
	cancel := r.k.InitNet().Subscribe(func(n rtnl.Notification) {
		if n.Neigh == nil {
			return
		}
		s := fmt.Sprintf("%s %s %#x", map[rt.MsgType]string{rt.RTMNewNeigh: "RTM_NEWNEIGH", rt.RTMDelNeigh: "RTM_DELNEIGH"}[n.Type], n.Neigh.Dst, uint16(n.Neigh.State))
		if n.Neigh.HasLL {
			s += " " + n.Neigh.LLAddr.String()
		}
		if n.Origin.PortID != 0 {
			s += fmt.Sprintf(" pid %d", n.Origin.PortID)
		}
		got = append(got, s)
	})
	defer cancel()
	r.ok(h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.2", "02:00:00:00:00:02", neigh.StatePermanent, 0)))
	q := neighReq(r, nlmAdd, "veth0", "10.0.0.3", "02:00:00:00:00:03", neigh.StateStale, 0)
	q.Origin = rtnl.Origin{PortID: 77, Seq: 5}
	r.ok(h.NewNeigh(q))
	r.ok(h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.100", "", neigh.StatePermanent, neigh.FlagProxy)))
	r.ok(h.NewNeigh(neighReq(r, nlmChange, "veth0", "10.0.0.3", "02:00:00:00:00:03", neigh.StateStale, 0)))
	r.ok(h.NewNeigh(neighReq(r, nlmChange, "veth0", "10.0.0.3", "02:00:00:00:00:33", neigh.StateStale, 0)))
	r.ok(h.DelNeigh(neighReq(r, 0, "veth0", "10.0.0.3", "", 0, 0)))
	r.ok(h.NewNeigh(neighReq(r, nlmAdd, "veth0", "10.0.0.4", "", neigh.StateNone, 0)))
	r.ok(h.DelNeigh(neighReq(r, 0, "veth0", "10.0.0.4", "", 0, 0)))
	r.ok(h.DelNeigh(neighReq(r, 0, "veth0", "10.0.0.100", "", 0, neigh.FlagProxy)))
	require.Equal(t, []string{
		"RTM_NEWNEIGH 10.0.0.2 0x80 02:00:00:00:00:02",
		"RTM_NEWNEIGH 10.0.0.3 0x4 02:00:00:00:00:03 pid 77",
		"RTM_NEWNEIGH 10.0.0.3 0x4 02:00:00:00:00:33",
		"RTM_NEWNEIGH 10.0.0.3 0x20",
		"RTM_DELNEIGH 10.0.0.3 0x20",
		"RTM_DELNEIGH 10.0.0.4 0x20",
	}, got)
}

// TestNeighDeviceEvents: what Linux 6.18 keeps of veth0's entries (a
// permanent and a stale neighbour and a proxy entry of each family) when
// its peer goes down (carrier loss: the permanent ones and the proxies),
// its last IPv4 address goes (the IPv6 ones), it goes down (none), and
// its hardware address changes (the proxies).
func TestNeighDeviceEvents(t *testing.T) {
	r := neighRig(t)
	h := r.h
	add := func() {
		r.ok(h.NewNeigh(neighReq(r, nlmReplace, "veth0", "10.0.0.2", "02:00:00:00:00:02", neigh.StatePermanent, 0)))
		r.ok(h.NewNeigh(neighReq(r, nlmReplace, "veth0", "10.0.0.3", "02:00:00:00:00:03", neigh.StateStale, 0)))
		r.ok(h.NewNeigh(neighReq(r, nlmReplace, "veth0", "10.0.0.100", "", neigh.StatePermanent, neigh.FlagProxy)))
		r.ok(h.NewNeigh(neighReq(r, nlmReplace, "veth0", "2001:db8::2", "02:00:00:00:00:22", neigh.StatePermanent, 0)))
		r.ok(h.NewNeigh(neighReq(r, nlmReplace, "veth0", "2001:db8::3", "02:00:00:00:00:23", neigh.StateStale, 0)))
		r.ok(h.NewNeigh(neighReq(r, nlmReplace, "veth0", "2001:db8::100", "", neigh.StatePermanent, neigh.FlagProxy)))
	}
	show := func() string { return neighLines(r, false) + neighLines(r, true) }
	add()
	r.ok(h.LinkSetDown("veth1"))
	require.Equal(t, ""+
		"10.0.0.2 dev veth0 lladdr 02:00:00:00:00:02 0x80\n"+
		"2001:db8::2 dev veth0 lladdr 02:00:00:00:00:22 0x80\n"+
		"10.0.0.100 dev veth0 proxy 0x0\n"+
		"2001:db8::100 dev veth0 proxy 0x0\n", show())
	r.up("veth1")
	add()
	r.ok(h.AddrDel("veth0", netip.MustParsePrefix("10.0.0.1/24")))
	require.Equal(t, ""+
		"2001:db8::2 dev veth0 lladdr 02:00:00:00:00:22 0x80\n"+
		"2001:db8::3 dev veth0 lladdr 02:00:00:00:00:23 0x4\n"+
		"2001:db8::100 dev veth0 proxy 0x0\n", show())
	add()
	r.ok(h.LinkSetDown("veth0"))
	require.Equal(t, "", show())
	add() // entries can be added to a device that is down
	require.Contains(t, show(), "10.0.0.3 dev veth0")
	r.up("veth0")
	r.ok(h.LinkSetHardwareAddr("veth0", netdev.MAC{2, 0x11, 0x11, 0x11, 0x11, 0x11}))
	require.Equal(t, "10.0.0.100 dev veth0 proxy 0x0\n2001:db8::100 dev veth0 proxy 0x0\n", show())
	add()
	r.ok(h.LinkDel("veth0"))
	require.Equal(t, "", show())
	require.Zero(t, r.k.NeighTable(rt.FamilyInet).Len())
	require.Zero(t, r.k.NeighTable(rt.FamilyInet6).Len())
}

// TestNeighGC: gc_thresh3 caps the entries not exempt from gc (a
// permanent or extern_learn entry is) across namespaces; a full table
// answers ENOBUFS without a message, as Linux 6.18 does at the default
// 1024 (`ip -batch` of 1100 stale adds: 1024 made); forced gc frees the
// entries last updated more than five seconds ago.
func TestNeighGC(t *testing.T) {
	r := neighRig(t)
	h := r.h
	r.ok(h.Sysctl("net.ipv4.neigh.default.gc_thresh3", "8"))
	r.ok(h.Sysctl("net.ipv4.neigh.default.gc_thresh2", "4"))
	ns, err := r.k.NewNet(r.t, "other")
	r.ok(err)
	h2 := ns.Handle(r.t)
	require.ErrorIs(t, h2.Sysctl("net.ipv4.neigh.default.gc_thresh3", "8"), syscall.ENOENT)
	r.ok(h2.LinkAdd(netdev.Veth{Name: "veth0", Peer: "veth1"}))
	mac := netdev.MAC{2, 0, 0, 0, 0, 9}
	for i := range 3 {
		r.ok(h2.NeighAdd("veth0", netip.AddrFrom4([4]byte{10, 9, 0, byte(i + 1)}), mac, neigh.StateStale))
	}
	for i := range 5 {
		r.ok(h.NeighAdd("veth0", netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 10)}), mac, neigh.StateStale))
	}
	err = h.NeighAdd("veth0", netip.MustParseAddr("10.0.0.50"), mac, neigh.StateStale)
	requireErr(t, err, syscall.ENOBUFS, "")
	r.ok(h.NeighAdd("veth0", netip.MustParseAddr("10.0.0.51"), mac, neigh.StatePermanent))
	q := neighReq(r, nlmAdd, "veth0", "10.0.0.52", "02:00:00:00:00:09", neigh.StateStale, neigh.FlagExtLearned)
	r.ok(h.NewNeigh(q))
	arp := r.k.NeighTable(rt.FamilyInet)
	require.Equal(t, 10, arp.Len())
	require.Equal(t, 8, arp.GCEntries())
	// Six seconds on, the stale entries may go: forced gc frees down to
	// gc_thresh2, oldest first (the other namespace's).
	r.k.SettleFor(r.t, 6*time.Second)
	r.ok(h.NeighAdd("veth0", netip.MustParseAddr("10.0.0.50"), mac, neigh.StateStale))
	require.Equal(t, 5, arp.GCEntries())
	others, err := h2.NeighList(rt.FamilyInet)
	r.ok(err)
	require.Empty(t, others)
	mine, err := h.NeighList(rt.FamilyUnspec)
	r.ok(err)
	require.Len(t, mine, 7)
}

// TestNeighDumpFilters: NDA_IFINDEX and NDA_MASTER keep the entries of a
// device, of a master's ports, or (-1) of devices without a master; a
// strict dump refuses what neigh_valid_dump_req refuses.
func TestNeighDumpFilters(t *testing.T) {
	r := neighRig(t)
	h := r.h
	r.ok(h.LinkAdd(netdev.Bridge{Name: "br0"}))
	r.ok(h.LinkSetMaster("veth1", "br0"))
	mac := netdev.MAC{2, 0, 0, 0, 0, 9}
	r.ok(h.NeighAdd("veth0", netip.MustParseAddr("10.0.0.2"), mac, neigh.StatePermanent))
	r.ok(h.NeighAdd("veth1", netip.MustParseAddr("10.0.0.3"), mac, neigh.StatePermanent))
	dump := func(q rtnl.NeighDumpRequest) []string {
		var out []string
		d, err := h.DumpNeighs(q)
		ns, err := rtnl.ReadAll[rtnl.NeighInfo](d, err)
		r.ok(err)
		for _, n := range ns {
			out = append(out, n.Dst.String())
		}
		return out
	}
	require.Equal(t, []string{"10.0.0.2"}, dump(rtnl.NeighDumpRequest{Index: r.dev("veth0").Index()}))
	require.Equal(t, []string{"10.0.0.3"}, dump(rtnl.NeighDumpRequest{Master: int32(r.dev("br0").Index())}))
	require.Equal(t, []string{"10.0.0.2"}, dump(rtnl.NeighDumpRequest{Master: -1}))
	require.Empty(t, dump(rtnl.NeighDumpRequest{Family: rt.FamilyInet6}))
	_, err := h.DumpNeighs(rtnl.NeighDumpRequest{Strict: true, BadFlags: true})
	requireErr(t, err, syscall.EINVAL, "Invalid flags in header for neighbor dump request")
	_, err = h.DumpNeighs(rtnl.NeighDumpRequest{Strict: true, Unsupported: true})
	requireErr(t, err, syscall.EINVAL, "Unsupported attribute in neighbor dump request")
}
