// The checks of an RTM_NEWNEXTHOP that need no state: rtm_to_nh_config,
// nh_check_attr_group and rtm_to_nh_config_grp_res (net/ipv4/nexthop.c),
// made on the request as its message sent it, before RTNL-held checks
// (rtm_to_nh_config_rtnl: the device, a group's members) and the nexthop's
// creation (nexthop_add).

package rtnl

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
)

// family is the request's nh_family: as sent, or for a Go request without
// one, as ip fills it in (ipnh_modify): the gateway's family, else AF_INET
// for a device or a blackhole; a group keeps AF_UNSPEC.
func (r *NexthopRequest) family() rt.Family {
	if r.Family != rt.FamilyUnspec || r.FamilySent || r.Group != nil {
		return r.Family
	}
	return nexthop.DefaultFamily(r.Gateway, r.Blackhole, r.hasDev())
}

// hasDev reports whether the request names a device (NHA_OIF).
func (r *NexthopRequest) hasDev() bool { return r.OIF || r.DevIndex != 0 || r.Dev != "" }

// hasGateway reports whether the request carries NHA_GATEWAY.
func (r *NexthopRequest) hasGateway() bool { return r.HasGateway || r.Gateway.IsValid() }

// checkNexthopRequest makes the checks of an RTM_NEWNEXTHOP that need no
// state, in the kernel's order, each refused with EINVAL and its message
// unless said otherwise: the header (scope, resvd, flags), the family, an
// fdb nexthop's attributes and flags; for a group its family and type,
// its entries (length, reserved field, weight, an id used twice; a Go
// request's more members than NHA_GROUP can carry with EMSGSIZE), the
// attributes a group may not have and a resilient group's parameters;
// otherwise a blackhole's attributes, the device, the gateway's length
// against the family, onlink without a gateway, the encapsulation (which
// netsim does not model: EOPNOTSUPP) and hardware statistics.
//
// Kernel: rtm_to_nh_config, nh_check_attr_group, rtm_to_nh_config_grp_res,
// rtm_nh_get_timer (net/ipv4/nexthop.c).
func checkNexthopRequest(r *NexthopRequest) error {
	einval := func(msg string) error { return errno.New(syscall.EINVAL, msg) }
	if r.Resvd != 0 || r.Scope != 0 {
		return einval("Invalid values in ancillary header")
	}
	if r.NHFlags&^rt.FlagOnLink != 0 {
		return einval("Invalid nexthop flags in ancillary header")
	}
	family := r.family()
	switch {
	case family == rt.FamilyInet, family == rt.FamilyInet6:
	case family != rt.FamilyUnspec || r.Group == nil:
		return einval("Invalid address family")
	}
	encap := r.HasEncap || r.HasEncapType
	if r.FDB {
		if r.hasDev() || r.Blackhole || encap {
			return einval("Fdb attribute can not be used with encap, oif or blackhole")
		}
		if r.NHFlags != 0 {
			return einval("Unsupported nexthop flags in ancillary header")
		}
	}
	if r.Group != nil {
		if family != rt.FamilyUnspec {
			return einval("Invalid family for group")
		}
		if r.GroupType > nexthop.GroupTypeMax {
			return einval("Invalid group type")
		}
		if err := checkNexthopGroup(r); err != nil {
			return err
		}
		if r.GroupType == nexthop.GroupResilient {
			return checkResilient(r)
		}
		// NHA_HW_STATS_ENABLE shows only in the statistics a get or
		// dump asks for with NHA_OP_FLAGS, which netsim refuses.
		return nil
	}
	if r.Blackhole {
		if r.hasGateway() || r.hasDev() || encap || r.FDB {
			return einval("Blackhole attribute can not be used with gateway, oif, encap or fdb")
		}
		return nil
	}
	if !r.FDB && !r.hasDev() {
		return einval("Device attribute required for non-blackhole and non-fdb nexthops")
	}
	if r.hasGateway() {
		// NHA_GATEWAY's length must be the family's: 4 bytes for
		// AF_INET, 16 for AF_INET6 (an IPv4-mapped address is 16 bytes).
		if !r.Gateway.IsValid() || (family == rt.FamilyInet) != r.Gateway.Is4() {
			return einval("Invalid gateway")
		}
	} else if r.NHFlags&rt.FlagOnLink != 0 {
		return einval("ONLINK flag can not be set for nexthop without a gateway")
	}
	switch {
	case r.HasEncap && !r.HasEncapType:
		return einval("LWT encapsulation type is missing")
	case r.HasEncap:
		// lwtunnel_valid_encap_type would check the type here.
		return errno.New(syscall.EOPNOTSUPP, "Nexthop lwt encapsulation is not modelled")
	case r.HasEncapType:
		return einval("LWT encapsulation attribute is missing")
	}
	if r.HWStats {
		return einval("Cannot enable nexthop hardware statistics for non-group nexthops")
	}
	return nil
}

// checkNexthopGroup checks a group's entries, then the attributes a
// group may not have: NHA_RES_GROUP is a resilient group's only.
//
// Kernel: nh_check_attr_group (net/ipv4/nexthop.c).
func checkNexthopGroup(r *NexthopRequest) error {
	if err := nexthop.CheckGroup(r.Group); err != nil {
		return err
	}
	if r.Blackhole || r.hasDev() || r.hasGateway() || r.HasEncap || r.HasEncapType ||
		(r.Resilient != nil || r.ResilientErr != nil) && r.GroupType != nexthop.GroupResilient {
		return errno.New(syscall.EINVAL, "No other attributes can be set in nexthop groups")
	}
	return nil
}

// checkResilient checks a resilient group's NHA_RES_GROUP: its nested
// attributes' policy, a bucket count of 0 and timers that a u32 of clock_t
// cannot carry (which only a Go request can have).
//
// Kernel: rtm_to_nh_config_grp_res, rtm_nh_get_timer (net/ipv4/nexthop.c).
func checkResilient(r *NexthopRequest) error {
	if r.ResilientErr != nil {
		return r.ResilientErr
	}
	return nexthop.CheckResilient(r.Resilient)
}
