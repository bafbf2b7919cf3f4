// Nexthop messages: a nexthop object and a resilient group's bucket as
// RTM_NEWNEXTHOP, RTM_DELNEXTHOP and RTM_NEWNEXTHOPBUCKET carry them, in
// answers, dumps and notifications (nh_fill_node, nh_fill_res_bucket,
// nexthop_notify, nexthop_bucket_notify in net/ipv4/nexthop.c).

package nlwire

import (
	"encoding/binary"

	"github.com/mdlayher/netlink"
	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/nlwire/internal/uapi"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// notifyNexthop builds RTM_NEWNEXTHOP and RTM_DELNEXTHOP notifications.
//
// Kernel: nexthop_notify (net/ipv4/nexthop.c).
func notifyNexthop(n rtnl.Notification) ([]byte, uint32, error) {
	if n.Nexthop == nil {
		return nil, 0, nil
	}
	b, err := encodeNexthop(n.Nexthop, roomSized)
	return b, uapi.RTNLGRP_NEXTHOP, err
}

// notifyNexthopBucket builds the RTM_NEWNEXTHOPBUCKET a resilient group's
// upkeep work multicasts to RTNLGRP_NEXTHOP for each bucket it migrates.
//
// Kernel: nexthop_bucket_notify (net/ipv4/nexthop.c).
func notifyNexthopBucket(n rtnl.Notification) ([]byte, uint32, error) {
	if n.Bucket == nil {
		return nil, 0, nil
	}
	m, err := bucketMessage(n.Bucket)
	return m.Data, uapi.RTNLGRP_NEXTHOP, err
}

// nexthopMessage is a nexthop's message of type t built in an skb of room
// bytes (see encodeNexthop).
func nexthopMessage(t rt.MsgType, ni *rtnl.NexthopInfo, room int) (netlink.Message, error) {
	b, err := encodeNexthop(ni, room)
	return netlink.Message{Header: netlink.Header{Type: netlink.HeaderType(t)}, Data: b}, err
}

// encodeNexthop encodes a nexthop object, the attributes in the kernel's
// order: a group's type, members (weight - 1 in two bytes), resilient
// parameters and op flags, or a single nexthop's blackhole flag, fdb
// flag, device and gateway. It fails with EMSGSIZE when the message does
// not fit in room bytes: the largest dump skb holds a hash-threshold
// group of at most 4049 members, the sized skb of a get or notification
// any group (NHA_GROUP always fits its 16-bit length:
// nexthop.MaxGroupMembers).
//
// Kernel: nh_fill_node, nla_put_nh_group, nla_put_nh_group_res
// (net/ipv4/nexthop.c).
func encodeNexthop(ni *rtnl.NexthopInfo, room int) ([]byte, error) {
	hdr := make([]byte, nhmLen)
	hdr[2] = uint8(ni.Protocol)
	binary.LittleEndian.PutUint32(hdr[4:], uint32(ni.Flags))
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(uapi.NHA_ID, uint32(ni.ID))
	switch {
	case ni.Group != nil:
		if ni.FDB {
			ae.Flag(uapi.NHA_FDB, true)
		}
		ae.Uint16(uapi.NHA_GROUP_TYPE, uint16(ni.GroupType))
		g := make([]byte, 0, len(ni.Group)*nexthopGrpLen)
		for _, m := range ni.Group {
			w := m.Weight
			if w == 0 {
				w = 1
			}
			g = binary.LittleEndian.AppendUint32(g, uint32(m.ID))
			g = append(g, uint8(w-1), uint8((w-1)>>8), 0, 0)
		}
		ae.Bytes(uapi.NHA_GROUP, g)
		if ni.GroupType == nexthop.GroupResilient {
			res := ni.Resilient
			ae.Nested(uapi.NHA_RES_GROUP, func(ne *netlink.AttributeEncoder) error {
				ne.Uint16(uapi.NHA_RES_GROUP_BUCKETS, res.Buckets)
				ne.Uint32(uapi.NHA_RES_GROUP_IDLE_TIMER, uint32(toClockT(res.IdleTimer)))
				ne.Uint32(uapi.NHA_RES_GROUP_UNBALANCED_TIMER, uint32(toClockT(res.UnbalancedTimer)))
				ne.Uint64(uapi.NHA_RES_GROUP_UNBALANCED_TIME, toClockT(res.UnbalancedTime))
				return nil
			})
		}
		ae.Uint32(uapi.NHA_OP_FLAGS, nhaOpFlagRespGrpResv0)
	case ni.Blackhole:
		hdr[0] = uint8(ni.Family)
		ae.Flag(uapi.NHA_BLACKHOLE, true)
	default:
		hdr[0] = uint8(ni.Family)
		hdr[1] = uint8(ni.Scope)
		if ni.FDB {
			ae.Flag(uapi.NHA_FDB, true)
		} else if ni.DevIndex != 0 {
			ae.Uint32(uapi.NHA_OIF, uint32(ni.DevIndex))
		}
		if ni.Gateway.IsValid() {
			ae.Bytes(uapi.NHA_GATEWAY, ni.Gateway.AsSlice())
		}
	}
	b, err := encodeAttrs(hdr, ae)
	if err != nil {
		return nil, err
	}
	return b, checkRoom(b, room)
}

// bucketMessage encodes one bucket of a resilient group as
// RTM_NEWNEXTHOPBUCKET.
//
// Kernel: nh_fill_res_bucket (net/ipv4/nexthop.c).
func bucketMessage(b *rtnl.NexthopBucket) (netlink.Message, error) {
	hdr := make([]byte, nhmLen)
	hdr[2] = uint8(b.Protocol)
	binary.LittleEndian.PutUint32(hdr[4:], uint32(b.Flags))
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(uapi.NHA_ID, uint32(b.ID))
	ae.Nested(uapi.NHA_RES_BUCKET, func(ne *netlink.AttributeEncoder) error {
		ne.Uint16(uapi.NHA_RES_BUCKET_INDEX, b.Index)
		ne.Uint32(uapi.NHA_RES_BUCKET_NH_ID, uint32(b.NexthopID))
		ne.Uint64(uapi.NHA_RES_BUCKET_IDLE_TIME, toClockT(b.IdleTime))
		return nil
	})
	data, err := encodeAttrs(hdr, ae)
	return netlink.Message{
		Header: netlink.Header{Type: netlink.HeaderType(rt.RTMNewNexthopBucket)},
		Data:   data,
	}, err
}
