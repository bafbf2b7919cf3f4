// Namespace ids in ip: `ip netns set NAME NETNSID|auto`, `ip netns
// list-id`, the ids `ip netns list` prints, and the cache of ids to names
// with which ip names a link's namespace (link-netns NAME). ip names a
// namespace by opening its file under /run/netns and asking the kernel
// for the id its own namespace has for it (RTM_GETNSID with NETNSA_FD);
// netsim's Go callers name it by its rtnl.Net, which stands for the file.
// iproute2: get_netnsid_from_name, netns_map_init, get_name_from_nsid,
// netns_get_name, print_nsid, netns_list_id, netns_set, set_netnsid_from_name
// (ip/ipnetns.c).

package iproute

import (
	"github.com/netsimlab/netsim/rt"
	"github.com/netsimlab/netsim/rtnl"
)

// nsidCache is ipnetns.c's nsid-to-name cache of one ip process: built
// once, on first use, from the namespaces under /run/netns; a name found
// later is added, one printed by print_nsid taken out.
type nsidCache struct {
	built bool
	names map[int32]string
}

// netnsidFromName is get_netnsid_from_name: the id h's namespace has for
// the namespace named name, NsidNotAssigned for none, -2 when the request
// fails.
func netnsidFromName(h *handle, name string) int32 {
	n := h.Net().Kernel().Net(name)
	if n == nil {
		return rtnl.NsidNotAssigned // the file does not open
	}
	info, err := h.GetNsid(rtnl.NsidGetRequest{Peer: rtnl.NetnsRef{Net: n}})
	if err != nil {
		return -2
	}
	return info.NSID
}

// setNetnsidFromName is set_netnsid_from_name: give the namespace named
// name the id nsid (-1: the lowest free) in h's namespace (RTM_NEWNSID).
func setNetnsidFromName(h *handle, name string, nsid int32) error {
	n := h.Net().Kernel().Net(name)
	if n == nil {
		return failf("Cannot open network namespace \"%s\": No such file or directory\n", name)
	}
	return h.NewNsid(rtnl.NsidRequest{NSID: &nsid, Peer: rtnl.NetnsRef{Net: n}})
}

// nsidMapInit is netns_map_init: the cache of every named namespace that
// h's namespace has an id for, in /run/netns order (the first name of an
// id wins).
func (ip *IP) nsidMapInit(h *handle) {
	c := &ip.nsids
	if c.built {
		return
	}
	c.built, c.names = true, map[int32]string{}
	for _, name := range ip.k.NetNamesNewestFirst() {
		if id := netnsidFromName(h, name); id >= 0 {
			c.add(id, name)
		}
	}
}

// add is netns_map_add: a name for id unless the cache has one.
func (c *nsidCache) add(id int32, name string) {
	if _, ok := c.names[id]; !ok {
		c.names[id] = name
	}
}

// nameFromNsid is get_name_from_nsid: the cached name of id, or "".
func (ip *IP) nameFromNsid(h *handle, id int32) string {
	if id < 0 {
		return ""
	}
	ip.nsidMapInit(h)
	return ip.nsids.names[id]
}

// netnsGetName is netns_get_name: the first name under /run/netns whose
// namespace h's namespace calls id, or "".
func (ip *IP) netnsGetName(h *handle, id int32) string {
	if id < 0 {
		return ""
	}
	for _, name := range ip.k.NetNamesNewestFirst() {
		if netnsidFromName(h, name) == id {
			return name
		}
	}
	return ""
}

// printNsid is print_nsid: one id, with the requester's own id for a
// target's (current-nsid) and the name ip knows it by.
func (ip *IP) printNsid(h *handle, typ rt.MsgType, info rtnl.NsidInfo) {
	p := &ip.p
	p.openObject("")
	if typ == rt.RTMDelNsid {
		p.bool(printAny, "deleted", "Deleted ", true)
	}
	if info.NSID < 0 {
		p.str(printFP, "", "nsid unassigned ", "")
	} else {
		p.int(printAny, "nsid", "nsid %d ", int64(info.NSID))
	}
	key := info.NSID
	if info.HasCurrent {
		key = info.CurrentNSID
		if info.CurrentNSID < 0 {
			p.str(printFP, "", "current-nsid unassigned ", "")
		} else {
			p.int(printAny, "current-nsid", "current-nsid %d ", int64(info.CurrentNSID))
		}
	}
	ip.nsidMapInit(h)
	name, cached := "", false
	if key >= 0 {
		name, cached = ip.nsids.names[key]
	}
	if cached {
		p.str(printAny, "name", "(iproute2 netns name: %s)", name)
		delete(ip.nsids.names, key)
	} else if typ == rt.RTMNewNsid {
		// The id might not be in the cache.
		if name = ip.netnsGetName(h, info.NSID); name != "" {
			p.str(printAny, "name", "(iproute2 netns name: %s)", name)
			ip.nsids.add(info.NSID, name)
		}
	}
	p.str(printFP, "", "\n", "")
	p.closeObject()
}

