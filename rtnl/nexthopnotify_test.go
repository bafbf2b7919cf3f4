package rtnl_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/iproute"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// A nexthop replace is followed by the RTM_NEWROUTE (NLM_F_REPLACE) of
// every route using the nexthop, then of those using the groups it is in:
// IPv4 routes by table hash bucket (a bucket's newest table first), each
// table's prefixes from the highest down, a prefix's routes in order;
// IPv6 routes newest first. The order is what `ip monitor route nexthop`
// showed on Linux 6.18 for the same commands.
func TestNexthopReplaceNotifiesRoutes(t *testing.T) {
	k := rtnl.MustNewKernel(rtnl.After)
	cmd := iproute.New(k, k.World().NewTask("ip"))
	for _, c := range []string{
		"link add veth0 type veth peer name veth1", "link set veth0 up", "link set veth1 up",
		"addr add 10.0.0.1/24 dev veth0", "addr add 2001:db8::1/64 dev veth0 nodad",
		"nexthop add id 3 via 10.0.0.3 dev veth0", "nexthop add id 4 via 10.0.0.5 dev veth0",
		"nexthop add id 10 group 3/4",
		"route add 192.0.2.0/24 nhid 3", "route add 198.51.100.0/24 nhid 3",
		"route add 10.9.0.0/16 nhid 3 table 100", "route add 10.9.0.0/16 nhid 3 table 356",
		"route add 192.0.2.128/25 nhid 10", "route add 203.0.113.0/24 nhid 10",
		"route add 192.0.2.0/24 nhid 3 metric 5",
		"nexthop add id 6 via 2001:db8::3 dev veth0", "nexthop add id 7 via 2001:db8::4 dev veth0",
		"nexthop add id 11 group 6/7",
		"route add 2001:db8:5::/64 nhid 6", "route add 2001:db8:6::/64 nhid 6",
		"route add 2001:db8:4::/64 nhid 11",
	} {
		require.NoError(t, cmd.Run(strings.Fields(c)...), c)
	}
	var l notifyLog
	cancel := k.InitNet().Subscribe(l.add)
	defer cancel()
	h := k.InitNet().Handle(k.World().NewTask("nl"))
	require.NoError(t, h.NewNexthop(rtnl.NexthopRequest{Origin: rtnl.Origin{PortID: 4242, Seq: 1}, Flags: rt.NLMCreate | rt.NLMReplace, ID: 3, Gateway: ip("10.0.0.4"), Dev: "veth0"}))
	require.NoError(t, h.NewNexthop(rtnl.NexthopRequest{Origin: rtnl.Origin{PortID: 4242, Seq: 2}, Flags: rt.NLMCreate | rt.NLMReplace, ID: 6, Gateway: ip("2001:db8::5"), Dev: "veth0"}))
	require.NoError(t, h.NewNexthop(rtnl.NexthopRequest{Origin: rtnl.Origin{PortID: 4242, Seq: 3}, Flags: rt.NLMCreate | rt.NLMReplace, ID: 10, Group: []nexthop.GroupEntry{{ID: 3, Weight: 2}, {ID: 4, Weight: 1}}}))
	require.NoError(t, h.NewNexthop(rtnl.NexthopRequest{Origin: rtnl.Origin{PortID: 4242, Seq: 4}, Flags: rt.NLMCreate | rt.NLMReplace, ID: 12, Gateway: ip("10.0.0.6"), Dev: "veth0"}))
	require.Equal(t, []string{
		"NEWNEXTHOP f=0x505 o=req fam=2 id=3 via=10.0.0.4 dev=veth0",
		"NEWROUTE f=0x100 o=req fam=2 t=356 10.9.0.0/16 type=1 proto=3 via=10.0.0.4 dev=veth0 nhid=3",
		"NEWROUTE f=0x100 o=req fam=2 t=100 10.9.0.0/16 type=1 proto=3 via=10.0.0.4 dev=veth0 nhid=3",
		"NEWROUTE f=0x100 o=req fam=2 t=254 198.51.100.0/24 type=1 proto=3 via=10.0.0.4 dev=veth0 nhid=3",
		"NEWROUTE f=0x100 o=req fam=2 t=254 192.0.2.0/24 type=1 proto=3 via=10.0.0.4 dev=veth0 nhid=3",
		"NEWROUTE f=0x100 o=req fam=2 t=254 192.0.2.0/24 type=1 proto=3 via=10.0.0.4 dev=veth0 nhid=3",
		"NEWROUTE f=0x100 o=req fam=2 t=254 203.0.113.0/24 type=1 proto=3 nhid=10 mp=[ 10.0.0.4:veth0:w1 10.0.0.5:veth0:w1 ]",
		"NEWROUTE f=0x100 o=req fam=2 t=254 192.0.2.128/25 type=1 proto=3 nhid=10 mp=[ 10.0.0.4:veth0:w1 10.0.0.5:veth0:w1 ]",
		"NEWNEXTHOP f=0x505 o=req fam=10 id=6 via=2001:db8::5 dev=veth0",
		"NEWROUTE f=0x100 o=req fam=10 t=254 2001:db8:6::/64 type=1 proto=3 via=2001:db8::5 dev=veth0 nhid=6",
		"NEWROUTE f=0x100 o=req fam=10 t=254 2001:db8:5::/64 type=1 proto=3 via=2001:db8::5 dev=veth0 nhid=6",
		"NEWROUTE f=0x100 o=req fam=10 t=254 2001:db8:4::/64 type=1 proto=3 nhid=11 mp=[ 2001:db8::5:veth0:w1 2001:db8::4:veth0:w1 ]",
		"NEWNEXTHOP f=0x505 o=req fam=0 id=10 group=3,2/4,1/",
		"NEWROUTE f=0x100 o=req fam=2 t=254 203.0.113.0/24 type=1 proto=3 nhid=10 mp=[ 10.0.0.4:veth0:w2 10.0.0.5:veth0:w1 ]",
		"NEWROUTE f=0x100 o=req fam=2 t=254 192.0.2.128/25 type=1 proto=3 nhid=10 mp=[ 10.0.0.4:veth0:w2 10.0.0.5:veth0:w1 ]",
		// A replace that creates the nexthop has no route to announce.
		"NEWNEXTHOP f=0x505 o=req fam=2 id=12 via=10.0.0.6 dev=veth0",
	}, l.lines)
}
