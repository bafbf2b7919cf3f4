// Link attribute numbers (IFLA_*) of include/uapi/linux/if_link.h.

package uapi

// The IFLA_* numbers of include/uapi/linux/if_link.h (Linux 6.18) that the
// link messages use beside the main table.
//
//nolint:revive,stylecheck
const (
	IFLA_VFINFO_LIST                = 0x16
	IFLA_VF_PORTS                   = 0x18
	IFLA_PORT_SELF                  = 0x19
	IFLA_XDP                        = 0x2b
	IFLA_EVENT                      = 0x2c
	IFLA_PROTO_DOWN_REASON          = 0x37
	IFLA_MAX_PACING_OFFLOAD_HORIZON = 0x42
	IFLA_NETNS_IMMUTABLE            = 0x43
	IFLA_HEADROOM                   = 0x44
	IFLA_TAILROOM                   = 0x45
	IFLA_MAX                        = 0x45
	IFLA_INFO_MAX                   = 0x5
	IFLA_XDP_ATTACHED               = 0x2
	IFLA_BRPORT_MRP_RING_OPEN       = 0x23
	IFLA_BRPORT_MRP_IN_OPEN         = 0x24
	RTEXT_FILTER_SKIP_STATS         = 0x8
)
