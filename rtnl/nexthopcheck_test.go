package rtnl_test

import (
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// TestNewNexthopChecks: the checks rtm_to_nh_config makes on an
// RTM_NEWNEXTHOP, in its order, with Linux 6.18's errno and extack, for a
// request from Go as for one from the wire; a refused request changes
// nothing.
func TestNewNexthopChecks(t *testing.T) {
	r := nexthopRig(t)
	ip := netip.MustParseAddr
	type g = []nexthop.GroupEntry
	onlink := rt.FlagOnLink
	res := nexthop.GroupResilient
	inet, inet6 := rt.FamilyInet, rt.FamilyInet6
	nested := errno.New(syscall.EINVAL, "Unknown attribute type")
	cases := []struct {
		name string
		req  rtnl.NexthopRequest
		en   syscall.Errno
		msg  string
	}{
		// The header: scope and resvd 0, no flag but onlink.
		{"resvd", rtnl.NexthopRequest{ID: 20, Dev: "veth2", Resvd: 1}, syscall.EINVAL, "Invalid values in ancillary header"},
		{"scope", rtnl.NexthopRequest{ID: 20, Dev: "veth2", Scope: rt.ScopeLink}, syscall.EINVAL, "Invalid values in ancillary header"},
		{"header before family", rtnl.NexthopRequest{ID: 20, Scope: rt.ScopeLink, Family: 7}, syscall.EINVAL, "Invalid values in ancillary header"},
		{"flags", rtnl.NexthopRequest{ID: 20, Dev: "veth2", NHFlags: rt.FlagDead}, syscall.EINVAL, "Invalid nexthop flags in ancillary header"},
		// nh_family: AF_INET or AF_INET6, AF_UNSPEC for a group only.
		{"bad family", rtnl.NexthopRequest{ID: 20, Family: 7, Dev: "veth2"}, syscall.EINVAL, "Invalid address family"},
		{"bad family before group checks", rtnl.NexthopRequest{ID: 20, Family: 7, Group: g{}}, syscall.EINVAL, "Invalid address family"},
		{"nothing to take a family from", rtnl.NexthopRequest{ID: 20}, syscall.EINVAL, "Invalid address family"},
		{"AF_UNSPEC as sent", rtnl.NexthopRequest{ID: 20, Dev: "veth2", FamilySent: true}, syscall.EINVAL, "Invalid address family"},
		{"fdb without a family", rtnl.NexthopRequest{ID: 20, FDB: true}, syscall.EINVAL, "Invalid address family"},
		// An fdb nexthop: no device, blackhole, encapsulation or flags.
		{"fdb and device", rtnl.NexthopRequest{ID: 20, FDB: true, Gateway: ip("192.0.2.9"), Dev: "veth2"}, syscall.EINVAL, "Fdb attribute can not be used with encap, oif or blackhole"},
		{"fdb and blackhole", rtnl.NexthopRequest{ID: 20, FDB: true, Blackhole: true}, syscall.EINVAL, "Fdb attribute can not be used with encap, oif or blackhole"},
		{"fdb and encap type", rtnl.NexthopRequest{ID: 20, FDB: true, Gateway: ip("192.0.2.9"), HasEncapType: true}, syscall.EINVAL, "Fdb attribute can not be used with encap, oif or blackhole"},
		{"fdb and onlink", rtnl.NexthopRequest{ID: 20, FDB: true, Gateway: ip("192.0.2.9"), NHFlags: onlink}, syscall.EINVAL, "Unsupported nexthop flags in ancillary header"},
		// A group: its family and type, then its entries in order.
		{"group with family", rtnl.NexthopRequest{ID: 20, Family: inet, Group: g{{ID: 1}}}, syscall.EINVAL, "Invalid family for group"},
		{"bad group type", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1}}, GroupType: 2}, syscall.EINVAL, "Invalid group type"},
		{"empty group", rtnl.NexthopRequest{ID: 20, Group: g{}}, syscall.EINVAL, "Invalid length for nexthop group attribute"},
		{"reserved field", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1}, {ID: 2, Resvd: 1}}}, syscall.EINVAL, "Reserved field in nexthop_grp must be 0"},
		{"reserved field before a later duplicate", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1, Resvd: 1}, {ID: 1}}}, syscall.EINVAL, "Reserved field in nexthop_grp must be 0"},
		{"duplicate before a later reserved field", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1}, {ID: 1, Resvd: 1}}}, syscall.EINVAL, "Nexthop id can not be used twice in a group"},
		{"weight 65536", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1, Weight: 65536}}}, syscall.EINVAL, "Invalid value for weight"},
		{"duplicate", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1}, {ID: 2}, {ID: 1}}}, syscall.EINVAL, "Nexthop id can not be used twice in a group"},
		{"duplicate before a later weight", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1}, {ID: 1}, {ID: 2, Weight: 65536}}}, syscall.EINVAL, "Nexthop id can not be used twice in a group"},
		{"duplicate before a missing member", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 99}, {ID: 99}}}, syscall.EINVAL, "Nexthop id can not be used twice in a group"},
		// What a group may not have, before its members are looked up.
		{"group and device before members", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 99}}, Dev: "veth2"}, syscall.EINVAL, "No other attributes can be set in nexthop groups"},
		{"group and blackhole", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1}}, Blackhole: true}, syscall.EINVAL, "No other attributes can be set in nexthop groups"},
		{"group and gateway", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1}}, Gateway: ip("192.0.2.9")}, syscall.EINVAL, "No other attributes can be set in nexthop groups"},
		{"group and a gateway of no address", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1}}, HasGateway: true}, syscall.EINVAL, "No other attributes can be set in nexthop groups"},
		{"group and encap", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1}}, HasEncap: true}, syscall.EINVAL, "No other attributes can be set in nexthop groups"},
		{"resilient parameters on mpath", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1}}, Resilient: &nexthop.ResilientConfig{Buckets: 8, HasBuckets: true}},
			syscall.EINVAL, "No other attributes can be set in nexthop groups"},
		{"resilient parameters of a bad nest on mpath", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1}}, ResilientErr: nested},
			syscall.EINVAL, "No other attributes can be set in nexthop groups"},
		// A resilient group's parameters, after its entries.
		{"resilient nest's policy", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 99}}, GroupType: res, ResilientErr: nested}, syscall.EINVAL, "Unknown attribute type"},
		{"0 buckets", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1}}, GroupType: res, Resilient: &nexthop.ResilientConfig{HasBuckets: true}},
			syscall.EINVAL, "Number of buckets needs to be non-0"},
		{"timer beyond a u32 of clock_t", rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1}}, GroupType: res,
			Resilient: &nexthop.ResilientConfig{Buckets: 1, HasBuckets: true, IdleTimer: 50e6 * time.Second, HasIdleTimer: true}},
			syscall.EINVAL, "Timer value too large"},
		// A blackhole: nothing else.
		{"blackhole and device", rtnl.NexthopRequest{ID: 20, Blackhole: true, Dev: "veth2"}, syscall.EINVAL, "Blackhole attribute can not be used with gateway, oif, encap or fdb"},
		{"blackhole and gateway", rtnl.NexthopRequest{ID: 20, Blackhole: true, Gateway: ip("192.0.2.9")}, syscall.EINVAL, "Blackhole attribute can not be used with gateway, oif, encap or fdb"},
		{"blackhole and encap", rtnl.NexthopRequest{ID: 20, Blackhole: true, HasEncap: true}, syscall.EINVAL, "Blackhole attribute can not be used with gateway, oif, encap or fdb"},
		// A single nexthop: a device, a gateway of the family's length,
		// onlink only with a gateway, no encapsulation or statistics.
		{"gateway only", rtnl.NexthopRequest{ID: 20, Gateway: ip("192.0.2.9")}, syscall.EINVAL, "Device attribute required for non-blackhole and non-fdb nexthops"},
		{"nothing but a family", rtnl.NexthopRequest{ID: 20, Family: inet}, syscall.EINVAL, "Device attribute required for non-blackhole and non-fdb nexthops"},
		{"gateway of no address", rtnl.NexthopRequest{ID: 20, Family: inet, Dev: "veth2", HasGateway: true}, syscall.EINVAL, "Invalid gateway"},
		{"IPv4 with IPv6 gateway", rtnl.NexthopRequest{ID: 20, Family: inet, Gateway: ip("2001:db8::9"), Dev: "veth2"}, syscall.EINVAL, "Invalid gateway"},
		{"IPv4 with IPv4-mapped gateway", rtnl.NexthopRequest{ID: 20, Family: inet, Gateway: ip("::ffff:192.0.2.9"), Dev: "veth2"}, syscall.EINVAL, "Invalid gateway"},
		{"IPv6 with IPv4 gateway", rtnl.NexthopRequest{ID: 20, Family: inet6, Gateway: ip("192.0.2.9"), Dev: "veth2"}, syscall.EINVAL, "Invalid gateway"},
		{"onlink without gateway", rtnl.NexthopRequest{ID: 20, Dev: "veth2", NHFlags: onlink}, syscall.EINVAL, "ONLINK flag can not be set for nexthop without a gateway"},
		{"onlink before the device index", rtnl.NexthopRequest{ID: 20, OIF: true, DevIndex: 9999, NHFlags: onlink}, syscall.EINVAL, "ONLINK flag can not be set for nexthop without a gateway"},
		{"encap type missing", rtnl.NexthopRequest{ID: 20, Dev: "veth2", HasEncap: true}, syscall.EINVAL, "LWT encapsulation type is missing"},
		{"encap", rtnl.NexthopRequest{ID: 20, Dev: "veth2", HasEncap: true, HasEncapType: true}, syscall.EOPNOTSUPP, "Nexthop lwt encapsulation is not modelled"},
		{"encap attribute missing", rtnl.NexthopRequest{ID: 20, Dev: "veth2", HasEncapType: true}, syscall.EINVAL, "LWT encapsulation attribute is missing"},
		{"hardware statistics", rtnl.NexthopRequest{ID: 20, Dev: "veth2", HWStats: true}, syscall.EINVAL, "Cannot enable nexthop hardware statistics for non-group nexthops"},
		// Then, under RTNL, the device an NHA_OIF names (0 included).
		{"unknown device index", rtnl.NexthopRequest{ID: 20, OIF: true, DevIndex: 9999}, syscall.EINVAL, "Invalid device index"},
		{"NHA_OIF 0", rtnl.NexthopRequest{ID: 20, OIF: true}, syscall.EINVAL, "Invalid device index"},
		// A replace makes the same checks before it looks at the nexthop
		// it replaces.
		{"replace", rtnl.NexthopRequest{Flags: rt.NLMCreate | rt.NLMReplace, ID: 1, Blackhole: true, Dev: "veth2"},
			syscall.EINVAL, "Blackhole attribute can not be used with gateway, oif, encap or fdb"},
	}
	before, err := r.h.NexthopList()
	r.ok(err)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := c.req
			if req.Flags == 0 {
				req.Flags = rt.NLMCreate | rt.NLMExcl
			}
			var e *errno.Error
			require.ErrorAs(t, r.h.NewNexthop(req), &e)
			require.Equal(t, c.en, e.Errno)
			require.Equal(t, c.msg, e.Msg)
			after, err := r.h.NexthopList()
			r.ok(err)
			require.Equal(t, before, after)
		})
	}

	// What the checks let through: the largest weight, a group's
	// hardware statistics (which netsim does not count), an IPv6 nexthop
	// through an IPv4-mapped gateway.
	r.ok(r.h.NexthopAdd(rtnl.NexthopRequest{ID: 20, Group: g{{ID: 1, Weight: 65535}, {ID: 2}}, HWStats: true}))
	ni, err := r.h.NexthopGet(20)
	r.ok(err)
	require.Equal(t, []nexthop.GroupMember{{ID: 1, Weight: 65535}, {ID: 2, Weight: 1}}, ni.Group)
}
