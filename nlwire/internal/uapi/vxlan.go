// vxlan's IFLA_INFO_DATA attributes (include/uapi/linux/if_link.h).

package uapi

// The IFLA_VXLAN_* numbers and the VXLAN_DF_* and VXLAN_LABEL_* values of
// include/uapi/linux/if_link.h (Linux 6.18).
//
//nolint:revive,stylecheck
const (
	IFLA_VXLAN_ID                = 0x1
	IFLA_VXLAN_GROUP             = 0x2
	IFLA_VXLAN_LINK              = 0x3
	IFLA_VXLAN_LOCAL             = 0x4
	IFLA_VXLAN_TTL               = 0x5
	IFLA_VXLAN_TOS               = 0x6
	IFLA_VXLAN_LEARNING          = 0x7
	IFLA_VXLAN_AGEING            = 0x8
	IFLA_VXLAN_LIMIT             = 0x9
	IFLA_VXLAN_PORT_RANGE        = 0xa
	IFLA_VXLAN_PROXY             = 0xb
	IFLA_VXLAN_RSC               = 0xc
	IFLA_VXLAN_L2MISS            = 0xd
	IFLA_VXLAN_L3MISS            = 0xe
	IFLA_VXLAN_PORT              = 0xf
	IFLA_VXLAN_GROUP6            = 0x10
	IFLA_VXLAN_LOCAL6            = 0x11
	IFLA_VXLAN_UDP_CSUM          = 0x12
	IFLA_VXLAN_UDP_ZERO_CSUM6_TX = 0x13
	IFLA_VXLAN_UDP_ZERO_CSUM6_RX = 0x14
	IFLA_VXLAN_REMCSUM_TX        = 0x15
	IFLA_VXLAN_REMCSUM_RX        = 0x16
	IFLA_VXLAN_GBP               = 0x17
	IFLA_VXLAN_REMCSUM_NOPARTIAL = 0x18
	IFLA_VXLAN_COLLECT_METADATA  = 0x19
	IFLA_VXLAN_LABEL             = 0x1a
	IFLA_VXLAN_GPE               = 0x1b
	IFLA_VXLAN_TTL_INHERIT       = 0x1c
	IFLA_VXLAN_DF                = 0x1d
	IFLA_VXLAN_VNIFILTER         = 0x1e
	IFLA_VXLAN_LOCALBYPASS       = 0x1f
	IFLA_VXLAN_LABEL_POLICY      = 0x20
	IFLA_VXLAN_RESERVED_BITS     = 0x21
	IFLA_VXLAN_MC_ROUTE          = 0x22
	IFLA_VXLAN_MAX               = 0x22
)
