// Route message flags (rtm_flags: RTM_F_*, include/uapi/linux/rtnetlink.h;
// RTCF_*, include/uapi/linux/in_route.h) and their names as iproute2
// prints them (print_rt_flags, print_cache_flags: ip/iproute.c).

package rt

// rtm_flags bits of a route message besides the RTNH_F_* ones
// (include/uapi/linux/rtnetlink.h).
const (
	RTMFNotify        uint32 = 0x100      // RTM_F_NOTIFY: notify the user of route changes
	RTMFCloned        uint32 = 0x200      // RTM_F_CLONED: a cached route (route get's answer)
	RTMFPrefix        uint32 = 0x800      // RTM_F_PREFIX: an IPv6 prefix route (from a router advertisement)
	RTMFOffload       uint32 = 0x4000     // RTM_F_OFFLOAD: offloaded to hardware
	RTMFTrap          uint32 = 0x8000     // RTM_F_TRAP: trapping packets
	RTMFOffloadFailed uint32 = 0x20000000 // RTM_F_OFFLOAD_FAILED: offload failed
)

// routeFlagNames are the rtm_flags print_rt_flags names, in its order.
var routeFlagNames = []struct {
	bit  uint32
	name string
}{
	{uint32(FlagDead), "dead"}, {uint32(FlagOnLink), "onlink"}, {uint32(FlagPervasive), "pervasive"},
	{uint32(FlagOffload), "offload"}, {uint32(FlagTrap), "trap"}, {RTMFNotify, "notify"},
	{uint32(FlagLinkDown), "linkdown"}, {uint32(FlagUnresolved), "unresolved"},
	{RTMFOffload, "rt_offload"}, {RTMFTrap, "rt_trap"}, {RTMFOffloadFailed, "rt_offload_failed"},
}

// RouteFlagNames lists the names of a route's (or a path's) rtm_flags as
// iproute2's print_rt_flags prints them, in its order.
func RouteFlagNames(flags uint32) []string {
	var out []string
	for _, f := range routeFlagNames {
		if flags&f.bit != 0 {
			out = append(out, f.name)
		}
	}
	return out
}

// cacheFlagNames are the struct rtable flags (RTCF_*, include/uapi/linux/
// in_route.h) print_cache_flags names, in its order.
var cacheFlagNames = []struct {
	bit  uint32
	name string
}{
	{0x80000000, "local"}, {0x40000000, "reject"}, {0x20000000, "mc"}, {0x10000000, "brd"},
	{0x08000000, "dst-nat"}, {0x00800000, "src-nat"}, {0x00400000, "masq"},
	{0x00020000, "dst-direct"}, {0x04000000, "src-direct"}, {0x00040000, "redirected"},
	{0x01000000, "redirect"}, {0x00200000, "fastroute"}, {0x00010000, "notify"}, {0x00080000, "proxy"},
}

// CacheFlagNames lists the names of a cached route's RTCF_* flags (the
// bits above 0xffff of route get's rtm_flags) as print_cache_flags prints
// them, in its order, and the bits it has no name for.
func CacheFlagNames(flags uint32) (names []string, rest uint32) {
	rest = flags &^ 0xffff
	for _, f := range cacheFlagNames {
		if rest&f.bit != 0 {
			rest &^= f.bit
			names = append(names, f.name)
		}
	}
	return names, rest
}
