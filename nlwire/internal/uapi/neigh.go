package uapi

// The neighbour messages' attributes and flags
// (include/uapi/linux/neighbour.h).
//
//nolint:revive,stylecheck
const (
	NDA_DST           = 0x1
	NDA_LLADDR        = 0x2
	NDA_CACHEINFO     = 0x3
	NDA_PROBES        = 0x4
	NDA_VLAN          = 0x5
	NDA_PORT          = 0x6
	NDA_VNI           = 0x7
	NDA_IFINDEX       = 0x8
	NDA_MASTER        = 0x9
	NDA_LINK_NETNSID  = 0xa
	NDA_SRC_VNI       = 0xb
	NDA_PROTOCOL      = 0xc
	NDA_NH_ID         = 0xd
	NDA_FDB_EXT_ATTRS = 0xe
	NDA_FLAGS_EXT     = 0xf
	NDA_STATE_MASK    = 0x10 // NDA_NDM_STATE_MASK
	NDA_FLAGS_MASK    = 0x11 // NDA_NDM_FLAGS_MASK
	NDA_MAX           = 0x11

	NTF_PROXY = 0x8
	// NTF_EXT_MASK is the NDA_FLAGS_EXT bits 6.18 knows: NTF_EXT_MANAGED,
	// NTF_EXT_LOCKED, NTF_EXT_EXT_VALIDATED.
	NTF_EXT_MASK = 0x7
)
