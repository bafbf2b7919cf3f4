// The printer of `ip addr show` and `ip link show`: iproute2's
// ip/ipaddress.c (ipaddr_list_flush_or_save's listing, print_addrinfo,
// print_ifa_flags, print_selected_addrinfo, print_link_stats, and the
// output of ipaddr_flush).

package iproute

import (
	"fmt"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// kernelKeep is the part of the filter a link dump request carries
// (iplink_filter_req: IFLA_MASTER, with -1 for nomaster, and the kind), which
// the kernel applies (link_master_filtered, link_kind_filtered).
func (f *linkFilter) kernelKeep(l rtnl.LinkInfo) bool {
	if f.master != "" && l.Master != f.master {
		return false
	}
	if f.nomaster && l.Master != "" {
		return false
	}
	if f.kind != "" && l.Kind != f.kind {
		return false
	}
	return true
}

// userKeep is print_linkinfo's own test of a device: up, group, master,
// kind and slave kind (a device it drops still opens and closes its JSON
// object in the caller).
func (f *linkFilter) userKeep(l rtnl.LinkInfo) bool {
	if f.up && l.Flags&netdev.FlagUp == 0 {
		return false
	}
	if f.hasGroup && l.Group != f.group {
		return false
	}
	if f.master != "" && l.Master != f.master {
		return false
	}
	if f.kind != "" && l.Kind != f.kind {
		return false
	}
	if f.slaveKind != "" && l.SlaveKind != f.slaveKind {
		return false
	}
	return true
}

// listLinks returns the devices a listing of family (-4, -6 or 0) goes
// through: the one device named by dev (fetched with RTM_GETLINK,
// unfiltered), or the dump, with the filter's kernel part applied when the
// request carried it: rtnl_linkdump_req_filter_fn adds the filter to an
// AF_UNSPEC dump only, and sends a bare request for -4 and -6.
func (f *linkFilter) listLinks(links []rtnl.LinkInfo, family rt.Family) []rtnl.LinkInfo {
	var out []rtnl.LinkInfo
	for _, l := range links {
		if f.dev != "" {
			if l.Name == f.dev {
				out = append(out, l)
			}
			continue
		}
		if family != 0 || f.kernelKeep(l) {
			out = append(out, l)
		}
	}
	return out
}

// printLinkEntry is print_linkinfo with its filter: -1 for a device the
// filter drops (nothing printed), 0 when the device's line is not printed
// (a label filter, or -brief), 1 when it is.
func (ip *IP) printLinkEntry(f *linkFilter, label bool, l rtnl.LinkInfo, names linkNames, v linkView) int {
	// print_linkinfo checks up, then returns for a label filter before
	// its checks of group, master and kind.
	if f.up && l.Flags&netdev.FlagUp == 0 {
		return -1
	}
	if label {
		return 0
	}
	if !f.userKeep(l) {
		return -1
	}
	ip.printLinkInfo(l, names, v)
	if ip.opts.brief > 0 {
		return 0
	}
	return 1
}

// linkList is `ip link show` (ipaddr_list_link), and `ip addr show dev
// DEV` after it in a batch (iplink_get): the devices, each a JSON object,
// in one JSON array, seen as v says; with a label filter (`ip addr`'s)
// print_linkinfo prints no device.
func (ip *IP) linkList(f *linkFilter, label bool, links []rtnl.LinkInfo, v linkView) {
	p := &ip.p
	names := newLinkNames(links)
	p.startJSON(ip.opts.json, ip.opts.pretty, true)
	for _, l := range f.listLinks(links, ip.family) {
		p.openObject("")
		ip.printLinkEntry(f, label, l, names, v)
		p.closeObject()
	}
	p.endJSON(true)
}

// addrList is the listing of `ip addr show`: each device that passed
// ipaddr_filter (keep), its line, its selected addresses (addrs) and with
// -s its statistics, each device a JSON object in one JSON array. With
// -oneline, only the addresses, each on its own line.
func (ip *IP) addrList(h *handle, f *addrFilter, links []rtnl.LinkInfo, keep func(rtnl.LinkInfo) bool, addrs map[netdev.IfIndex][]rtnl.AddrInfo) {
	p := &ip.p
	names := newLinkNames(links)
	// The link dump is of the -4/-6 family (ip_link_list), the filter's
	// family also that of "to".
	v := linkView{doLink: ip.doLink, family: ip.family, inet6: ip.family == rt.FamilyInet6 && f.dev == "", h: h}
	if v.family == 0 && f.to.IsValid() {
		v.family = rt.FamilyInet6
		if f.to.Addr().Is4() {
			v.family = rt.FamilyInet
		}
	}
	noLink := ip.opts.oneline > 0
	p.startJSON(ip.opts.json, ip.opts.pretty, true)
	for _, l := range f.listLinks(links, ip.family) {
		if !keep(l) {
			continue
		}
		p.openObject("")
		res := 0
		if ip.opts.brief > 0 || !noLink {
			res = ip.printLinkEntry(&f.linkFilter, f.label != "", l, names, v)
		}
		if res >= 0 {
			ip.printSelectedAddrs(f, v.family, addrs[l.Index])
		}
		if res > 0 && ip.opts.stats > 0 && !ip.doLink {
			// print_link_stats; the IPv6 link dump has the statistics
			// without IFLA_CARRIER_CHANGES.
			ip.printStats64(l, "stats64", !v.inet6)
			p.nl()
		}
		p.closeObject()
	}
	p.endJSON(true)
}

// printSelectedAddrs is print_selected_addrinfo: the device's addresses
// of the filter's family in the JSON array "addr_info" (an address
// print_addrinfo's filter drops leaves an empty object), and with -brief
// the end of the line.
func (ip *IP) printSelectedAddrs(f *addrFilter, family rt.Family, as []rtnl.AddrInfo) {
	p := &ip.p
	p.openArray(printJSON, "addr_info")
	for _, a := range as {
		if family == rt.FamilyInet && !a.Prefix.Addr().Is4() || family == rt.FamilyInet6 && a.Prefix.Addr().Is4() {
			continue
		}
		p.openObject("")
		if f.keepAddr(a) {
			ip.printAddrInfo(a, false)
		}
		p.closeObject()
	}
	p.closeArray(printJSON, "")
	if ip.opts.brief > 0 {
		p.str(printFP, "", "%s", "\n")
	}
}

// printAddrInfo is print_addrinfo for an address that passed the filter;
// flush is the listing of `ip -s -s addr flush`, which names the device
// on each line as -oneline does.
func (ip *IP) printAddrInfo(a rtnl.AddrInfo, flush bool) {
	p := &ip.p
	v4 := a.Prefix.Addr().Is4()
	family := rt.FamilyInet6
	if v4 {
		family = rt.FamilyInet
	}
	brief := ip.opts.brief > 0
	if !brief {
		if ip.opts.oneline > 0 || flush {
			if p.isJSON() {
				p.int(printJSON, "index", "", int64(a.Index))
				p.str(printJSON, "dev", "", a.Link)
			} else {
				p.text("%d: %s", a.Index, a.Link)
			}
		}
		p.str(printAny, "family", "    %s ", rt.FamilyName(family))
	}
	p.str(printAny, "local", "%s", a.Prefix.Addr().String())
	if a.Peer.IsValid() && a.Peer != a.Prefix.Addr() {
		p.str(printFP, "", " %s ", "peer")
		p.str(printAny, "address", "%s", a.Peer.String())
	}
	p.int(printAny, "prefixlen", "/%d ", int64(a.Prefix.Bits()))
	if a.Metric != 0 {
		// IFA_RT_PRIORITY, which the kernel sends when it is set.
		p.uint(printAny, "metric", "metric %d ", uint64(a.Metric))
	}
	if brief {
		return
	}
	if v4 && a.Broadcast.IsValid() {
		p.str(printFP, "", "%s ", "brd")
		p.str(printAny, "broadcast", "%s ", a.Broadcast.String())
	}
	p.str(printAny, "scope", "scope %s ", rt.Scope(a.Scope).String())
	ip.printIfaFlags(a.Flags, v4)
	if v4 {
		// inet_fill_ifaddr sends IFA_LABEL for every IPv4 address: the
		// device's name when it was given none.
		label := a.Label
		if label == "" {
			label = a.Link
		}
		p.str(printAny, "label", "%s", label)
	}
	p.nl()
	p.str(printFP, "", "       valid_lft ", "")
	if a.ValidLft == netdev.LifetimeForever {
		p.uint(printJSON, "valid_life_time", "", uint64(netdev.LifetimeForever))
		p.str(printFP, "", "%s", "forever")
	} else {
		p.uint(printAny, "valid_life_time", "%dsec", uint64(a.ValidLft))
	}
	p.str(printFP, "", " preferred_lft ", "")
	switch {
	case a.PreferredLft == netdev.LifetimeForever:
		p.uint(printJSON, "preferred_life_time", "", uint64(netdev.LifetimeForever))
		p.str(printFP, "", "%s", "forever")
	case a.Flags&netdev.AddrDeprecated != 0:
		p.int(printAny, "preferred_life_time", "%dsec", int64(int32(a.PreferredLft)))
	default:
		p.uint(printAny, "preferred_life_time", "%dsec", uint64(a.PreferredLft))
	}
	p.str(printFP, "", "%s", "\n")
}

// printIfaFlags is print_ifa_flags: each flag of ifa_flag_data once, in
// its order ("dynamic" for an address without IFA_F_PERMANENT, IPv6's
// secondary as "temporary"), then what is left as "flags %02x".
func (ip *IP) printIfaFlags(flags netdev.AddrFlags, v4 bool) {
	p := &ip.p
	for _, f := range addrFlagArgs {
		switch {
		case f.flag == netdev.AddrPermanent:
			if flags&f.flag == 0 {
				p.bool(printAny, "dynamic", "dynamic ", true)
			}
		case flags&f.flag == 0:
		case f.flag == netdev.AddrSecondary && !v4:
			p.bool(printAny, "temporary", "temporary ", true)
		default:
			p.str(printFP, "", "%s ", f.name)
			p.bool(printJSON, f.name, "", true)
		}
		flags &^= f.flag
	}
	if flags != 0 {
		p.str(printAny, "ifa_flags", "flags %s ", fmt.Sprintf("%02x", uint32(flags)))
	}
}
