// A vlan's configuration beside its id: its protocol, its flags and its
// ingress and egress priority maps, what vlan_changelink sets and
// vlan_fill_info reports (net/8021q/vlan_netlink.c; vlan_dev.c:
// vlan_dev_change_flags, vlan_dev_set_ingress_priority,
// vlan_dev_set_egress_priority; include/linux/if_vlan.h).

package netdev

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

// The VLAN_FLAG_* bits of a vlan's flags.
const (
	VlanFlagReorderHdr    = 0x1  // VLAN_FLAG_REORDER_HDR, a new vlan's
	VlanFlagGVRP          = 0x2  // VLAN_FLAG_GVRP
	VlanFlagLooseBinding  = 0x4  // VLAN_FLAG_LOOSE_BINDING
	VlanFlagMVRP          = 0x8  // VLAN_FLAG_MVRP
	VlanFlagBridgeBinding = 0x10 // VLAN_FLAG_BRIDGE_BINDING

	vlanFlagsKnown = VlanFlagReorderHdr | VlanFlagGVRP | VlanFlagLooseBinding | VlanFlagMVRP | VlanFlagBridgeBinding
)

// VlanFlags is struct ifla_vlan_flags: the flags to set among those of
// Mask.
type VlanFlags struct{ Flags, Mask uint32 }

// VlanQoSMapping is struct ifla_vlan_qos_mapping: for the ingress map a
// VLAN priority (From, 0..7 as its low three bits) and the skb priority it
// maps to; for the egress map an skb priority and the VLAN priority (To,
// its low three bits) it maps to.
type VlanQoSMapping struct{ From, To uint32 }

// VlanSettings is what a request's IFLA_INFO_DATA sets on a vlan besides
// its id and protocol: nil is an attribute the request does not carry.
// The mappings are added to the vlan's maps, not put in their place.
type VlanSettings struct {
	// ID and Protocol are IFLA_VLAN_ID and IFLA_VLAN_PROTOCOL of a
	// request that changes a vlan: vlan_validate checks them, and
	// vlan_changelink does not look at them (a vlan keeps its own).
	ID, Protocol *uint16
	Flags        *VlanFlags       // IFLA_VLAN_FLAGS
	IngressQoS   []VlanQoSMapping // IFLA_VLAN_INGRESS_QOS
	EgressQoS    []VlanQoSMapping // IFLA_VLAN_EGRESS_QOS
}

// VlanInfo is what a vlan reports in IFLA_INFO_DATA, in vlan_fill_info's
// order; a map without entries is not sent.
type VlanInfo struct {
	Protocol   uint16 // IFLA_VLAN_PROTOCOL, host order
	ID         uint16 // IFLA_VLAN_ID
	Flags      uint32 // IFLA_VLAN_FLAGS (mask ~0), sent when not 0
	IngressQoS []VlanQoSMapping
	EgressQoS  []VlanQoSMapping
}

// vlanEgress is one entry of a vlan's egress map (struct
// vlan_priority_tci_mapping): an skb priority and its VLAN priority, 0
// for a mapping removed.
type vlanEgress struct {
	priority uint32
	vlanPrio uint8
}

// vlanState is a vlan's private state (struct vlan_dev_priv).
type vlanState struct {
	id      uint16
	proto   uint16
	flags   uint32
	ingress [8]uint32 // ingress_priority_map
	// egress is egress_priority_map: 16 buckets by the skb priority's low
	// four bits, each newest first.
	egress [16][]vlanEgress
}

// apply is vlan_changelink on s: the flags (vlan_dev_change_flags refuses
// a mask with unknown bits: a bare EINVAL), then the ingress mappings,
// then the egress ones. A refused request changes nothing.
func (v *vlanState) apply(s VlanSettings) error {
	next := *v
	if f := s.Flags; f != nil {
		if f.Mask&^vlanFlagsKnown != 0 {
			return errno.New(syscall.EINVAL, "")
		}
		next.flags = v.flags&^f.Mask | f.Flags&f.Mask
	}
	for _, m := range s.IngressQoS {
		// vlan_dev_set_ingress_priority(dev, m->to, m->from)
		next.ingress[m.From&7] = m.To
	}
	for i := range next.egress {
		next.egress[i] = append([]vlanEgress(nil), v.egress[i]...)
	}
	for _, m := range s.EgressQoS {
		next.setEgress(m.From, uint8(m.To&7))
	}
	*v = next
	return nil
}

// setEgress is vlan_dev_set_egress_priority: the mapping of skb priority
// prio changes in place, or a new one goes first in its bucket.
func (v *vlanState) setEgress(prio uint32, vlanPrio uint8) {
	b := &v.egress[prio&0xf]
	for i := range *b {
		if (*b)[i].priority == prio {
			(*b)[i].vlanPrio = vlanPrio
			return
		}
	}
	*b = append([]vlanEgress{{priority: prio, vlanPrio: vlanPrio}}, *b...)
}

// VlanInfo returns a vlan's IFLA_INFO_DATA, or nil for other kinds.
//
// Kernel: vlan_fill_info (net/8021q/vlan_netlink.c): the ingress map by
// VLAN priority, the egress map bucket by bucket, skipping mappings to
// VLAN priority 0.
func (d *Device) VlanInfo() *VlanInfo {
	v := d.priv.vlan
	if v == nil {
		return nil
	}
	info := &VlanInfo{Protocol: v.proto, ID: v.id, Flags: v.flags}
	for i, to := range v.ingress {
		if to != 0 {
			info.IngressQoS = append(info.IngressQoS, VlanQoSMapping{From: uint32(i), To: to})
		}
	}
	for _, b := range v.egress {
		for _, e := range b {
			if e.vlanPrio != 0 {
				info.EgressQoS = append(info.EgressQoS, VlanQoSMapping{From: e.priority, To: uint32(e.vlanPrio)})
			}
		}
	}
	return info
}

// ChangeVlan applies a request's IFLA_VLAN_* attributes to vlan d, after
// vlan_validate's checks. The id and the protocol do not change:
// vlan_changelink does not look at them.
//
// Kernel: vlan_validate, vlan_changelink (net/8021q/vlan_netlink.c).
func (d *Device) ChangeVlan(t *sim.Task, s VlanSettings) error {
	if d.priv.vlan == nil {
		return errno.Errorf(syscall.EOPNOTSUPP, "Device \"%s\" is not a vlan", d.name)
	}
	var id uint16
	if s.ID != nil {
		id = *s.ID
	}
	if err := vlanValidate(s.Protocol, id, s.Flags); err != nil {
		return err
	}
	return d.priv.vlan.apply(s)
}