// netnsListIDReq is netns_list_id's arguments; -1 is none.
type netnsListIDReq struct{ target, nsid int }

// netnsListIDKeywords are netns_list_id's keywords; any other word is
// its usage.
var netnsListIDKeywords = []keyword[*netnsListIDReq]{
	exact("target-nsid", func(a *args, q *netnsListIDReq) error { return nsidValue(a, &q.target, "target-nsid") }),
	exact("nsid", func(a *args, q *netnsListIDReq) error { return nsidValue(a, &q.nsid, "nsid") }),
}

// nsidValue reads the value of target-nsid or nsid: get_integer, at
// least 0. As ip, it names the word after the value when it is negative
// ("(null)" at the end).
func nsidValue(a *args, v *int, key string) error {
	if *v >= 0 {
		return duparg(key, a.peek())
	}
	s, err := a.next()
	if err != nil {
		return err
	}
	n, ok := getS32(s)
	if !ok {
		return invarg("\""+key+"\" value is invalid", s)
	}
	if n < 0 {
		after := "(null)"
		if len(a.w) > 1 {
			after = a.w[1]
		}
		return invarg("\""+key+"\" value should be >= 0", after)
	}
	*v = int(n)
	return nil
}

// netnsListID is netns_list_id: the ids of ip's namespace, or of the
// namespace it calls target-nsid (RTM_GETNSID dump), or the one id nsid
// (RTM_GETNSID), each with its name.
//
// Kernel: rtnl_net_dumpid, rtnl_net_getid (net/core/net_namespace.c).
func (ip *IP) netnsListID(h *handle, argv []string) error {
	ip.nsidMapInit(h)
	q := &netnsListIDReq{target: -1, nsid: -1}
	err := walk(&args{w: argv}, netnsListIDKeywords, q, func(*args, *netnsListIDReq) error { return usageErr(netnsUsage) })
	if err != nil {
		return err
	}
	var target *int32
	if q.target >= 0 {
		t := int32(q.target)
		target = &t
	}
	p := &ip.p
	if q.nsid >= 0 {
		// get_netnsid_from_netnsid: a request of the nsid socket, which
		// asks for no strict checks.
		id := int32(q.nsid)
		info, err := h.GetNsid(rtnl.NsidGetRequest{Peer: rtnl.NetnsRef{NSID: &id}, TargetNSID: target})
		if err != nil {
			return err
		}
		p.startJSON(ip.opts.json, ip.opts.pretty, true)
		ip.printNsid(h, rt.RTMNewNsid, info)
		p.endJSON(true)
		return nil
	}
	d, err := h.DumpNsids(rtnl.NsidDumpRequest{Strict: !ip.inBatch, TargetNSID: target})
	if err != nil {
		return failf("%sDump terminated\n", Message(err))
	}
	p.startJSON(ip.opts.json, ip.opts.pretty, true)
	d.Next(func(info *rtnl.NsidInfo) bool {
		ip.printNsid(h, rt.RTMNewNsid, *info)
		return true
	})
	p.endJSON(true)
	return nil
}

// netnsSet is netns_set: give the namespace NAME the id NETNSID (auto:
// the lowest free one) in ip's namespace (RTM_NEWNSID with NETNSA_FD);
// words after the id are ignored.
//
// Kernel: rtnl_net_newid (net/core/net_namespace.c).
func (ip *IP) netnsSet(h *handle, argv []string) error {
	switch {
	case len(argv) < 1:
		return failf("No netns name specified\n")
	case len(argv) < 2:
		return failf("No nsid specified\n")
	}
	name := argv[0]
	nsid := int32(-1)
	if argv[1] != "auto" {
		n, ok := getS32(argv[1])
		switch {
		case !ok:
			return invarg("Invalid \"netnsid\" value", argv[1])
		case n < 0:
			return invarg("\"netnsid\" value should be >= 0", argv[1])
		}
		nsid = n
	}
	return setNetnsidFromName(h, name, nsid)
}
