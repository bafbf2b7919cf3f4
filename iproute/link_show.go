// `ip link show`: iproute2's ip/ipaddress.c (ipaddr_list_flush_or_save
// for links), which dumps RTM_GETLINK (rtnl_dump_ifinfo in
// net/core/rtnetlink.c); the printing is in print_link.go.

package iproute

import "github.com/netsimlab/netsim/rtnl"

// linkFilter is what `ip link show` and `ip addr show` select by
// (iproute2's struct filter, applied in print_linkinfo).
type linkFilter struct {
	dev       string
	up        bool
	group     uint32
	hasGroup  bool
	master    string // "master DEV" or "vrf DEV"
	nomaster  bool   // "nomaster": devices without a master
	kind      string // "type KIND"
	slaveKind string // "type KIND_slave": ports of a KIND master
}

// keep is the whole filter on one device: its name, and the kernel's and
// print_linkinfo's tests (flush selects devices so).
func (f *linkFilter) keep(l rtnl.LinkInfo) bool {
	return (f.dev == "" || l.Name == f.dev) && f.kernelKeep(l) && f.userKeep(l)
}

func (ip *IP) linkShow(h *handle, argv []string) error {
	ip.doLink = true // ipaddr_list_link, before it reads its arguments
	f, err := ip.parseAddrFilter(h, argv, true)
	if err != nil {
		return err
	}
	links, err := h.LinkList()
	if err != nil {
		return err
	}
	if f.dev == "" || f.hasGroup {
		// ip_link_list or ipaddr_link_get (store_nlmsg); a device
		// alone is iplink_get, whose answer ip does not cache.
		h.rememberListed(f, links)
	}
	ip.linkList(&f.linkFilter, false, links, linkView{doLink: true, family: afPacket, h: h})
	return nil
}
